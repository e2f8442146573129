/* The cloud place: the chat's Daytona sandbox, the work folder mirrored there and back, the
 * command run through a session so its output arrives apart and as it is produced. The run's
 * steps are the shared remote run's (mirror/remote-run.h); this file gives its cloud ops:
 * connect (API, sandbox, toolbox) and exec. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mirror/mirror.h"
#include "places/cloud/cloud_stdin.h"
#include "places/cloud/daytona.h"
#include "places/cloud/sandbox-home.h"
#include "places/cloud/sandbox.h"
#include "places/cloud/toolbox.h"
#include "places/cloud/transport-daytona.h"
#include "places/place.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/secrets.h"
#include "src/base/shell.h"
#include "src/base/signals.h"
#include "src/base/util.h"
#include "src/base/report.h"

#define OUTPUT_MAX (64 * 1024 * 1024)

struct cloud_state {
    const struct cp_run_request *req;
    struct cp_daytona *d;
    struct cp_sandbox sb;
    struct cp_toolbox tb;
    char *far_root; /* the sandbox's conch folder: the copy is its work/, the lock its lock */
    char *copy, *lock, *where;
    char *manifest;
    char *place_id; /* the sandbox the copy lives in */
    struct cp_transport *transport;
};

static void state_free(struct cloud_state *s)
{
    if (s == NULL)
        return;
    cp_transport_free(s->transport);
    cp_toolbox_dispose(&s->tb);
    cp_daytona_free(s->d);
    free(s->far_root);
    free(s->copy);
    free(s->lock);
    free(s->where);
    free(s->manifest);
    free(s->place_id);
    free(s);
}

static void cleanup_statep(struct cloud_state **s)
{
    state_free(*s);
}

/* The key, then the client that trusts the API's host and the toolbox host it names. */
static int connect_api(const struct cp_config *cfg, struct cp_daytona **out, cp_error_t *err)
{
    cleanup_secret char *key = NULL;
    const char *source = NULL;
    if (cp_secrets_daytona_key(&key, &source, err) < 0)
        return cp_error_code(err);
    if (cp_daytona_open(cfg, key, out, err) < 0 || cp_daytona_discover(*out, err) < 0)
        return cp_error_code(err);
    return 0;
}

/* The chat's sandbox, found or made, started. */
static int find_sandbox(struct cp_daytona *d, const char *chat, struct cp_sandbox *sb,
                        cp_error_t *err)
{
    bool found = false;
    if (cp_sandbox_scan(d, chat, sb, &found, NULL, err) < 0)
        return cp_error_code(err);
    if (!found && cp_sandbox_create(d, chat, sb, err) < 0)
        return cp_error_code(err);
    int r = cp_sandbox_ensure_started(d, sb, err);
    if (r == CP_ERR_NOT_FOUND) { /* being removed as we came: make a new one */
        cp_error_free(err);
        if (cp_sandbox_create(d, chat, sb, err) < 0 || cp_sandbox_ensure_started(d, sb, err) < 0)
            return cp_error_code(err);
        return 0;
    }
    return r;
}

/* The API, the chat's sandbox and its toolbox, after the lock here. The sandbox's id is the
 * copy's place: a sandbox made anew (removed after 30 days unused) is another place, its copy
 * sent whole, nothing deleted. */
static int cloud_connect(void *place, int stop_fd, struct cp_far_link *out, cp_error_t *err)
{
    (void)stop_fd; /* every wait here polls this process's signals */
    struct cloud_state *s = place;
    cleanup_free char *home = NULL;
    if (connect_api(s->req->config, &s->d, err) < 0 ||
        find_sandbox(s->d, s->req->chat, &s->sb, err) < 0 ||
        cp_toolbox_open(s->d, &s->sb, &s->tb, err) < 0 ||
        cp_sandbox_home(&s->tb, s->sb.id, &home, err) < 0)
        return cp_error_code(err);
    cp_run_report_remote("sandbox", s->sb.id, "connect");
    s->far_root = xasprintf("%s/conch", home);
    s->copy = xasprintf("%s/work", s->far_root);
    s->lock = xasprintf("%s/lock", s->far_root);
    s->where = xasprintf("sandbox %s", s->sb.id);
    s->place_id = xasprintf("cloud sandbox %s", s->sb.id);
    cleanup_free char *io = xasprintf("%s/.conch-io", s->far_root);
    if (cp_transport_daytona_new(&s->tb, io, &s->transport, err) < 0)
        return cp_error_code(err);
    *out = (struct cp_far_link){.transport = s->transport,
                                .far_root = s->copy,
                                .far_lock = s->lock,
                                .place_id = s->place_id,
                                .where = s->where};
    return 0;
}

