/* The one list of places and of engines (places-list.h), where the settings' check and the run
 * step each spelt it out. */
#include "config.h"

#include <string.h>

#include "src/base/places-list.h"

const struct cp_place_name cp_place_names[] = {
    {CP_PLACE_DEFAULT, false},
    {"ssh:", true},
    {"cloud", false},
    {NULL, false},
};

const char *const cp_engine_names[] = {"docker", "podman", "auto", NULL};

const struct cp_place_name *cp_place_name_find(const char *place)
{
    for (const struct cp_place_name *p = cp_place_names; p->name != NULL; p++)
        if (p->is_prefix ? strncmp(place, p->name, strlen(p->name)) == 0
                         : strcmp(place, p->name) == 0)
            return p;
    return NULL;
}

bool cp_engine_name_known(const char *engine)
{
    for (size_t i = 0; engine != NULL && cp_engine_names[i] != NULL; i++)
        if (strcmp(engine, cp_engine_names[i]) == 0)
            return true;
    return false;
}
