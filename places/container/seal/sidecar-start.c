/* A folder's sidecar started through the engine's API: found running, or made, joined to its
 * internal network and started, by one run at a time under a lock, and given its keys
 * (sidecar-keys.c) when it may not have them; a sidecar made now must answer a probe box on
 * its network before any box relies on it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "places/container/engine/engine.h"
#include "places/container/box/box.h"
#include "places/container/seal/egress-image.h"
#include "places/container/seal/seal-probe.h"
#include "places/container/seal/sidecar-names.h"
#include "places/container/seal/sidecar-network.h"
#include "places/container/seal/sidecar.h"
#include "egress/egress.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define ENSURE_TRIES 4

void cp_sidecar_dispose(struct cp_sidecar *s)
{
    free(s->name);
    free(s->id);
    free(s->ip);
    free(s->holder);
    free(s->join);
    free(s->pid_mode);
    cp_free_secret(s->secret);
    if (s->use_held)
        close(s->use_fd);
    memset(s, 0, sizeof(*s));
}

/* The engine keeps a box's environment, argv and labels in its config, which `inspect` shows to
 * anyone who may use the engine and which it writes to its state on disk: the sidecar's keys
 * (CA, secret, upstream proxy) come after its start, by the sign-ins' way (sidecar-keys.c),
 * and its environment holds egress.ca_file's certificates alone, which are no secret. */
static json_object *sidecar_env(const struct cp_sidecar_trust *trust)
{
    json_object *env = json_object_new_array();
    if (trust->extra != NULL) {
        cleanup_free char *kv = xasprintf("%s=%s", CP_EGRESS_TRUST_ENV, trust->extra);
        json_object_array_add(env, json_object_new_string(kv));
    }
    return env;
}

/* On Docker the decisions are read back through the log API: keep it bounded. */
static json_object *bounded_log(void)
{
    json_object *log = json_object_new_object(), *cfg = json_object_new_object();
    json_object_object_add(cfg, "max-size", json_object_new_string("10m"));
    json_object_object_add(cfg, "max-file", json_object_new_string("2"));
    json_object_object_add(log, "Type", json_object_new_string("json-file"));
    json_object_object_add(log, "Config", cfg);
    return log;
}

/* The seal's body (create-body.c) with the sidecar's own rows: the image's entrypoint, nobody's
 * uid, its log kept for its decisions, and the engine's default network, its own way out and
 * its resolver (the internal network is joined after the create). */
static json_object *sidecar_body(const struct cp_engine *e, const struct cp_sidecar_names *n,
                                 const char *image, char **args,
                                 const struct cp_sidecar_trust *trust)
{
    struct cp_sealed_body_opts o = {
        .image = image,
        .cmd = args,
        .env = sidecar_env(trust),
        .user = "65534:65534",
        .labels = cp_sidecar_labels(n),
        /* A tunnel whose TLS the sidecar ends has a thread of its own: room for every
         * connection it takes, and the memory of their TLS (two TLS objects and their buffers
         * each). */
        .pids = CP_SIDECAR_CONNECTIONS + 64,
        .memory = 512LL * 1024 * 1024,
        .cpus = cp_sealed_cpus(),
        .auto_remove = true,
        .keep_log = true,
        .network = "bridge",
        .tmpfs_copies_up = e->quirks.tmpfs_copies_up,
    };
    json_object *c = cp_sealed_create_body(&o);
    if (!e->quirks.own_log_driver)
        json_object_object_add(cp_sealed_host_config(c), "LogConfig", bounded_log());
    /* Standard input stays open for the sidecar's life: each run's sign-ins come that way. */
    json_object_object_add(c, "OpenStdin", json_object_new_boolean(1));
    json_object_object_add(c, "StdinOnce", json_object_new_boolean(0));
    return c;
}

static int connect_and_start(struct cp_engine *e, const char *name, const char *id, cp_error_t *err)
{
    cleanup_json json_object *body = json_object_new_object();
    json_object_object_add(body, "Container", json_object_new_string(id));
    cleanup_free char *path = xasprintf("/networks/%s/connect", name);
    if (cp_engine_call(e, "POST", path, body, NULL, err) < 0)
        return cp_error_wrap(err, "joining the sidecar to %s", name);
    if (cp_box_start(e, id, err) < 0)
        return cp_error_wrap(err, "starting the sidecar");
    return 0;
}

