/* The container place: one fresh sealed box per command, removed however the run ends. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box-spec.h"
#include "places/container/box.h"
#include "places/container/engine.h"
#include "places/container/exit-event.h"
#include "places/container/images.h"
#include "places/container/layer.h"
#include "places/container/leftovers.h"
#include "places/container/protect.h"
#include "places/container/registries.h"
#include "places/container/rootless.h"
#include "places/container/run-report.h"
#include "places/container/seal-probe.h"
#include "places/container/seal.h"
#include "places/container/stream.h"
#include "places/container/warm.h"
#include "places/place.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/run-report.h"
#include "src/base/signals.h"
#include "src/base/util.h"

struct container_state {
    struct cp_engine *engine;
    unsigned uid, gid;  /* the user inside the box */
    const char *userns; /* "keep-id" on rootless Podman */
    struct cp_protected prot;
    char **labels;
    char *image;
    char *image_id;
    char *empty_file;
    json_object *spec;       /* a fresh box for this command */
    char *name;              /* its name, chosen ahead: a sealed box's proxy user */
    struct cp_seal seal;     /* sealed: the allow-list, its sidecar, the proxy variables */
    char *warm_key;          /* what a warm box must have been made from to serve it */
    char *warm_name;         /* the next warm box's name, its proxy user when sealed */
    char **warm_env;         /* its proxy variables */
    json_object *warm_spec;  /* the next warm box, made after this run */
    bool gated;              /* sealed: the folder is seen through a layer the gate lands */
    bool limits_may_miss;    /* container.limits allow-missing */
    char *limits_missing;    /* ... and the limits this box went without, for the report */
    char *layer_volume;      /* this box's layer's volume */
    const char *req_workdir; /* borrowed from the request */
    char *const *req_argv;
    struct cp_held_run layer; /* its folder, once made or claimed */
};

static void state_free(struct container_state *s)
{
    if (s == NULL)
        return;
    cp_engine_free(s->engine);
    cp_protected_dispose(&s->prot);
    cp_strv_free(s->labels);
    free(s->image);
    free(s->image_id);
    free(s->empty_file);
    free(s->warm_key);
    free(s->limits_missing);
    if (s->spec != NULL)
        json_object_put(s->spec);
    if (s->warm_spec != NULL)
        json_object_put(s->warm_spec);
    free(s->name);
    free(s->warm_name);
    cp_strv_free(s->warm_env);
    cp_seal_dispose(&s->seal);
    free(s->layer_volume);
    cp_held_run_dispose(&s->layer);
    free(s);
}

static void cleanup_statep(struct container_state **s)
{
    state_free(*s);
}

/* The host file laid read-only over each protected file: empty, and ours. */
static int empty_file(char **out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (cp_workplaces_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/empty", dir);
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
        unlink(path);
        cleanup_close int fd =
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
        if (fd < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", path);
    }
    *out = steal_pointer(&path);
    return 0;
}

/* A call under way when a signal comes may finish within this, so that a box being made is
 * known by its id and removed; the clean-up then has CLEANUP_MS, all well inside 5 s. */
#define SIGNAL_GRACE_MS 1500
#define CLEANUP_MS      3000

/* Whether a signal came; if so, err says so and the caller stops. */
static bool interrupted(cp_error_t *err)
{
    if (cp_signals_caught() == 0)
        return false;
    if (*err == NULL)
        cp_error_make(err, CP_ERR_INTERRUPTED, 0, "interrupted");
    return true;
}

static const char *engine_wanted(const struct cp_run_request *req)
{
    if (req->engine != NULL)
        return req->engine;
    const char *saved = req->config ? cp_config_get(req->config, "engine") : NULL;
    return saved ? saved : "auto";
}

static long host_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 2 ? 2 : 1;
}