/* `cd ROOT && exec ARGV...` in a shell of its own: 126 and 127 as a shell gives them. */
static char *command_text(const char *root, char *const *argv)
{
    cleanup_free char *qroot = cp_shell_quoted(root);
    cleanup_free char *head = xasprintf("cd %s && exec ", qroot);
    cleanup_buf struct cp_buf inner;
    cp_buf_init(&inner, SIZE_MAX / 2); /* bounded by argv, which is in memory already */
    if (cp_buf_append(&inner, head, strlen(head)) < 0 ||
        cp_shell_quote_argv(&inner, (const char *const *)argv) < 0)
        abort(); /* unreachable: the bound is the memory's */
    return cp_shell_command("sh", inner.data, NULL, NULL);
}

/* Writes what arrived since the last poll. */
static void pass_on(int fd, const struct cp_buf *b, size_t *done)
{
    if (b->len > *done && cp_write_all(fd, b->data + *done, b->len - *done) == 0)
        *done = b->len;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

struct follow {
    struct cp_buf out, errb;
    size_t out_done, err_done;
};

static int poll_logs(struct cloud_state *s, const char *sid, const char *cid, struct follow *f,
                     cp_error_t *err)
{
    if (cp_toolbox_command_logs(&s->tb, sid, cid, &f->out, &f->errb, err) < 0)
        return cp_error_code(err);
    pass_on(STDOUT_FILENO, &f->out, &f->out_done);
    pass_on(STDERR_FILENO, &f->errb, &f->err_done);
    return 0;
}

/* Polls the command and its logs until it ends; a command may outlast any one request. */
static int follow_command(struct cloud_state *s, const struct cp_far_exec *x, const char *sid,
                          const char *cid, int *status_out, cp_error_t *err)
{
    struct follow f = {0};
    cp_buf_init(&f.out, OUTPUT_MAX);
    cp_buf_init(&f.errb, OUTPUT_MAX);
    long pause = 50;
    bool done = false;
    int rc = 0;
    time_t renewed = time(NULL);
    cp_signals_install();
    while (!done && rc == 0) {
        if (time(NULL) - renewed >= 30) { /* the copy's lease outlives a long command */
            renewed = time(NULL);
            rc = cp_far_lock_renew(x->lock, err);
            if (rc < 0)
                break;
        }
        if (cp_signals_caught() != 0) {
            rc = CP_ERR_INTERRUPTED;
            break;
        }
        rc = cp_toolbox_command_status(&s->tb, sid, cid, &done, status_out, err);
        if (rc == 0)
            rc = poll_logs(s, sid, cid, &f, err);
        if (!done && rc == 0)
            sleep_ms(pause);
        pause = pause * 2 > 500 ? 500 : pause * 2;
    }
    cp_buf_dispose(&f.out);
    cp_buf_dispose(&f.errb);
    return rc;
}

/* The command in a session of its own; deleting the session ends it if still running (a
 * stop). With -i, its streams go through chunk files. */
static int cloud_exec(void *place, const struct cp_far_exec *x, int *status_out, cp_error_t *err)
{
    struct cloud_state *s = place;
    cleanup_free char *cmd = command_text(x->far_root, x->argv);
    cleanup_free char *sid = xasprintf("conch-%ld-%ld", (long)getpid(), (long)time(NULL));
    cleanup_free char *cid = NULL;
    cleanup_free char *io = xasprintf("%s/.conch-io/%s", s->far_root, sid);
    if (cp_toolbox_session_create(&s->tb, sid, err) < 0 ||
        (!x->interactive && cp_toolbox_session_exec(&s->tb, sid, cmd, &cid, err) < 0))
        return cp_error_wrap(err, "starting the command in sandbox %s", s->sb.id);
    int r = x->interactive ? cp_cloud_run_streamed(&s->tb, sid, io, x, STDIN_FILENO, STDOUT_FILENO,
                                                   STDERR_FILENO, status_out, err)
                           : follow_command(s, x, sid, cid, status_out, err);
    cleanup_error cp_error_t derr = NULL;
    cp_toolbox_session_delete(&s->tb, sid, &derr);
    if (x->interactive) { /* the chunks left there: the input not taken, the output not sent */
        cleanup_free char *qio = cp_shell_quoted(io);
        cleanup_free char *rm = xasprintf("rm -rf %s", qio);
        int st = 0;
        cp_toolbox_execute(&s->tb, rm, 60, &st, NULL, &derr);
    }
    return r;
}

static const struct cp_far_place_ops cloud_far_ops = {
    .connect = cloud_connect,
    .exec = cloud_exec,
};

/* Nothing is reached yet: the run (mirror/remote-run.h) connects after the lock here. */
static int cloud_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err)
{
    __attribute__((cleanup(cleanup_statep))) struct cloud_state *s = xcalloc(1, sizeof(*s));
    cp_signals_install(); /* a signal from here on ends the run with 128+n, the lease freed */
    s->req = req;
    if (cp_manifest_path("cloud", req->chat, 1, &s->manifest, err) < 0)
        return cp_error_code(err);
    *state_out = steal_pointer(&s);
    return 0;
}

