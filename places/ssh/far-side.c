/* The ssh:HOST place's side of the shared remote run (mirror/remote-run.h).
 *
 * On the far side, under the login's home (sshd starts commands there, so every path is
 * relative and no '~' is ever expanded):
 *   .conch-place/copies/CHAT/NAME   the copy (NAME: the work folder's own name, so tools that
 *                                   read their folder's name see the same one); its
 *                                   .conch-mirror-id names it (mirror/sync.h)
 *   .conch-place/locks/CHAT         the copy's lock: "hold PID" of the shell holding it
 *   .conch-place/locks/CHAT.pgid    the process group of the command running in the copy
 * The lock (mirror/far/lock.sh) is held by a far shell that lives exactly as long as our
 * channel to it, so a crash here, a cut connection or a killed conch-place frees it by
 * itself; its answer names and lists the copy. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mirror/mirror.h"
#include "places/ssh/config-text.h"
#include "places/ssh/exec.h"
#include "places/ssh/far-side.h"
#include "places/ssh/mirror-transport.h"
#include "places/ssh/session.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/shell.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

/* $1 pgid file, $2 the lock's done fifo or "", $3 its pushed fifo or "", $4 copy, $5 "i" to
 * pass standard input on, then the command. sshd made this shell (exec'd in place of the login
 * shell) a session leader, so $$ is the command's group. With a pushed fifo the command came
 * on the push's heels: it runs only once the unpack said 0 there (the lock's holder says 125
 * for a run that ended first). Without -i a watcher holds standard input: when the channel
 * closes (Ctrl-C here, a cut connection, a killed conch-place), it ends the whole group. The
 * status goes to the done fifo on every way out, so the lock's holder lists the copy at once. */
static const char run_script[] =
    "echo $$ >\"$1\"\n"
    "case $2 in /* | '') d=$2 ;; *) d=$PWD/$2 ;; esac\n"
    "cp_end() { if [ -p \"$d\" ]; then echo \"$1\" >\"$d\"; fi; exit \"$1\"; }\n"
    "if [ -n \"$3\" ]; then IFS= read -r p <\"$3\" || p=125; [ \"$p\" = 0 ] || cp_end 125; fi\n"
    "cd -- \"$4\" || cp_end 125\n"
    "m=$5; shift 5\n"
    "if [ \"$m\" = i ]; then \"$@\"; cp_end $?; fi\n"
    "exec 3<&0\n"
    "( trap '' TERM; while read -r _; do :; done; kill -TERM -$$; sleep 2; kill -KILL -$$ ) "
    "<&3 >/dev/null 2>&1 &\n"
    "w=$!\n"
    "\"$@\" </dev/null 3<&-\n"
    "s=$?\n"
    "kill -KILL $w 2>/dev/null\n"
    "cp_end $s\n";

/* $1 pgid file: what Ctrl-C sends on a channel of its own. */
static const char kill_script[] = "p=$(cat -- \"$1\" 2>/dev/null) || exit 0\n"
                                  "kill -TERM -\"$p\" 2>/dev/null; sleep 1; kill -KILL -\"$p\" "
                                  "2>/dev/null; exit 0\n";

struct ssh_far_side {
    const struct cp_ssh_reach *reach;
    struct cp_ssh_session *session; /* the kept one, or this run's own */
    struct cp_transport *transport;
    char *far_copy;
    char *far_lock;
    char *far_pgid;
    char *place_id;           /* the copy's place: host key, user, path */
    LIBSSH2_CHANNEL *started; /* the command, sent on the push's heels; the exec's to take up */
};