static void build_spec(struct container_state *s, const struct cp_run_request *req)
{
    struct cp_box_spec spec = {
        .image = s->image,
        .argv = req->argv,
        .workdir = req->workdir,
        .uid = s->uid,
        .gid = s->gid,
        .userns = s->userns,
        .sealed = req->sealed,
        .podman = strcmp(s->engine->kind, "podman") == 0,
        .interactive = req->interactive,
        .gits = s->prot.gits,
        .protected_dirs = s->prot.dirs,
        .protected_files = s->prot.files,
        .empty_file = s->empty_file,
        .settings = s->prot.settings,
        .copies = s->prot.copies,
        .network = req->sealed ? s->seal.sidecar.name : NULL,
        .no_dns = req->sealed ? s->seal.sidecar.ip : NULL,
        .env = req->sealed ? s->seal.env : NULL,
        .cpus = host_cpus(),
        .labels = s->labels,
        .layer = s->gated ? s->layer_volume : NULL,
        .ca_bundle = req->sealed ? s->seal.ca_bundle : NULL,
        .ca_paths = req->sealed ? s->seal.ca_paths : NULL,
    };
    cp_debug("network %s", spec.network != NULL ? spec.network : "(the engine's default)");
    s->spec = cp_box_spec_json(&spec);
    /* A warm box serves only while its sidecar is the one it was made to use. */
    cleanup_free char *made_from =
        xasprintf("%s %s", s->image_id, req->sealed ? s->seal.sidecar.id : "unsealed");
    s->warm_key = cp_warm_key(&spec, made_from);
    spec.env = s->warm_env;
    cleanup_free char *warm_layer = s->gated ? cp_layer_volume(s->warm_name) : NULL;
    spec.layer = warm_layer;
    /* Keyless copies are made per box and removed with this run: none is left for a warm box. */
    if (s->prot.copies == NULL)
        s->warm_spec = cp_warm_spec(&spec, s->warm_key);
}

/* The next warm box's name is chosen now: a sealed box's proxy credential names it. */
static int warm_names(struct container_state *s, const struct cp_run_request *req, cp_error_t *err)
{
    s->warm_name = cp_warm_name();
    if (!req->sealed)
        return 0;
    return cp_sidecar_box_env(&s->seal.sidecar, s->warm_name, &s->warm_env, err);
}

/* The person's uid inside the box. A rootless engine maps its root to the person: rootless
 * Podman keeps the id with keep-id; rootless Docker has only root to offer for it. */
static int choose_user(struct container_state *s, cp_error_t *err)
{
    s->uid = (unsigned)getuid();
    s->gid = (unsigned)getgid();
    bool rootless = false;
    if (geteuid() == 0 || cp_engine_rootless(s->engine, &rootless, err) < 0 || !rootless)
        return cp_error_code(err);
    if (strcmp(s->engine->kind, "podman") == 0)
        s->userns = "keep-id";
    else
        s->uid = s->gid = 0;
    return 0;
}

/* The box's HOME gets the person's registry settings without their keys: the sidecar adds
 * the sign-ins, so a sealed install reaches the person's own registry. */
static int home_copies(struct container_state *s, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_home_dir(&home, err) < 0)
        return cp_error_code(err);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    return cp_protect_home_copies(&s->prot, s->name, home, xdg && xdg[0] == '/' ? xdg : NULL, err);
}

static int container_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err)
{
    cp_debug("preparing");
    /* From here a signal is a flag that every wait looks at, never a death that leaves a box. */
    cp_signals_install();
    struct container_state *s = xcalloc(1, sizeof(*s));
    __attribute__((cleanup(cleanup_statep))) struct container_state *hold = s;
    const char *saved = req->config ? cp_config_get(req->config, "image") : NULL;
    if (cp_image_engine(engine_wanted(req), req->image, saved, &s->engine, &s->image, &s->image_id,
                        err) < 0)
        return cp_error_code(err);
    s->engine->signal_grace_ms = SIGNAL_GRACE_MS;
    if (choose_user(s, err) < 0)
        return cp_error_code(err);
    cp_container_report_engine(s->engine, s->image, s->image_id, req->sealed);
    cleanup_error cp_error_t npm_err = NULL; /* not known: left off, and `hosts` says why */
    if (req->sealed && cp_npm_default_learn(s->engine, s->image_id, &npm_err) < 0)
        cp_debug("%s", npm_err->msg);
    char **owned = NULL;
    const char *const *patterns = cp_protect_patterns(req->config, &owned);
    int r = cp_protect_scan(req->workdir, patterns, &s->prot, err);
    cp_strv_free(owned);
    if (r < 0 || empty_file(&s->empty_file, err) < 0)
        return cp_error_code(err);
    cp_debug("image %s, %zu protected places", s->image,
             cp_strv_len(s->prot.dirs) + cp_strv_len(s->prot.files));
    s->labels = cp_box_owner_labels();
    s->name = cp_box_name();
    s->gated = req->sealed;
    s->limits_may_miss = cp_config_limits_may_miss(req->config);
    s->req_workdir = req->workdir;
    s->req_argv = req->argv;
    s->layer_volume = cp_layer_volume(s->name);
    if (s->gated)
        cp_held_recover(req->workdir, req->config);
    if (cp_protect_make_copies(&s->prot, s->name, err) < 0 ||
        (req->sealed && home_copies(s, err) < 0))
        return cp_error_code(err);
    if (req->sealed && cp_seal_prepare(s->engine, req->workdir, req->config, s->name, s->image_id,
                                       &s->seal, err) < 0)
        return cp_error_code(err);
    if (req->sealed)
        cp_debug("sidecar %s at %s", s->seal.sidecar.name, s->seal.sidecar.ip);
    cp_run_report_stage("seal");
    if (warm_names(s, req, err) < 0)
        return cp_error_code(err);
    build_spec(s, req);
    if (interrupted(err))
        return cp_error_code(err);
    *state_out = steal_pointer(&hold);
    return 0;
}

