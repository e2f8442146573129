/* Running a prepared container command: a warm box made for exactly this run, else a fresh
 * one; its output streamed and its status read; its changes landed through the gate (or held);
 * the used box removed and the next warm one made, however the command ended. */
#include "config.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "places/container/warm/warm.h"
#include "places/container/box/box.h"
#include "places/container/engine/engine.h"
#include "places/container/place-container-int.h"
#include "places/container/run-report.h"
#include "src/base/log.h"
#include "src/base/report.h"
#include "src/base/signals.h"
#include "src/base/test-hold.h"
#include "src/base/util.h"

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

static int run_fresh(struct cp_container_state *s, const char *id, const struct cp_run_request *req,
                     struct cp_demux *d, int *status_out, cp_error_t *err)
{
    cleanup_close int fd = -1;
    cleanup_buf struct cp_buf early;
    cp_buf_init(&early, 1 << 20);
    __attribute__((cleanup(cp_exit_watch_dispose))) struct cp_exit_watch died = {.fd = -1};
    /* Where an exit's inspect waits for the box's network to be torn down (Docker), the die
     * event tells it sooner; Podman's needs no help. */
    if (!s->engine->quirks.exit_known_before_teardown)
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

static int run_warm(struct cp_container_state *s, const char *id, const struct cp_run_request *req,
                    struct cp_demux *d, int *status_out, cp_error_t *err)
{
    struct cp_warm_exec x = {.box = s->warm_box,
                             .argv = req->argv,
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
static int claim_layer(struct cp_container_state *s, const char *was, const char *id)
{
    if (!s->gated)
        return 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_held_load(was, &s->layer, &err) == 0 &&
        cp_held_set_state(&s->layer, "running", &err) == 0)
        return 0;
    cp_debug("warm box %s: %s", was, err->msg);
    /* It holds the run's name now, which the fresh box is made with next. */
    cleanup_error cp_error_t rm_err = NULL;
    if (cp_box_remove_gone(s->engine, id, &rm_err) < 0)
        cp_debug("warm box %s: %s", was, rm_err->msg);
    return -1;
}

/* A limit the engine did not apply stops the run: rootless Podman on cgroup v1 drops them all
 * without a word. The person may accept that (container.limits allow-missing); then every run
 * says so, and the run report shows the limits as the engine applied them. */
static int check_limits(struct cp_container_state *s, const char *id, cp_error_t *err)
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
static int get_box(struct cp_container_state *s, bool *warm_out, char **id_out, cp_error_t *err)
{
    *warm_out = false;
    if (warm_enabled()) {
        cleanup_error cp_error_t werr = NULL;
        cleanup_free char *was = NULL;
        int r = cp_warm_pool_claim(s->engine, s->warm_pool, s->warm_key, s->name, id_out, &was,
                                   &s->warm_box, &werr);
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
    if (cp_container_interrupted(err))
        return cp_error_code(err);
    if (s->gated &&
        cp_layer_make(s->engine, s->req_workdir, s->name, s->req_argv,
                      s->git.dir != NULL ? &s->git : NULL, "running", &s->layer, err) < 0)
        return cp_error_code(err);
    /* gate.test holds a run here while another CONCH_HOME's clean sweeps. */
    if (s->gated)
        cp_test_hold("CONCH_TEST_HOLD_LAYER");
    if (cp_box_create(s->engine, s->spec, s->name, id_out, err) < 0)
        return cp_error_wrap(err, "making the box");
    if (s->gated && cp_layer_check(s->engine, s->name, s->layer.git_dir != NULL, err) < 0)
        return cp_error_code(err);
    cp_debug("made");
    return check_limits(s, *id_out, err);
}

/* The box goes before we do. Without an id a create may have been cut short after the engine
 * made it: its name, chosen ahead, finds it. */
static void remove_after_failure(struct cp_container_state *s, const char *id)
{
    cp_engine_set_patience(s->engine, 0, CLEANUP_MS);
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
static void land_layer(struct cp_container_state *s, const struct cp_run_request *req)
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

int cp_container_run(void *state, const struct cp_run_request *req, int *status_out,
                     cp_error_t *err)
{
    struct cp_container_state *s = state;
    cleanup_free char *id = NULL;
    bool warm = false;
    int r = get_box(s, &warm, &id, err);
    if (r == 0) {
        cp_debug("box %.12s (%s)", id, warm ? "warm" : "fresh");
        cp_container_report_box(s->engine, id, s->seal.sidecar.holder, s->limits_missing);
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
        land_layer(s, req);
        cp_debug("landed");
        /* The used box goes, and the next one is made, while the caller moves on. */
        struct cp_warm_refill next = {.used_id = id,
                                      .used_layer = s->gated ? s->layer.id : NULL,
                                      .pool = s->warm_pool,
                                      .workdir = s->gated ? req->workdir : NULL,
                                      .git = s->gated && s->git.dir != NULL ? &s->git : NULL,
                                      .limits_may_miss = s->limits_may_miss};
        /* As many as the pool may come to want while its maker works (warm-pool.h). */
        for (int i = 0; warm_enabled() && i < CP_WARM_POOL_MAX && s->warm_specs[i] != NULL; i++)
            next.next[next.nnext++] =
                (struct cp_warm_next){.spec = s->warm_specs[i], .name = s->warm_names[i]};
        /* Runs back to back hand their box to the work behind an earlier one, which is at work
         * anyway: a process of ours started per run cost each run of the burst ~30 ms of CPU. */
        if (next.pool == NULL || !cp_warm_pool_hand_over(next.pool, id, next.used_layer))
            cp_container_behind(s->engine, &next);
        s->behind_started = true;
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