/* 0 made (or another run made it first: look again), or an error. */
static int create_sidecar(struct cp_engine *e, const struct cp_sidecar_names *n, const char *image,
                          char **args, const struct cp_sidecar_trust *trust, cp_error_t *err)
{
    cleanup_json json_object *body = sidecar_body(e, n, image, args, trust);
    cleanup_free char *idc = NULL;
    int made = cp_box_create_once(e, body, n->name, "the sidecar", &idc, err);
    if (made <= 0)
        return made;
    if (connect_and_start(e, n->name, idc, err) < 0) {
        cleanup_error cp_error_t rm = NULL;
        cp_box_remove(e, idc, &rm);
        return cp_error_code(err);
    }
    return 0;
}

/* How a holder joins the sidecar's PID namespace (sidecar-hold.c's opening). Podman's is by its
 * first process's number, which must be the sidecar's own (its cgroup names it). */
static char *pid_mode(const struct cp_engine *e, json_object *c)
{
    if (!e->quirks.joins_by_ns_path)
        return xasprintf("container:%s", cp_json_str(c, "Id"));
    json_object *state = NULL;
    json_object_object_get_ex(c, "State", &state);
    cleanup_close int pidfd = cp_box_pidfd_of(c);
    if (pidfd < 0)
        return NULL;
    return xasprintf("ns:/proc/%lld/ns/pid", (long long)cp_json_int(state, "Pid", 0));
}

/* Fills out from a running sidecar: 1 when it runs and is usable (*started_out: when it
 * started), 0 when absent (a stopped one is removed first), or an error. */
static int find_running(struct cp_engine *e, const char *name, struct cp_sidecar *out,
                        char **started_out, cp_error_t *err)
{
    cleanup_json json_object *c = NULL;
    int r = cp_box_inspect_ours(e, name, CP_SIDECAR_LABEL, &c, err);
    if (r <= 0)
        return r;
    json_object *state = NULL, *ns = NULL, *nets = NULL, *net = NULL, *running = NULL;
    json_object_object_get_ex(c, "State", &state);
    json_object_object_get_ex(state, "Running", &running);
    json_object_object_get_ex(c, "NetworkSettings", &ns);
    json_object_object_get_ex(ns, "Networks", &nets);
    json_object_object_get_ex(nets, name, &net);
    const char *id = cp_json_str(c, "Id"), *ip = cp_json_str(net, "IPAddress");
    if (!json_object_get_boolean(running) || ip == NULL || ip[0] == '\0') {
        cp_debug("replacing the sidecar %s, which is not running", name);
        cp_sidecar_holder_remove(e, name);
        cp_sidecar_keys_forget(id);
        if (cp_box_remove(e, id, err) < 0)
            return cp_error_code(err);
        return 0;
    }
    out->name = xstrdup(name);
    out->id = xstrdup(id);
    out->pid_mode = pid_mode(e, c);
    out->ip = xstrdup(ip);
    const char *started = cp_json_str(state, "StartedAt");
    *started_out = started != NULL ? xstrdup(started) : NULL;
    return 1;
}

/* The keys (sidecar-keys.c) into a running sidecar that may not have them; one that does not
 * take them is removed, so that the next run makes another. */
static int give_keys(struct cp_engine *e, struct cp_sidecar *s, const char *started,
                     const struct cp_sidecar_trust *trust, cp_error_t *err)
{
    if (cp_sidecar_keys_give(e, s, started, trust, err) == 0)
        return 0;
    cleanup_error cp_error_t rm = NULL;
    cp_sidecar_holder_remove(e, s->name);
    cp_sidecar_keys_forget(s->id);
    (void)cp_box_remove(e, s->id, &rm);
    cp_sidecar_dispose(s);
    return cp_error_code(err);
}

/* A sidecar this run made is probed from its network before any box relies on it; one that
 * cannot be reached is removed, so that the next run probes again. */
static int probe_new(struct cp_engine *e, const char *image, struct cp_sidecar *s, cp_error_t *err)
{
    if (cp_seal_probe_sidecar(e, image, s->name, s->ip, err) == 0)
        return 0;
    cleanup_error cp_error_t rm = NULL;
    (void)cp_box_remove(e, s->id, &rm);
    cp_sidecar_dispose(s);
    return cp_error_code(err);
}

/* The folder's boxes join a holder's namespace (sidecar-hold.c). One that cannot be made costs
 * the speed, not the run: the boxes join the network itself. Not on rootless Podman, whose
 * network namespaces live in a namespace of its own that a box cannot join by path (measured:
 * every sealed box failed to start). Root's engine is taken as rooted, as for the box's user
 * (place-container-prepare.c): Podman's info, which says, took ~1.1 s. */