/* Attach before start, so no output is produced while nobody listens. */
static int attach_and_start(struct cp_engine *e, const char *id, bool interactive, int *fd_out,
                            struct cp_buf *early, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/%s/attach?stream=1&stdin=%d&stdout=1&stderr=1"
                                        "&detachKeys=",
                                        id, interactive ? 1 : 0);
    if (cp_stream_hijack(e, "POST", path, NULL, fd_out, early, err) < 0)
        return cp_error_wrap(err, "attaching to the box");
    cp_debug("attached");
    if (cp_box_start(e, id, err) < 0) {
        /* The engine mounts the layer as the box starts: a folder on a file system an overlay
         * cannot stack on fails here. */
        if (strstr((*err)->msg, "overlay") != NULL || strstr((*err)->msg, "mount") != NULL)
            cp_error_hint(err, "The box's copy-on-write layer over the work folder could not be "
                               "mounted; --unsealed binds the folder directly, without the "
                               "landing gate.");
        return cp_error_wrap(err, "starting the box");
    }
    cp_debug("started");
    return 0;
}

/* catatonit exits 1 where tini exits 126 or 127: the init's report decides, not the status. */
static void launch_status(const struct cp_demux *d, const struct cp_run_request *req, int *status)
{
    if (d->launch_status == 0 || *status == 0)
        return;
    *status = d->launch_status;
    cp_say("%s: %s in the box", req->argv[0],
           d->launch_status == 127 ? "command not found" : "not executable");
}

static int run_fresh(struct container_state *s, const char *id, const struct cp_run_request *req,
                     struct cp_demux *d, int *status_out, cp_error_t *err)
{
    cleanup_close int fd = -1;
    cleanup_buf struct cp_buf early;
    cp_buf_init(&early, 1 << 20);
    __attribute__((cleanup(cp_exit_watch_dispose))) struct cp_exit_watch died = {.fd = -1};
    /* Docker's inspect waits for the box's network to be torn down; Podman's needs no help. */
    if (strcmp(s->engine->kind, "docker") == 0)
        cp_exit_watch_open(s->engine, id, &died);
    if (attach_and_start(s->engine, id, req->interactive, &fd, &early, err) < 0)
        return cp_error_code(err);
    int stdin_fd = req->interactive ? STDIN_FILENO : -1;
    if (cp_stream_pump(fd, d, &early, stdin_fd, cp_signals_install(), err) < 0)
        return cp_error_code(err);
    cp_debug("output ended");
    if (cp_exit_watch_read(s->engine, &died, id, status_out) == 1) {
        cp_debug("exited: the die event");
        return 0;
    }
    return cp_box_wait(s->engine, id, status_out, err);
}

static int run_warm(struct container_state *s, const char *id, const struct cp_run_request *req,
                    struct cp_demux *d, int *status_out, cp_error_t *err)
{
    struct cp_warm_exec x = {.argv = req->argv,
                             .workdir = req->workdir,
                             .uid = (unsigned)getuid(),
                             .gid = (unsigned)getgid(),
                             .interactive = req->interactive,
                             .stop_fd = cp_signals_install()};
    return cp_warm_exec(s->engine, id, &x, d, status_out, err);
}

