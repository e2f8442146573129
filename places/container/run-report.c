/* The container place's facts for the run report (src/base/report.h), each read from the
 * engine itself: the seal is the box as the engine made it (its inspect), not as it was asked
 * for, and refusals are the sidecar's own log lines. Nothing here runs without --report. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "places/container/run-report.h"
#include "egress/egress.h"
#include "src/base/http.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/report.h"
#include "src/base/util.h"

#define LOG_MAX (4 * 1024 * 1024)

void cp_container_report_engine(const struct cp_engine *e, const char *image, const char *image_id,
                                bool sealed)
{
    cp_run_report_set("engine", e->kind);
    cp_run_report_set("socket", e->socket);
    cp_run_report_set("image", image);
    cp_run_report_set("image_id", image_id);
    cp_run_report_sealed(sealed);
    /* Sealed, the folder is seen through the layer the gate lands (place-container-prepare.c). */
    cp_run_report_files_how(sealed ? "gate" : "bound");
    cp_run_report_stage("engine");
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    json_object_object_get_ex(o, key, &v);
    return v;
}

static json_object *copy(json_object *o, const char *key)
{
    json_object *v = get(o, key);
    return v ? json_object_get(v) : NULL;
}

/* The variables' names only: a sealed box's proxy variables carry its credential. */
static json_object *env_names(json_object *env)
{
    json_object *names = json_object_new_array();
    for (size_t i = 0;
         json_object_is_type(env, json_type_array) && i < json_object_array_length(env); i++) {
        const char *kv = json_object_get_string(json_object_array_get_idx(env, i));
        size_t n = kv ? strcspn(kv, "=") : 0;
        if (n > 0)
            json_object_array_add(names, json_object_new_string_len(kv, (int)n));
    }
    return names;
}

static json_object *mounts_of(json_object *list)
{
    json_object *out = json_object_new_array();
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *m = json_object_array_get_idx(list, i), *rw = get(m, "RW");
        json_object *e = json_object_new_object();
        json_object_object_add(e, "target", copy(m, "Destination"));
        json_object_object_add(e, "type", copy(m, "Type"));
        json_object_object_add(e, "read_only",
                               json_object_new_boolean(!json_object_get_boolean(rw)));
        json_object_array_add(out, e);
    }
    return out;
}

static json_object *tmpfs_of(json_object *t)
{
    json_object *out = json_object_new_array();
    if (json_object_is_type(t, json_type_object)) {
        json_object_object_foreach (t, target, opts) {
            json_object *e = json_object_new_object();
            json_object_object_add(e, "target", json_object_new_string(target));
            json_object_object_add(e, "options", json_object_get(opts));
            json_object_array_add(out, e);
        }
    }
    return out;
}

static bool has_string(json_object *arr, const char *s)
{
    for (size_t i = 0;
         json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr); i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s) == 0)
            return true;
    return false;
}

/* The networks the box is on, by name (Podman's NetworkMode says "bridge" for any of them). */
static json_object *networks_of(json_object *nets)
{
    json_object *out = json_object_new_array();
    if (json_object_is_type(nets, json_type_object)) {
        json_object_object_foreach (nets, name, v) {
            (void)v;
            json_object_array_add(out, json_object_new_string(name));
        }
    }
    return out;
}

/* The seal as the engine applied it, from GET /containers/ID/json; a box that joined its
 * folder's network holder (sidecar-hold.c) has the holder's network and resolver, read from the
 * holder's (net). */
static json_object *seal_of(json_object *box, json_object *net)
{
    json_object *h = get(box, "HostConfig"), *c = get(box, "Config");
    json_object *s = json_object_new_object();
    json_object_object_add(s, "networks",
                           networks_of(get(get(net, "NetworkSettings"), "Networks")));
    json_object_object_add(s, "network_holder", net != box ? copy(net, "Id") : NULL);
    json_object_object_add(s, "dns", copy(get(net, "HostConfig"), "Dns"));
    /* Read back, not written: the one writer of a create body's CapDrop is create-body.c. */
    json_object *cap_drop = copy(h, "CapDrop");
    json_object_object_add(s, "cap_drop", cap_drop);
    json_object_object_add(s, "cap_add", copy(h, "CapAdd"));
    json_object_object_add(
        s, "no_new_privileges",
        json_object_new_boolean(has_string(get(h, "SecurityOpt"), "no-new-privileges") ||
                                has_string(get(h, "SecurityOpt"), "no-new-privileges:true")));
    json_object_object_add(s, "read_only_root", copy(h, "ReadonlyRootfs"));
    json_object_object_add(s, "user", copy(c, "User"));
    json_object_object_add(s, "userns", copy(h, "UsernsMode"));
    json_object_object_add(s, "init", copy(h, "Init"));
    json_object_object_add(s, "pids_limit", copy(h, "PidsLimit"));
    json_object_object_add(s, "memory", copy(h, "Memory"));
    json_object_object_add(s, "nano_cpus", copy(h, "NanoCpus"));
    json_object_object_add(s, "env", env_names(get(c, "Env")));
    json_object_object_add(s, "tmpfs", tmpfs_of(get(h, "Tmpfs")));
    json_object_object_add(s, "mounts", mounts_of(get(box, "Mounts")));
    return s;
}

