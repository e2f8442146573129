/* The one list of places and of engines: the names --place, --engine and config.json take,
 * defined here once; the settings, the run step and the table of places (places/places.c, whose
 * operations serve these names) read them from here. */
#ifndef CONCH_PLACES_LIST_H
#define CONCH_PLACES_LIST_H

#include <stdbool.h>

/* Where run runs when neither --place nor config.json says. */
#define CP_PLACE_DEFAULT "container"
/* The places and the engines as messages and help list them. */
#define CP_PLACE_WORDS  "container, ssh:HOST or cloud"
#define CP_ENGINE_WORDS "docker, podman or auto"

/* A place's name: the whole name ("container", "cloud"), or a prefix its host follows
 * ("ssh:" of ssh:HOST). */
struct cp_place_name {
    const char *name;
    bool is_prefix;
};

/* The places, ended by a NULL name. */
extern const struct cp_place_name cp_place_names[];
/* The engines, NULL-terminated: docker, podman, and auto (the first found, in discovery order). */
extern const char *const cp_engine_names[];

/* The entry naming place, or NULL; for a prefix, what follows it is the caller's to check. */
const struct cp_place_name *cp_place_name_find(const char *place);
/* Whether engine (NULL: no) is one of cp_engine_names. */
bool cp_engine_name_known(const char *engine);

#endif