static bool warm_enabled(void)
{
    const char *v = getenv("CONCH_PLACE_NO_WARM");
    return v == NULL || v[0] == '\0' || strcmp(v, "0") == 0;
}

/* A claimed warm box's layer becomes this run's; a box without one (made by another version)
 * is removed and not used. */
static int claim_layer(struct container_state *s, const char *was, const char *id)
{
    if (!s->gated)
        return 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_held_load(was, &s->layer, &err) == 0 &&
        cp_held_set_state(&s->layer, "running", &err) == 0)
        return 0;
    cp_debug("warm box %s: %s", was, err->msg);
    cleanup_error cp_error_t rm_err = NULL;
    (void)cp_box_remove(s->engine, id, &rm_err);
    return -1;
}

/* A limit the engine did not apply stops the run: rootless Podman on cgroup v1 drops them all
 * without a word. The person may accept that (container.limits allow-missing); then every run
 * says so, and the run report shows the limits as the engine applied them. */
static int check_limits(struct container_state *s, const char *id, cp_error_t *err)
{
    cleanup_free char *missing = NULL;
    if (cp_box_limits_missing(s->engine, id, s->spec, &missing, err) < 0)
        return cp_error_code(err);
    if (missing == NULL)
        return 0;
    cleanup_free char *why = cp_rootless_limits_step();
    if (s->limits_may_miss) {
        cp_say("this box runs without its %s limits (container.limits is allow-missing)%s%s",
               missing, why != NULL ? ": " : "", why != NULL ? why : "");
        free(s->limits_missing);
        s->limits_missing = steal_pointer(&missing);
        return 0;
    }
    cp_error_make(err, CP_ERR_FAILED, 0,
                  "the %s engine on %s did not apply the box's %s limits, so it was not run",
                  s->engine->kind, s->engine->socket, missing);
    cp_error_hint(err,
                  "%s%s. Or use an engine that limits boxes (Docker, through the docker group), "
                  "or accept boxes without limits: conch-place config set container.limits "
                  "allow-missing",
                  why != NULL ? "The step: " : "Give the engine its cgroup controllers",
                  why != NULL ? why : "");
    return cp_error_code(err);
}

/* A warm box made for exactly this run's key, else a fresh one made now. *id_out is the box. */
static int get_box(struct container_state *s, bool *warm_out, char **id_out, cp_error_t *err)
{
    *warm_out = false;
    if (warm_enabled()) {
        cleanup_error cp_error_t werr = NULL;
        cleanup_free char *was = NULL;
        int r = cp_warm_claim(s->engine, s->warm_key, s->name, id_out, &was, &werr);
        /* Where an engine may have made it without limits (rootless), they are read back. */
        if (r > 0 && s->engine->rootless && check_limits(s, *id_out, err) < 0) {
            cleanup_error cp_error_t rm = NULL;
            (void)cp_box_remove(s->engine, *id_out, &rm);
            return cp_error_code(err);
        }
        if (r > 0 && claim_layer(s, was, *id_out) == 0) {
            /* The sidecar knows the box by the name it was made with. */
            free(s->seal.box);
            s->seal.box = steal_pointer(&was);
            *warm_out = true;
            return 0;
        }
        if (r > 0) {
            free(*id_out);
            *id_out = NULL;
        }
        if (r < 0)
            cp_debug("no warm box: %s", werr->msg);
    }
    if (interrupted(err))
        return cp_error_code(err);
    if (s->gated && cp_layer_make(s->engine, s->req_workdir, s->name, s->req_argv, "running",
                                  &s->layer, err) < 0)
        return cp_error_code(err);
    if (cp_box_create(s->engine, s->spec, s->name, id_out, err) < 0)
        return cp_error_wrap(err, "making the box");
    cp_debug("made");
    return check_limits(s, *id_out, err);
}

/* The box goes before we do. Without an id a create may have been cut short after the engine
 * made it: its name, chosen ahead, finds it. */
