/* The interface every place implements: container, ssh:HOST and cloud sit behind it. */
#ifndef CONCH_PLACE_H
#define CONCH_PLACE_H

#include <stdbool.h>

#include <json-c/json.h>

#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* A connection a long-lived process already holds for the place (the ssh keeper's session:
 * the place that made it knows its type), and where a stop comes from: readable, its byte
 * the signal. */
struct cp_run_kept {
    void *session;
    int stop_fd;
};

/* One command to run, as `run` resolved it. Everything is borrowed. */
struct cp_run_request {
    const char *place;   /* as typed or saved: "container", "ssh:HOST", "cloud" */
    char *const *argv;   /* the command, NULL-terminated */
    const char *workdir; /* the work folder's real absolute path */
    const char *chat;    /* whose copy or sandbox */
    bool sealed;         /* false with --unsealed */
    bool interactive;    /* -i: pass standard input on */
    bool hold;           /* --hold: keep the changes for review instead of landing them */
    const char *engine;  /* docker | podman | auto */
    const char *image;   /* NULL: the place's default */
    const struct cp_config *config;
    const struct cp_run_kept *kept; /* NULL: the place connects for this run itself */
};

struct cp_place_ops {
    const char *name; /* "container", "ssh:" (a prefix) or "cloud" */
    bool is_prefix;
    /* Whether the place keeps the seal (DESIGN.md's table: no network but the allow-list, .git
     * read-only, keys covered). Only the container does; ssh and cloud run the command as the
     * host or sandbox is (ADR 0106), and --unsealed changes nothing there. */
    bool seals;
    /* Readies the place (engine found, image present, copy synced). *state_out is the place's. */
    int (*prepare)(const struct cp_run_request *req, void **state_out, cp_error_t *err);
    /* Runs the command; *status_out is its exit status as the shell would report it. */
    int (*run)(void *state, const struct cp_run_request *req, int *status_out, cp_error_t *err);
    /* Frees what prepare made, removing anything left on the far side. */
    void (*release)(void *state);
    /* doctor: checks end to end, printing one line a check; fails with one action. */
    int (*check)(const char *place, const struct cp_config *cfg, cp_error_t *err);
    /* places: appends {"place", "ready", "next"} objects to the array ("seals" is added from
     * the field above). */
    int (*describe)(const struct cp_config *cfg, json_object *places, cp_error_t *err);
    /* clean: removes what a crash left behind. */
    int (*clean)(const struct cp_config *cfg, cp_error_t *err);
};

/* The table of places; NULL-terminated. */
extern const struct cp_place_ops *const cp_places[];

/* The ops serving a place name, or NULL with err set (naming the known places). */
const struct cp_place_ops *cp_place_find(const char *place, cp_error_t *err);

#endif