static void run_dispose(struct ssh_far_side *s)
{
    if (s->started != NULL) { /* never taken up: its far script ends with its input */
        libssh2_session_set_blocking(s->session->lib, 1);
        libssh2_channel_send_eof(s->started);
        cp_ssh_channel_let_go(s->session, steal_pointer(&s->started));
    }
    if (s->session != NULL) /* the transport's closing bounded the lock's letting go */
        libssh2_session_set_timeout(s->session->lib, 0);
    cp_transport_free(s->transport);
    if (s->session != NULL)
        s->session->stop_fd = -1; /* a kept session outlives this run's stop fd */
    if (s->reach->kept == NULL)
        cp_ssh_session_free(s->session);
    free(s->far_copy);
    free(s->far_lock);
    free(s->far_pgid);
    free(s->place_id);
}

char *cp_ssh_far_component(const char *name, const char *fallback)
{
    bool ok = name[0] != '\0' && name[0] != '.' && strlen(name) <= 100;
    for (const char *c = name; ok && *c != '\0'; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '.' || *c == '_' || *c == '-';
    if (ok)
        return xstrdup(name);
    cleanup_free char *key = cp_folder_key(name);
    return xasprintf("%s-%s", fallback, key);
}

static void far_paths(struct ssh_far_side *s, const struct cp_run_request *req)
{
    cleanup_free char *chat = cp_ssh_far_component(req->chat, "chat");
    cleanup_free char *dup = xstrdup(req->workdir);
    cleanup_free char *name = cp_ssh_far_component(basename(dup), "work");
    s->far_copy = xasprintf(".conch-place/copies/%s/%s", chat, name);
    s->far_lock = xasprintf(".conch-place/locks/%s", chat);
    s->far_pgid = xasprintf(".conch-place/locks/%s.pgid", chat);
}

int cp_ssh_remote_resolve(const char *place, struct cp_ssh_fs *fs, struct cp_ssh_host *h,
                          cp_error_t *err)
{
    const char *alias = place + strlen("ssh:");
    if (cp_ssh_alias_check(alias, err) < 0)
        return cp_error_code(err);
    if (cp_ssh_fs_init_default(fs, err) < 0 || cp_ssh_place_resolve(fs, alias, h, err) < 0) {
        if (cp_error_code(err) == CP_ERR_USAGE) /* a config's fault, not the command line's */
            (*err)->code = CP_ERR_FAILED;
        return cp_error_code(err);
    }
    return 0;
}

/* The copy's place as the manifest remembers it: the host key the session holds, the login,
 * the copy's path. Another machine behind the same name is another place. */
static char *place_identity(struct ssh_far_side *s)
{
    const char *hash = libssh2_hostkey_hash(s->session->lib, LIBSSH2_HOSTKEY_HASH_SHA256);
    cleanup_free char *fp = hash != NULL ? cp_base64_encode(hash, 32) : xstrdup("unknown");
    const char *user = s->reach->host->user;
    return xasprintf("ssh SHA256:%s %s %s", fp, user ? user : "-", s->far_copy);
}

static int ssh_connect(void *place, int stop_fd, struct cp_far_link *out, cp_error_t *err)
{
    struct ssh_far_side *s = place;
    const struct cp_ssh_reach *r = s->reach;
    if (r->kept != NULL) {
        s->session = r->kept;
    } else {
        if (cp_ssh_connect_words(r->fs, r->host, &s->session, err) < 0)
            return cp_error_code(err);
        if (r->connected != NULL)
            r->connected(r->host->alias);
    }
    /* Every wait of the mirror's transport ends on a signal (or the keeper's client leaving). */
    s->session->stop_fd = stop_fd;
    if (cp_ssh_transport_new(s->session, &s->transport, err) < 0)
        return cp_error_code(err);
    s->place_id = place_identity(s);
    *out = (struct cp_far_link){.transport = s->transport,
                                .far_root = s->far_copy,
                                .far_lock = s->far_lock,
                                .place_id = s->place_id,
                                .where = r->host->alias};
    return 0;
}

/* Ctrl-C: the far group is ended on a channel of its own, then ours is closed. */
static void stop_far_group(void *ctx)
{
    struct ssh_far_side *s = ctx;
    const char *args[] = {s->far_pgid, NULL};
    cleanup_free char *command = cp_shell_command("exec /bin/sh", kill_script, "conch-kill", args);
    LIBSSH2_SESSION *lib = s->session->lib;
    libssh2_session_set_blocking(lib, 1);
    libssh2_session_set_timeout(lib, 3000);
    cleanup_error cp_error_t e = NULL;
    cleanup_libssh2_channel LIBSSH2_CHANNEL *ch = cp_ssh_channel_exec(s->session, command, &e);
    /* Waited for: the keeper's connection outlives this run, so its end ends nothing. */
    char buf[64];
    if (ch != NULL && libssh2_channel_send_eof(ch) == 0)
        while (libssh2_channel_read(ch, buf, sizeof(buf)) > 0)
            ;
    libssh2_session_set_timeout(lib, 0);
}

/* The far command line of x; pushed: it waits for the push there. */
static char *run_command(struct ssh_far_side *s, const struct cp_far_exec *x, bool pushed)
{
    cleanup_strvec struct cp_strvec args = {0};
    cp_strvec_push(&args, s->far_pgid);
    cp_strvec_push(&args, x->done_path != NULL ? x->done_path : "");
    cp_strvec_push(&args, pushed && x->pushed_path != NULL ? x->pushed_path : "");
    cp_strvec_push(&args, x->far_root);
    cp_strvec_push(&args, x->interactive ? "i" : "n");
    cp_strvec_push_all(&args, (const char *const *)x->argv);
    return cp_shell_command("exec /bin/sh", run_script, "conch-run", (const char *const *)args.v);
}

static int ssh_exec_start(void *place, const struct cp_far_exec *x, cp_error_t *err)
{
    struct ssh_far_side *s = place;
    if (x->interactive || x->pushed_path == NULL || s->started != NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "no command to send ahead");
    cleanup_free char *command = run_command(s, x, true);
    s->started = cp_ssh_channel_exec(s->session, command, err);
    return s->started != NULL ? 0 : cp_error_code(err);
}

static int ssh_exec(void *place, const struct cp_far_exec *x, int *status_out, cp_error_t *err)
{
    struct ssh_far_side *s = place;
    int stop_fd = x->stop_fd;
    struct cp_ssh_io io = {.in_fd = x->interactive ? STDIN_FILENO : -1,
                           .hold_stdin = true,
                           .out = cp_ssh_sink_stdout,
                           .err = cp_ssh_sink_stderr,
                           .stop_fd = &stop_fd,
                           .on_stop = stop_far_group,
                           .stop_ctx = s};
    if (s->started != NULL)
        return cp_ssh_exec_on(s->session, steal_pointer(&s->started), &io, status_out, err);
    cleanup_free char *command = run_command(s, x, false);
    return cp_ssh_exec(s->session, command, &io, status_out, err);
}

static const struct cp_far_place_ops ssh_far_ops = {
    .connect = ssh_connect,
    .exec = ssh_exec,
    .exec_start = ssh_exec_start,
};

static void say_line(void *ctx, const char *line)
{
    cp_say("%s", line);
}

int cp_ssh_remote_run(const struct cp_run_request *req, const struct cp_ssh_reach *reach,
                      int *status_out, cp_error_t *err)
{
    struct ssh_far_side s __attribute__((cleanup(run_dispose))) = {.reach = reach};
    far_paths(&s, req);
    cleanup_free char *manifest = NULL;
    if (cp_manifest_path(req->place, req->chat, 1, &manifest, err) < 0)
        return cp_error_code(err);
    const struct cp_remote_args a = {.place = req->place,
                                     .workdir = req->workdir,
                                     .manifest_path = manifest,
                                     .argv = req->argv,
                                     .interactive = req->interactive,
                                     .stop_fd = reach->stop_fd,
                                     .say = say_line,
                                     .config = req->config};
    return cp_remote_run(&ssh_far_ops, &s, &a, status_out, err);
}