static void remove_after_failure(struct container_state *s, const char *id)
{
    s->engine->signal_grace_ms = 0;
    s->engine->timeout_ms = CLEANUP_MS;
    cleanup_error cp_error_t rm_err = NULL;
    if (cp_box_remove(s->engine, id != NULL ? id : s->name, &rm_err) < 0)
        cp_say("%s; 'conch-place clean' removes it later", rm_err->msg);
    cp_debug("box removed");
}

/* The file system's own clock, which stamps ctimes: a change here at or after it is the
 * person's (mirror/layer.c). */
static int64_t fs_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME_COARSE, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The gate, once nothing in the box can write any more; or, with --hold, the layer kept. */
static void land_layer(struct container_state *s, const struct cp_run_request *req)
{
    if (!s->gated || s->layer.dir == NULL)
        return;
    cp_run_report_stage("command"); /* the landing's time is its own */
    cleanup_error cp_error_t err = NULL;
    if (req->hold) {
        if (cp_held_set_state(&s->layer, "held", &err) < 0)
            cp_say("%s", err->msg);
        else
            cp_say("the command's changes are held as run %s: 'conch-place changes' lists "
                   "them, 'conch-place land' lands them, 'conch-place discard' drops them",
                   s->layer.id);
    } else if (cp_held_land(&s->layer, req->config, "to take them, run again with --unsealed",
                            false, &err) < 0) {
        cp_say("%s; the changes are kept: 'conch-place land' finishes the landing", err->msg);
    }
    cp_run_report_stage("landing");
}

static void freeze_box(struct container_state *s, const char *id)
{
    cleanup_error cp_error_t perr = NULL;
    if (cp_box_pause(s->engine, id, &perr) == 0)
        return;
    cp_debug("pausing the box: %s", perr->msg);
    remove_after_failure(s, id);
}

static int container_run(void *state, const struct cp_run_request *req, int *status_out,
                         cp_error_t *err)
{
    struct container_state *s = state;
    cleanup_free char *id = NULL;
    bool warm = false;
    int r = get_box(s, &warm, &id, err);
    if (r == 0) {
        cp_debug("box %.12s (%s)", id, warm ? "warm" : "fresh");
        cp_container_report_box(s->engine, id, s->limits_missing);
        struct cp_demux d;
        cp_demux_init(&d, STDOUT_FILENO, STDERR_FILENO);
        s->layer.since_ns = fs_now_ns();
        r = warm ? run_warm(s, id, req, &d, status_out, err)
                 : run_fresh(s, id, req, &d, status_out, err);
        cp_debug("command done");
        if (r == 0)
            launch_status(&d, req, status_out);
    }
    if (r == 0) {
        if (req->sealed)
            cp_container_report_seal(s->engine, &s->seal, *status_out);
        if (req->sealed)
            cp_seal_after(s->engine, &s->seal, *status_out, req->workdir);
        /* A box woken through the exec API outlives its command, and what it left running could
         * still write: it is frozen (or, failing that, removed) before the gate reads its layer.
         * Freezing answers in a few ms where a removal waits for the box's teardown. */
        if (s->gated && warm && strcmp(s->engine->kind, "docker") == 0)
            freeze_box(s, id);
        land_layer(s, req);
        /* The used box goes, and the next one is made, while the caller moves on. */
        struct cp_warm_refill next = {.used_id = id,
                                      .used_layer = s->gated ? s->layer.id : NULL,
                                      .spec = warm_enabled() ? s->warm_spec : NULL,
                                      .name = s->warm_name,
                                      .workdir = s->gated ? req->workdir : NULL,
                                      .limits_may_miss = s->limits_may_miss};
        cp_warm_refill(s->engine, &next);
        return 0;
    }
    remove_after_failure(s, id);
    /* However the command ended, what it wrote lands (a stop's 130/143 too). */
    land_layer(s, req);
    if (s->gated && s->layer.id != NULL)
        cp_layer_drop(s->engine, s->layer.id);
    /* A signal may also surface as the failure it caused (a lock or a call cut short). */
    if (r == CP_ERR_INTERRUPTED || cp_signals_caught() != 0) {
        *status_out = 128 + cp_signals_caught();
        cp_error_free(err);
        return 0;
    }
    return r;
}