void cp_container_report_box(struct cp_engine *e, const char *id, const char *holder_id,
                             const char *limits_missing)
{
    cp_run_report_stage("box");
    if (!cp_run_report_on())
        return;
    cp_run_report_set("box", id);
    cleanup_free char *path = xasprintf("/containers/%s/json", id);
    cleanup_json json_object *box = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &box, &err) < 0) {
        cp_debug("run report: %s", err->msg);
        return;
    }
    /* A box in its folder's holder's namespace is on the holder's networks. Podman's network
     * mode names the namespace's file, not the holder: the run knows which it joined. */
    const char *mode = cp_json_str(get(box, "HostConfig"), "NetworkMode");
    cleanup_json json_object *holder = NULL;
    if (mode != NULL && strncmp(mode, "container:", 10) == 0)
        holder_id = mode + 10;
    else if (mode == NULL || strncmp(mode, "ns:", 3) != 0)
        holder_id = NULL;
    if (holder_id != NULL) {
        cleanup_free char *hpath = xasprintf("/containers/%s/json", holder_id);
        if (cp_engine_call(e, "GET", hpath, NULL, &holder, &err) < 0)
            cp_debug("run report: the network holder: %s", err->msg);
    }
    json_object *seal = seal_of(box, holder != NULL ? holder : box);
    json_object_object_add(seal, "limits_missing",
                           limits_missing ? json_object_new_string(limits_missing) : NULL);
    cp_run_report_take("seal", seal);
}

static bool signed_in(json_object *o)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, "signed_in", &v) && json_object_get_boolean(v);
}

/* The refusals for box in the sidecar's log, and the sign-ins it added (host and header). */
static size_t take_refusals(const char *text, size_t len, const char *box)
{
    size_t found = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        cleanup_json json_object *o = cp_egress_log_object(text + start, end - start);
        const char *b = cp_json_str(o, "box"), *verdict = cp_json_str(o, "verdict");
        const char *host = cp_json_str(o, "host");
        if (b != NULL && strcmp(b, box) == 0 && verdict != NULL && host != NULL &&
            strcmp(verdict, "allowed") == 0 && signed_in(o)) {
            const char *header = cp_json_str(o, "header");
            cp_run_report_sign_in(host, header != NULL ? header : "Authorization");
        }
        if (b != NULL && strcmp(b, box) == 0 && verdict != NULL &&
            strcmp(verdict, "refused") == 0 && host != NULL) {
            cp_run_report_refused_host(host, (unsigned)cp_json_int(o, "port", 0),
                                       cp_json_str(o, "reason"), cp_json_str(o, "method"),
                                       cp_json_str(o, "path"));
            found++;
        }
        start = end + 1;
    }
    return found;
}

static int read_refusals(struct cp_engine *e, const struct cp_seal *seal, size_t *found,
                         cp_error_t *err)
{
    cleanup_free char *url = xasprintf("http://localhost/v%s/containers/%s/logs?stdout=1&stderr=1"
                                       "&since=%lld",
                                       e->version, seal->sidecar.id, (long long)seal->since);
    struct cp_http_req req = {
        .method = "GET", .url = url, .unix_socket = e->socket, .max_body = LOG_MAX};
    cleanup_http_resp struct cp_http_resp resp = {0};
    if (cp_http_perform(&e->curl, &req, &resp, err) < 0)
        return cp_error_wrap(err, "reading the sidecar's log");
    if (resp.status != 200)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the sidecar's log: HTTP %ld", resp.status);
    *found = take_refusals(resp.body.data ? resp.body.data : "", resp.body.len, seal->box);
    return 0;
}

static json_object *allowlist_of(const struct cp_seal *seal)
{
    char hash[65];
    cp_allowlist_hash(&seal->list, "", hash);
    json_object *a = json_object_new_object();
    json_object_object_add(a, "hash", json_object_new_string(hash));
    json_object_object_add(a, "allow_all", json_object_new_boolean(seal->list.allow_all));
    json_object *hosts = json_object_new_array();
    for (size_t i = 0; i < seal->list.nallowed; i++)
        json_object_array_add(hosts, json_object_new_string(seal->list.allowed[i].host));
    json_object_object_add(a, "hosts", hosts);
    json_object_object_add(a, "sidecar",
                           seal->sidecar.name ? json_object_new_string(seal->sidecar.name) : NULL);
    return a;
}

void cp_container_report_seal(struct cp_engine *e, const struct cp_seal *seal, int status)
{
    if (!cp_run_report_on() || seal->sidecar.id == NULL)
        return;
    cp_run_report_take("allowlist", allowlist_of(seal));
    /* The engine's log copier may be a moment behind the proxy's write; a failed command is
     * the one worth waiting for. */
    for (int tries = 0; tries < (status != 0 ? 3 : 1); tries++) {
        size_t found = 0;
        cleanup_error cp_error_t err = NULL;
        if (read_refusals(e, seal, &found, &err) < 0) {
            cp_debug("run report: %s", err->msg);
            return;
        }
        if (found > 0)
            return;
        if (tries + 1 < (status != 0 ? 3 : 1))
            usleep(150 * 1000);
    }
}
