/* `clean` for the sidecars: those no conch box uses any more, then the conch.egress networks
 * nothing is on (a network's holder counts only through the boxes that joined it). Only names of
 * our own shape are touched. */
#include "config.h"

#include <string.h>
#include <sys/file.h>

#include "places/container/box/box.h"
#include "places/container/seal/sidecar-names.h"
#include "places/container/seal/sidecar.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static int list_json(struct cp_engine *e, const char *what, const char *filter, json_object **out,
                     cp_error_t *err)
{
    cleanup_free char *esc = cp_engine_escape(filter);
    cleanup_free char *path = xasprintf("/%s/json?all=1&filters=%s", what, esc);
    if (strcmp(what, "networks") == 0) {
        free(path);
        path = xasprintf("/networks?filters=%s", esc);
    }
    return cp_engine_call(e, "GET", path, NULL, out, err);
}

/* A box's network mode: Docker's list has it, Podman's does not (its inspect does). */
static char *mode_of(json_object *c)
{
    json_object *host = NULL;
    json_object_object_get_ex(c, "HostConfig", &host);
    const char *m = cp_json_str(host, "NetworkMode");
    return m != NULL ? xstrdup(m) : NULL;
}

/* *out: the box's network mode, NULL when it is gone (removed while clean looks). A box that
 * cannot be read is an error: the caller takes it as using the holder, never as not. */
static int network_mode(struct cp_engine *e, json_object *c, char **out)
{
    *out = NULL;
    /* Podman's list has "HostConfig": null, or an object without the mode: only a mode
     * given is taken from the list. */
    json_object *host = NULL;
    json_object_object_get_ex(c, "HostConfig", &host);
    if (cp_json_str(host, "NetworkMode") != NULL) {
        *out = mode_of(c);
        return 0;
    }
    const char *id = cp_json_str(c, "Id");
    if (id == NULL)
        return -1;
    cleanup_free char *path = xasprintf("/containers/%s/json", id);
    cleanup_json json_object *box = NULL;
    cleanup_error cp_error_t err = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "GET", path, NULL, &status, &box, &err) < 0 ||
        (status != 200 && status != 404))
        return -1;
    *out = status == 200 ? mode_of(box) : NULL;
    return 0;
}

/* Whether a box may still use a namespace it joined: one that ended, or is being removed (the
 * work after its run removes it while clean looks), does not; one made and not yet started
 * will. Podman says "stopping" and "stopped" before its cleanup makes a box "exited" (later on
 * a busy machine). */
static bool may_use(json_object *c)
{
    static const char *const ended[] = {"exited", "dead", "removing", "stopping", "stopped"};
    const char *state = cp_json_str(c, "State");
    for (size_t i = 0; state != NULL && i < sizeof ended / sizeof *ended; i++)
        if (strcmp(state, ended[i]) == 0)
            return false;
    return true;
}

/* Whether any conch box joined the holder's namespace: such a box is on no network's list. */
static int holder_in_use(struct cp_engine *e, const char *holder_id, bool *out, cp_error_t *err)
{
    cleanup_free char *hpath = xasprintf("/containers/%s/json", holder_id);
    cleanup_json json_object *holder = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "GET", hpath, NULL, &status, &holder, err) < 0)
        return cp_error_code(err);
    cleanup_free char *mode = status == 200 ? cp_sidecar_join_mode(e, holder) : NULL;
    cleanup_json json_object *list = NULL;
    if (mode == NULL ||
        list_json(e, "containers", "{\"label\":[\"conch.work=1\"]}", &list, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i);
        if (!may_use(c))
            continue;
        cleanup_free char *m = NULL;
        if (network_mode(e, c, &m) < 0 || (m != NULL && strcmp(m, mode) == 0)) {
            cp_debug("clean: box %.12s keeps holder %.12s", cp_json_str(c, "Id"), holder_id);
            *out = true;
        }
    }
    if (!*out)
        cp_debug("clean: no box in holder %.12s (%s)", holder_id, mode);
    return 0;
}

/* Whether any container other than the sidecar and its network holder sits on the network, or
 * in the holder's namespace. */