static void container_release(void *state)
{
    state_free(state);
    /* What crashed runs left, on every engine, swept once this run's output is out. */
    cp_leftovers_sweep_behind();
}

/* `clean` drops held runs nobody landed or discarded within this. */
#define HELD_MAX_AGE (7 * 24 * 3600)

static int clean_engine(const char *kind, int *found, cp_error_t *err)
{
    cleanup_engine struct cp_engine *e = NULL;
    cleanup_error cp_error_t cerr = NULL;
    if (cp_engine_connect(kind, &e, &cerr) < 0)
        return 0; /* an engine that is not there left nothing behind */
    (*found)++;
    int removed = 0;
    if (cp_leftovers_sweep(e, true, &removed, err) < 0)
        return cp_error_code(err);
    printf("%s: removed %d leftover box%s\n", e->kind, removed, removed == 1 ? "" : "es");
    int sidecars = 0;
    if (cp_sidecar_clean(e, &sidecars, err) < 0)
        return cp_error_code(err);
    printf("%s: removed %d unused egress sidecar%s and network%s\n", e->kind, sidecars,
           sidecars == 1 ? "" : "s", sidecars == 1 ? "" : "s");
    cp_layer_sweep(e);
    return 0;
}

/* Every engine that answers, not just the preferred one: a crash may have used either. */
static int container_clean(const struct cp_config *cfg, cp_error_t *err)
{
    int found = 0;
    if (clean_engine("docker", &found, err) < 0 || clean_engine("podman", &found, err) < 0)
        return cp_error_code(err);
    if (found == 0)
        printf("container: no engine answers, so no box is left\n");
    int held = 0;
    if (cp_held_clean(HELD_MAX_AGE, &held, err) < 0)
        return cp_error_code(err);
    printf("removed %d held run%s older than 7 days\n", held, held == 1 ? "" : "s");
    return 0;
}

static int container_describe(const struct cp_config *cfg, json_object *places, cp_error_t *err)
{
    json_object_array_add(places, cp_container_readiness(cfg));
    return 0;
}

/* doctor: the engine, the image, then a sealed `true` end to end, one line each. */
static int container_check(const char *place, const struct cp_config *cfg, cp_error_t *err)
{
    cleanup_free char *cwd = getcwd(NULL, 0);
    char *argv[] = {"true", NULL};
    struct cp_run_request req = {.place = place,
                                 .argv = argv,
                                 .workdir = cwd ? cwd : "/tmp",
                                 .chat = "doctor",
                                 .sealed = true,
                                 .config = cfg};
    void *state = NULL;
    cleanup_free char *step = cp_rootless_step();
    if (step != NULL) /* for a person without root: what rootless Podman still needs */
        printf("without root: FAILED\n  next: %s\n", step);
    if (container_prepare(&req, &state, err) < 0)
        return cp_error_code(err);
    struct container_state *s = state;
    cleanup_free char *engine = cp_engine_describe(s->engine);
    printf("engine: %s, API %s: ok\n", engine, s->engine->version);
    cleanup_free char *limits = s->engine->rootless ? cp_rootless_limits_step() : NULL;
    if (limits != NULL)
        printf("limits: %s\n  %s: %s\n", s->limits_may_miss ? "not applied" : "FAILED",
               s->limits_may_miss ? "why (container.limits is allow-missing)" : "next", limits);
    printf("image: %s: ok\n", s->image);
    int failed = 0; /* the seal's probes (places/container/seal-probe.c), each with its step */
    if (cp_seal_doctor(s->engine, &s->seal.sidecar, &failed, err) < 0) {
        container_release(state);
        return cp_error_code(err);
    }
    int status = -1;
    int r = container_run(state, &req, &status, err);
    container_release(state);
    if (r < 0)
        return cp_error_wrap(err, "a sealed box");
    if (status != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "a sealed `true` exited with %d", status);
    printf("sealed box: made, ran `true`, removed: ok\n");
    if (failed > 0)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "%d of the seal's probes failed (above)",
                             failed);
    return 0;
}

const struct cp_place_ops cp_place_container = {
    .name = "container",
    .seals = true,
    .prepare = container_prepare,
    .run = container_run,
    .release = container_release,
    .check = container_check,
    .describe = container_describe,
    .clean = container_clean,
};