/* The mirror's lines are conch-place's own words, as at ssh: no "mirror: " before them. */
static void say_line(void *ctx, const char *line)
{
    cp_say("%s", line);
}

static int cloud_run(void *state, const struct cp_run_request *req, int *status_out,
                     cp_error_t *err)
{
    struct cloud_state *s = state;
    s->req = req;
    const struct cp_remote_args a = {.place = "cloud",
                                     .workdir = req->workdir,
                                     .manifest_path = s->manifest,
                                     .argv = req->argv,
                                     .interactive = req->interactive,
                                     .stop_fd = -1,
                                     .say = say_line,
                                     .config = req->config};
    return cp_remote_run(&cloud_far_ops, s, &a, status_out, err);
}

static void cloud_release(void *state)
{
    state_free(state);
}

static int cloud_describe(const struct cp_config *cfg, json_object *places, cp_error_t *err)
{
    (void)cfg;
    (void)err;
    json_object *o = json_object_new_object();
    cleanup_secret char *key = NULL;
    const char *source = NULL;
    cleanup_error cp_error_t kerr = NULL;
    json_object_object_add(o, "place", json_object_new_string("cloud"));
    bool ready = cp_secrets_daytona_key(&key, &source, &kerr) == 0;
    json_object_object_add(o, "ready", json_object_new_boolean(ready));
    if (!ready)
        json_object_object_add(o, "next",
                               json_object_new_string(kerr->hint ? kerr->hint : kerr->msg));
    else
        json_object_object_add(o, "key", json_object_new_string(source));
    json_object_array_add(places, o);
    return 0;
}

/* The chat run gives a folder without --chat; the same hash (see cmd-run.c). */
static char *folder_chat(void)
{
    cleanup_free char *cwd = getcwd(NULL, 0);
    cleanup_free char *real = cwd ? realpath(cwd, NULL) : NULL;
    return cp_folder_key(real ? real : "");
}

static int check_sandbox(struct cp_daytona *d, cp_error_t *err)
{
    cleanup_free char *chat = folder_chat();
    struct cp_sandbox sb;
    bool found = false;
    if (cp_sandbox_scan(d, chat, &sb, &found, NULL, err) < 0)
        return cp_error_code(err);
    printf("key: accepted by %s: ok\n", d->api);
    if (!found) {
        printf("sandbox: none yet for this folder (the first run makes one): ok\n");
        return 0;
    }
    printf("sandbox: %s, %s\n", sb.id, sb.state);
    if (strcmp(sb.state, "started") != 0)
        return 0; /* a run starts it; the toolbox answers only when it is started */
    cleanup_toolbox struct cp_toolbox tb = {0};
    cleanup_free char *version = NULL;
    if (cp_toolbox_open(d, &sb, &tb, err) < 0 || cp_toolbox_version(&tb, &version, err) < 0)
        return cp_error_wrap(err, "the sandbox's toolbox");
    printf("toolbox: %s answers (version %s): ok\n", tb.base, version);
    return 0;
}

static int cloud_check(const char *place, const struct cp_config *cfg, cp_error_t *err)
{
    (void)place;
    cleanup_daytona struct cp_daytona *d = NULL;
    cleanup_secret char *key = NULL;
    const char *source = NULL;
    if (cp_secrets_daytona_key(&key, &source, err) < 0)
        return cp_error_code(err);
    printf("key: from %s\n", source);
    if (cp_daytona_open(cfg, key, &d, err) < 0 || cp_daytona_discover(d, err) < 0) {
        cp_error_hint(err, "Check the network, or cloud.api_url and cloud.ca_file.");
        return cp_error_code(err);
    }
    printf("API: %s, toolbox at %s: ok\n", d->api, d->toolbox_origin);
    return check_sandbox(d, err);
}

static int cloud_clean(const struct cp_config *cfg, cp_error_t *err)
{
    cleanup_daytona struct cp_daytona *d = NULL;
    cleanup_secret char *key = NULL;
    const char *source = NULL;
    size_t removed = 0;
    if (cp_secrets_daytona_key(&key, &source, err) < 0) {
        if (cp_error_code(err) != CP_ERR_NOT_FOUND)
            return cp_error_code(err);
        cp_error_free(err); /* no key: nothing of ours can be there */
        return 0;
    }
    if (cp_daytona_open(cfg, key, &d, err) < 0 ||
        cp_sandbox_scan(d, NULL, NULL, &(bool){false}, &removed, err) < 0)
        return cp_error_wrap(err, "cleaning Daytona sandboxes");
    if (removed > 0)
        cp_say("removed %zu Daytona sandbox%s unused for %d days", removed,
               removed == 1 ? "" : "es", CP_CLOUD_UNUSED_DAYS);
    return 0;
}

const struct cp_place_ops cp_place_cloud = {
    .name = "cloud",
    .is_prefix = false,
    .prepare = cloud_prepare,
    .run = cloud_run,
    .release = cloud_release,
    .check = cloud_check,
    .describe = cloud_describe,
    .clean = cloud_clean,
};
