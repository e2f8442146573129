/* The table of places: a name (or prefix) to the ops that serve it. */
#include "config.h"

#include <string.h>

#include "places/place.h"
#include "src/base/places-list.h"

extern const struct cp_place_ops cp_place_container, cp_place_ssh, cp_place_cloud;

const struct cp_place_ops *const cp_places[] = {&cp_place_container, &cp_place_ssh, &cp_place_cloud,
                                                NULL};

const struct cp_place_ops *cp_place_find(const char *place, cp_error_t *err)
{
    for (size_t i = 0; cp_places[i] != NULL; i++) {
        const struct cp_place_ops *p = cp_places[i];
        if (p->is_prefix ? strncmp(place, p->name, strlen(p->name)) == 0
                         : strcmp(place, p->name) == 0)
            return p;
    }
    cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a place (" CP_PLACE_WORDS ")", place);
    cp_error_hint(err, "Use --place " CP_PLACE_DEFAULT ".");
    return NULL;
}