static bool netns_unjoinable(struct cp_engine *e)
{
    bool rootless = false;
    cleanup_error cp_error_t err = NULL;
    return e->quirks.rootless_netns_apart && geteuid() != 0 &&
           (cp_engine_rootless(e, &rootless, &err) < 0 || rootless);
}

static int hold(struct cp_engine *e, const char *image, const struct cp_sidecar_names *n,
                struct cp_sidecar *s, cp_error_t *err)
{
    if (!cp_sidecar_hold_wanted() || s->pid_mode == NULL || netns_unjoinable(e))
        return 0;
    cleanup_error cp_error_t herr = NULL;
    if (cp_sidecar_hold(e, image, n, s, &herr) < 0) {
        if (herr->code == CP_ERR_UNSAFE) {
            *err = steal_pointer(&herr);
            return cp_error_code(err);
        }
        cp_debug("no network holder: %s", herr->msg);
    }
    return 0;
}

/* What the steps below read first, asked for at once under the folder's lock: each takes
 * 1-12 ms of the engine (Podman), ~25 ms one after another. Where a step changes something,
 * the rest is asked again (engine.h). */
static void ask_ahead(struct cp_engine *e, const char *image, const char *name)
{
    cleanup_free char *esc = cp_engine_escape(image);
    cleanup_free char *img = xasprintf("/images/%s/json", esc);
    cleanup_free char *box = xasprintf("/containers/%s/json", name);
    cleanup_free char *holder_name = cp_sidecar_holder_name(name);
    cleanup_free char *holder = xasprintf("/containers/%s/json", holder_name);
    cleanup_free char *net = e->quirks.libpod_routes ? xasprintf("/libpod/networks/%s/json", name)
                                                     : xasprintf("/networks/%s", name);
    cp_engine_prefetch(e, img, false);
    cp_engine_prefetch(e, net, e->quirks.libpod_routes);
    cp_engine_prefetch(e, box, false);
    if (cp_sidecar_hold_wanted() && !netns_unjoinable(e))
        cp_engine_prefetch(e, holder, false);
}

static void cleanup_ahead(struct cp_engine **e)
{
    cp_engine_prefetch_drop(*e);
}

int cp_sidecar_ensure(struct cp_engine *e, const struct cp_allowlist *list, const char *workdir,
                      const struct cp_sidecar_trust *trust, struct cp_sidecar *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    /* Not read: its cleanup drops what was asked ahead and not taken. */
    __attribute__((cleanup(cleanup_ahead), unused)) struct cp_engine *ahead = e;
    cleanup_free char *image = NULL;
    cleanup_sidecar_names struct cp_sidecar_names n = {0};
    /* The image's name is known here without the engine: the names, the lock, then the
     * engine's answers all at once. */
    if (cp_egress_image_name(&image, err) < 0)
        return cp_error_wrap(err, "the egress sidecar");
    cp_sidecar_names_make(list, image, trust, workdir, &n);
    out->use_fd = cp_sidecar_use_lock(n.name, LOCK_SH);
    out->use_held = out->use_fd >= 0;
    cleanup_close int lock = cp_sidecar_lock(n.name, err);
    if (lock < 0)
        return cp_error_code(err);
    ask_ahead(e, image, n.name);
    free(image);
    image = NULL;
    if (cp_egress_image_ensure(e, &image, err) < 0)
        return cp_error_wrap(err, "the egress sidecar");
    if (cp_sidecar_network_ensure(e, &n, err) < 0)
        return cp_error_code(err);
    bool made = false;
    for (int tries = 0; tries < ENSURE_TRIES; tries++) {
        cleanup_free char *started = NULL;
        int r = find_running(e, n.name, out, &started, err);
        if (r < 0)
            return cp_error_wrap(err, "the egress sidecar");
        if (r > 0 && give_keys(e, out, started, trust, err) < 0)
            return cp_error_wrap(err, "the egress sidecar");
        if (r > 0 && made && probe_new(e, image, out, err) < 0)
            return cp_error_code(err);
        if (r > 0)
            return hold(e, image, &n, out, err);
        if (create_sidecar(e, &n, image, n.args, trust, err) < 0)
            return cp_error_wrap(err, "the egress sidecar");
        made = true;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "the egress sidecar %s did not stay up", n.name);
}
