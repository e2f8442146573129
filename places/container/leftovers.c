/* The sweep: list our labelled boxes, remove those whose owner died. */
#include "config.h"

#include <string.h>

#include "places/container/box.h"
#include "places/container/leftovers.h"
#include "places/container/warm.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

static bool is_leftover(const char *name, json_object *labels, bool all_warm)
{
    /* Unclaimed warm boxes outlive their maker by design and leave by themselves. */
    if (cp_warm_unclaimed(name))
        return all_warm;
    /* `clean` also takes a box that names no owner at all: nobody can ever claim it. */
    if (all_warm && cp_json_str(labels, "conch.owner.host") == NULL)
        return true;
    return !cp_box_owner_alive(name, labels);
}

int cp_leftovers_sweep(struct cp_engine *e, bool all_warm, int *removed_out, cp_error_t *err)
{
    cleanup_free char *filter = cp_engine_escape("{\"label\":[\"conch.work=1\"]}");
    cleanup_free char *path = xasprintf("/containers/json?all=1&filters=%s", filter);
    cleanup_json json_object *list = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &list, err) < 0)
        return cp_error_wrap(err, "while looking for leftover boxes");
    int removed = 0;
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i), *labels = NULL, *names = NULL;
        const char *id = cp_json_str(c, "Id");
        json_object_object_get_ex(c, "Labels", &labels);
        json_object_object_get_ex(c, "Names", &names);
        const char *name = json_object_get_string(json_object_array_get_idx(names, 0));
        if (id == NULL || !is_leftover(name, labels, all_warm))
            continue;
        cleanup_error cp_error_t rerr = NULL;
        if (cp_box_remove(e, id, &rerr) == 0) {
            cp_debug("removed leftover box %.12s", id);
            removed++;
        }
    }
    if (removed_out != NULL)
        *removed_out = removed;
    return 0;
}
