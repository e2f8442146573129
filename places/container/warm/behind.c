/* After a container run (behind.h): the job written for `conch-place behind`, and done by it. */
#include "config.h"

#include <string.h>

#include "places/container/warm/behind.h"
#include "places/container/warm/warm.h"
#include "places/container/box/box.h"
#include "places/container/warm/leftovers.h"
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
    add_str(o, "pool", r->pool);
    json_object *next = json_object_new_array();
    for (size_t i = 0; i < r->nnext; i++) {
        json_object *n = json_object_new_object();
        add_str(n, "name", r->next[i].name);
        json_object_object_add(n, "spec", json_object_get(r->next[i].spec));
        json_object_array_add(next, n);
    }
    json_object_object_add(o, "next", next);
    add_str(o, "workdir", r->workdir);
    if (r->git != NULL) {
        add_str(o, "git_dir", r->git->dir);
        add_str(o, "git_worktree", r->git->worktree);
        add_str(o, "git_owner", r->git->owner);
    }
    json_object_object_add(o, "limits_may_miss", json_object_new_boolean(r->limits_may_miss));
    return o;
}

/* The boxes the pool may make: each only under the name chosen for it. */
static void read_next(json_object *refill, struct cp_warm_refill *r)
{
    json_object *next = NULL;
    json_object_object_get_ex(refill, "next", &next);
    for (size_t i = 0; json_object_is_type(next, json_type_array) &&
                       i < json_object_array_length(next) && r->nnext < CP_WARM_POOL_MAX;
         i++) {
        json_object *n = json_object_array_get_idx(next, i), *spec = NULL;
        const char *name = cp_json_str(n, "name");
        if (name != NULL && json_object_object_get_ex(n, "spec", &spec))
            r->next[r->nnext++] = (struct cp_warm_next){.spec = spec, .name = name};
    }
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
        cleanup_engine struct cp_engine *e = socket != NULL && kind != NULL && version != NULL
                                                 ? cp_engine_recalled(socket, kind, version)
                                                 : NULL;
        if (e == NULL)
            return cp_error_make(err, CP_ERR_USAGE, 0, "behind: the job names no engine");
        json_object *may_miss = NULL;
        json_object_object_get_ex(refill, "limits_may_miss", &may_miss);
        struct cp_warm_refill r = {.used_id = cp_json_str(refill, "used_id"),
                                   .used_layer = cp_json_str(refill, "used_layer"),
                                   .pool = cp_json_str(refill, "pool"),
                                   .workdir = cp_json_str(refill, "workdir"),
                                   .limits_may_miss = json_object_get_boolean(may_miss)};
        read_next(refill, &r);
        /* Borrowed from the job, which outlives the refill. */
        struct cp_git_outside git = {.dir = (char *)cp_json_str(refill, "git_dir"),
                                     .worktree = (char *)cp_json_str(refill, "git_worktree"),
                                     .owner = (char *)cp_json_str(refill, "git_owner")};
        if (git.dir != NULL && git.owner != NULL)
            r.git = &git;
        cp_warm_refill_now(e, &r);
    }
    cp_leftovers_sweep_now();
    return 0;
}
