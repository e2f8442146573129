/* After a container run (behind.h): the job written for `conch-place behind`, and done by it. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "places/container/behind.h"
#include "places/container/box.h"
#include "places/container/leftovers.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/spawn.h"
#include "src/base/util.h"

static void add_str(json_object *o, const char *key, const char *value)
{
    if (value != NULL)
        json_object_object_add(o, key, json_object_new_string(value));
}

static json_object *refill_json(const struct cp_warm_refill *r)
{
    json_object *o = json_object_new_object();
    add_str(o, "used_id", r->used_id);
    add_str(o, "used_layer", r->used_layer);
    if (r->spec != NULL)
        json_object_object_add(o, "spec", json_object_get(r->spec));
    add_str(o, "name", r->name);
    add_str(o, "workdir", r->workdir);
    json_object_object_add(o, "limits_may_miss", json_object_new_boolean(r->limits_may_miss));
    return o;
}

void cp_container_behind(struct cp_engine *e, const struct cp_warm_refill *r)
{
    cleanup_json json_object *job = json_object_new_object();
    if (r != NULL) {
        add_str(job, "socket", e->socket);
        add_str(job, "kind", e->kind);
        add_str(job, "version", e->version);
        json_object_object_add(job, "refill", refill_json(r));
    }
    size_t len = 0;
    const char *text = json_object_to_json_string_length(job, JSON_C_TO_STRING_PLAIN, &len);
    cleanup_error cp_error_t err = NULL;
    if (cp_spawn_self_behind("behind", text, len, &err) == 0)
        return;
    cp_debug("%s", err->msg);
    if (r != NULL && r->used_id != NULL)
        (void)cp_box_remove(e, r->used_id, NULL);
}

int cp_container_behind_job(json_object *job, cp_error_t *err)
{
    json_object *refill = NULL;
    const char *socket = cp_json_str(job, "socket");
    const char *kind = cp_json_str(job, "kind");
    const char *version = cp_json_str(job, "version");
    if (json_object_object_get_ex(job, "refill", &refill)) {
        if (socket == NULL || kind == NULL || version == NULL ||
            strlen(version) >= sizeof(((struct cp_engine *)NULL)->version))
            return cp_error_make(err, CP_ERR_USAGE, 0, "behind: the job names no engine");
        struct cp_engine e = {.socket = (char *)socket,
                              .kind = strcmp(kind, "podman") == 0 ? "podman" : "docker"};
        snprintf(e.version, sizeof(e.version), "%s", version);
        json_object *spec = NULL;
        json_object_object_get_ex(refill, "spec", &spec);
        if (cp_json_str(refill, "name") == NULL)
            spec = NULL; /* a box is only made under the name chosen for it */
        json_object *may_miss = NULL;
        json_object_object_get_ex(refill, "limits_may_miss", &may_miss);
        const struct cp_warm_refill r = {.used_id = cp_json_str(refill, "used_id"),
                                         .used_layer = cp_json_str(refill, "used_layer"),
                                         .spec = spec,
                                         .name = cp_json_str(refill, "name"),
                                         .workdir = cp_json_str(refill, "workdir"),
                                         .limits_may_miss = json_object_get_boolean(may_miss)};
        cp_warm_refill_now(&e, &r);
    }
    cp_leftovers_sweep_now();
    return 0;
}