static int network_in_use(struct cp_engine *e, const char *net, const char *sidecar_id, bool *out,
                          cp_error_t *err)
{
    cleanup_free char *filter = xasprintf("{\"network\":[\"%s\"]}", net);
    cleanup_json json_object *list = NULL;
    if (list_json(e, "containers", filter, &list, err) < 0)
        return cp_error_code(err);
    *out = false;
    const char *holder = NULL;
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i), *labels = NULL;
        json_object_object_get_ex(c, "Labels", &labels);
        const char *id = cp_json_str(c, "Id");
        if (id != NULL && cp_json_str(labels, CP_HOLD_LABEL) != NULL)
            holder = id;
        else if (id != NULL && (sidecar_id == NULL || strcmp(id, sidecar_id) != 0))
            *out = true;
    }
    return *out || holder == NULL ? 0 : holder_in_use(e, holder, out, err);
}

static bool safe_name(const char *s)
{
    return s != NULL && strncmp(s, "conch-egress-", 13) == 0 &&
           strspn(s + 13, "0123456789abcdef") == strlen(s + 13);
}

/* Whether the sidecar was made by the home whose mark is given: another home's runs count on
 * theirs between runs (the same sidecar and holder), so its idle exit removes it, not our clean. */
static bool own_home(json_object *labels, const char *mark)
{
    const char *home = cp_json_str(labels, CP_HOME_LABEL);
    return mark != NULL && home != NULL && strcmp(home, mark) == 0;
}

static int clean_sidecars(struct cp_engine *e, int *removed, cp_error_t *err)
{
    cleanup_free char *mark = cp_home_mark();
    cleanup_json json_object *list = NULL;
    if (list_json(e, "containers", "{\"label\":[\"conch.egress=1\"]}", &list, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i), *names = NULL, *labels = NULL;
        const char *id = cp_json_str(c, "Id");
        json_object_object_get_ex(c, "Names", &names);
        json_object_object_get_ex(c, "Labels", &labels);
        const char *n0 = json_object_get_string(json_object_array_get_idx(names, 0));
        const char *name = n0 && n0[0] == '/' ? n0 + 1 : n0;
        bool used = false;
        if (id == NULL || !safe_name(name))
            return cp_error_code(err);
        if (!own_home(labels, mark)) {
            cp_debug("clean: sidecar %s is another CONCH_HOME's", name);
            continue;
        }
        cleanup_close int use = cp_sidecar_use_lock(name, LOCK_EX | LOCK_NB);
        if (use < 0) {
            cp_debug("clean: a run holds sidecar %s in use", name);
            continue;
        }
        if (network_in_use(e, name, id, &used, err) < 0)
            return cp_error_code(err);
        if (used)
            continue;
        cp_sidecar_holder_remove(e, name);
        cp_sidecar_keys_forget(id);
        cleanup_error cp_error_t rm = NULL;
        if (cp_box_remove(e, id, &rm) == 0)
            (*removed)++;
    }
    return 0;
}

static int clean_networks(struct cp_engine *e, int *removed, cp_error_t *err)
{
    cleanup_json json_object *list = NULL;
    if (list_json(e, "networks", "{\"label\":[\"conch.egress=1\"]}", &list, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        const char *name = cp_json_str(json_object_array_get_idx(list, i), "Name");
        bool used = false;
        if (!safe_name(name))
            return cp_error_code(err);
        cleanup_close int use = cp_sidecar_use_lock(name, LOCK_EX | LOCK_NB);
        if (use < 0)
            continue; /* a run holds it in use */
        if (network_in_use(e, name, NULL, &used, err) < 0)
            return cp_error_code(err);
        if (used)
            continue;
        cp_sidecar_holder_remove(e, name);
        cleanup_free char *path = xasprintf("/networks/%s", name);
        cleanup_error cp_error_t rm = NULL;
        if (cp_engine_call(e, "DELETE", path, NULL, NULL, &rm) == 0)
            (*removed)++;
    }
    return 0;
}

int cp_sidecar_clean(struct cp_engine *e, int *removed_out, cp_error_t *err)
{
    int removed = 0;
    if (clean_sidecars(e, &removed, err) < 0 || clean_networks(e, &removed, err) < 0)
        return cp_error_wrap(err, "while removing egress sidecars");
    *removed_out = removed;
    return 0;
}
