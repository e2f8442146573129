/* The ssh:HOST place: the work folder mirrored into a copy on the far side, the command run
 * there, what changed brought back.
 *
 * On the far side, under the login's home (sshd starts commands there, so every path is
 * relative and no '~' is ever expanded):
 *   .conch-place/copies/CHAT/NAME   the copy (NAME: the work folder's own name, so tools that
 *                                   read their folder's name see the same one); its
 *                                   .conch-mirror-id names it (mirror/mirror.h)
 *   .conch-place/locks/CHAT         the copy's lock: "hold PID" of the shell holding it
 *   .conch-place/locks/CHAT.pgid    the process group of the command running in the copy
 * The lock (mirror/far/lock.sh, taken through mirror/remote-run.c) is held by a far shell that
 * lives exactly as long as our channel to it, so a crash here, a cut connection or a killed
 * conch-place frees it by itself; its answer names and lists the copy. Here, a flock on
 * $CONCH_HOME/workplaces/PLACE/CHAT.manifest.lock keeps two commands of this computer apart
 * before either connects. A second command waits its turn at either lock. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "mirror/manifest.h"
#include "mirror/mirror.h"
#include "mirror/remote-run.h"
#include "places/place.h"
#include "places/ssh/place-ssh-int.h"
#include "places/ssh/ssh_place.h"
#include "places/ssh/ssh_session_int.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/util.h"
#include "src/base/run-report.h"

/* $1 pgid file, $2 copy, $3 "i" to pass standard input on, then the command. sshd made this
 * shell (exec'd in place of the login shell) a session leader, so $$ is the command's group.
 * Without -i a watcher holds standard input: when the channel closes (Ctrl-C here, a cut
 * connection, a killed conch-place), it ends the whole group. */
static const char run_script[] =
    "echo $$ >\"$1\"\n"
    "cd -- \"$2\" || exit 125\n"
    "m=$3; shift 3\n"
    "if [ \"$m\" = i ]; then \"$@\"; exit $?; fi\n"
    "exec 3<&0\n"
    "( trap '' TERM; while read -r _; do :; done; kill -TERM -$$; sleep 2; kill -KILL -$$ ) "
    "<&3 >/dev/null 2>&1 &\n"
    "w=$!\n"
    "\"$@\" </dev/null 3<&-\n"
    "s=$?\n"
    "kill -KILL $w 2>/dev/null\n"
    "exit $s\n";

/* $1 pgid file: what Ctrl-C sends on a channel of its own. */
static const char kill_script[] = "p=$(cat -- \"$1\" 2>/dev/null) || exit 0\n"
                                  "kill -TERM -\"$p\" 2>/dev/null; sleep 1; kill -KILL -\"$p\" "
                                  "2>/dev/null; exit 0\n";

struct ssh_state {
    struct cp_ssh_fs fs;
    struct cp_ssh_host host;
    struct cp_ssh_session *session;
    struct cp_transport *transport;
    bool own_session;         /* false in the keeper: the session is its own */
    int keeper;               /* a connection to a keeper that runs it all, or -1 */
    int stop_fd;              /* in the keeper: the asking run's connection; else -1 */
    bool stopped;             /* a signal ended the preparation: the run answers 128+n */
    bool start_keeper;        /* none answered: start one once this run is connected */
    struct cp_far_lock flock; /* the far shell holding the copy's lock */
    int local_lock;           /* flock'd file, or -1 */
    int rootfd;
    char *manifest;
    char *far_copy;
    char *far_lock;
    char *far_pgid;
    char *place_id;                  /* the copy's place: host key, user, path */
    struct cp_mirror_session mirror; /* what this run's push learned, for its pull */
};

static void state_free(struct ssh_state *s)
{
    if (s == NULL)
        return;
    if (s->session != NULL) /* the lock's shell sees its input end; never waited for long */
        libssh2_session_set_timeout(s->session->lib, 3000);
    cp_remote_lock_release(s->transport, &s->flock);
    if (s->session != NULL)
        libssh2_session_set_timeout(s->session->lib, 0);
    cp_transport_free(s->transport);
    if (s->session != NULL)
        s->session->stop_fd = -1; /* the keeper's session outlives this run's stop fd */
    if (s->own_session)
        cp_ssh_session_free(s->session);
    if (s->keeper >= 0)
        close(s->keeper);
    cp_ssh_host_dispose(&s->host);
    cp_ssh_fs_dispose(&s->fs);
    if (s->local_lock >= 0)
        close(s->local_lock);
    if (s->rootfd >= 0)
        close(s->rootfd);
    free(s->manifest);
    free(s->far_copy);
    free(s->far_lock);
    free(s->far_pgid);
    free(s->place_id);
    cp_mirror_session_dispose(&s->mirror);
    free(s);
}

static void state_cleanup(struct ssh_state **s)
{
    state_free(*s);
}
#define cleanup_state __attribute__((cleanup(state_cleanup)))

/* A name from the person (the chat, the folder's name) as one safe path component. */
char *cp_ssh_far_component(const char *name, const char *fallback)
{
    bool ok = name[0] != '\0' && name[0] != '.' && strlen(name) <= 100;
    for (const char *c = name; ok && *c != '\0'; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '.' || *c == '_' || *c == '-';
    if (ok)
        return xstrdup(name);
    unsigned long long h = 1469598103934665603ULL;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return xasprintf("%s-%016llx", fallback, h);
}

static void far_paths(struct ssh_state *s, const struct cp_run_request *req)
{
    cleanup_free char *chat = cp_ssh_far_component(req->chat, "chat");
    cleanup_free char *dup = xstrdup(req->workdir);
    cleanup_free char *name = cp_ssh_far_component(basename(dup), "work");
    s->far_copy = xasprintf(".conch-place/copies/%s/%s", chat, name);
    s->far_lock = xasprintf(".conch-place/locks/%s", chat);
    s->far_pgid = xasprintf(".conch-place/locks/%s.pgid", chat);
}

char *cp_ssh_shell_command(const char *script, const char *name, char *const *args)
{
    size_t n = cp_strv_len(args);
    cleanup_free char **words = xcalloc(n + 5, sizeof(char *));
    words[0] = "/bin/sh";
    words[1] = "-c";
    words[2] = (char *)script;
    words[3] = (char *)name;
    for (size_t i = 0; i < n; i++)
        words[4 + i] = args[i];
    cleanup_free char *quoted = cp_ssh_quote_argv(words);
    return xasprintf("exec %s", quoted);
}

static void say_line(void *ctx, const char *line)
{
    cp_say("%s", line);
}

static struct cp_mirror_opts mirror_opts(struct ssh_state *s)
{
    return (struct cp_mirror_opts){.rootfd = s->rootfd,
                                   .far_root = s->far_copy,
                                   .manifest_path = s->manifest,
                                   .place_id = s->place_id,
                                   .session = &s->mirror};
}

/* The copy's place as the manifest remembers it: the host key the session holds, the login,
 * the copy's path. Another machine behind the same name is another place. */
static char *place_identity(struct ssh_state *s)
{
    const char *hash = libssh2_hostkey_hash(s->session->lib, LIBSSH2_HOSTKEY_HASH_SHA256);
    cleanup_free char *fp = hash != NULL ? cp_base64_encode(hash, 32) : xstrdup("unknown");
    return xasprintf("ssh SHA256:%s %s %s", fp, s->host.user ? s->host.user : "-", s->far_copy);
}

int cp_ssh_connect_words(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                         struct cp_ssh_session **out, cp_error_t *err)
{
    if (cp_ssh_connect(fs, h, out, err) == 0)
        return 0;
    const char *msg = (*err)->msg;
    int e = (*err)->sys_errno;
    if (strstr(msg, "cannot resolve") != NULL)
        cp_error_hint(err,
                      "The name %s is not found: check HostName for %s in ~/.ssh/config, or "
                      "the network's name service.",
                      h->hostname, h->alias);
    else if (e == ECONNREFUSED)
        cp_error_hint(err,
                      "Nothing answers SSH on %s port %ld: start sshd there, or fix Port for "
                      "%s in ~/.ssh/config.",
                      h->hostname, h->port, h->alias);
    else if (cp_error_code(err) == CP_ERR_TIMEOUT || e == EHOSTUNREACH || e == ENETUNREACH ||
             strstr(msg, "imed out") != NULL || strstr(msg, "banner") != NULL)
        cp_error_hint(err,
                      "%s did not answer: it may be asleep or off the network. Wake it or "
                      "reconnect it, then try again (ConnectTimeout sets how long to wait).",
                      h->alias);
    else if (cp_error_code(err) == CP_ERR_UNREACHABLE)
        cp_error_hint(err, "Check that %s is up and runs sshd: `ssh %s true` from a terminal.",
                      h->alias, h->alias);
    return cp_error_code(err);
}

/* The host resolved, the far paths and the manifest's name; nothing taken yet. */
static int prepare_state(const struct cp_run_request *req, struct ssh_state **out, cp_error_t *err)
{
    cleanup_state struct ssh_state *s = xcalloc(1, sizeof(*s));
    s->local_lock = -1;
    s->rootfd = -1;
    s->keeper = -1;
    s->stop_fd = -1;
    const char *alias = req->place + strlen("ssh:");
    if (cp_ssh_alias_check(alias, err) < 0)
        return cp_error_code(err);
    if (cp_ssh_fs_init_default(&s->fs, err) < 0 ||
        cp_ssh_place_resolve(&s->fs, alias, &s->host, err) < 0) {
        if (cp_error_code(err) == CP_ERR_USAGE) /* a config's fault, not the command line's */
            (*err)->code = CP_ERR_FAILED;
        return cp_error_code(err);
    }
    far_paths(s, req);
    if (cp_manifest_path(req->place, req->chat, 1, &s->manifest, err) < 0)
        return cp_error_code(err);
    *out = steal_pointer(&s);
    return 0;
}

/* Both locks, the connection unless there is one, the push. */
static int prepare_there(struct ssh_state *s, const struct cp_run_request *req, cp_error_t *err)
{
    const char *alias = s->host.alias;
    if (cp_remote_lock_here(s->manifest, req->place, s->stop_fd, &s->local_lock, err) < 0)
        return cp_error_code(err);
    s->rootfd = open(req->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->rootfd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", req->workdir);
    cp_debug("ssh:%s: resolved; connecting", alias);
    if (s->session == NULL) {
        s->own_session = true;
        if (cp_ssh_connect_words(&s->fs, &s->host, &s->session, err) < 0)
            return cp_error_code(err);
        if (s->start_keeper)
            cp_ssh_keeper_spawn(alias);
    }
    /* Every wait of the mirror's transport ends on a signal (or the keeper's client leaving). */
    s->session->stop_fd = s->stop_fd >= 0 ? s->stop_fd : cp_signals_install();
    /* While the lock's shell starts, the shells for the command and the listing start too. */
    if (s->session->warm_want < 2)
        s->session->warm_want = 2;
    if (cp_ssh_transport_new(s->session, &s->transport, err) < 0 ||
        cp_remote_lock_there(s->transport, s->far_lock, s->far_copy, false, alias, s->stop_fd,
                             &s->mirror, &s->flock, err) < 0)
        return cp_remote_words(err, alias, "taking the copy's lock on %s", alias);
    cp_debug("ssh:%s: far lock held", alias);
    free(s->place_id);
    s->place_id = place_identity(s);
    struct cp_mirror_opts o = mirror_opts(s);
    struct cp_mirror_report rep = {.say = say_line};
    if (cp_mirror_push(s->transport, &o, &rep, err) < 0)
        return cp_remote_words(err, alias, "sending the work folder to %s", alias);
    cp_debug("ssh:%s: pushed", alias);
    cp_run_report_stage("push");
    return 0;
}

/* The signal that stopped this run: the keeper's client's, or this process's. */
static int stop_signal(const struct ssh_state *s)
{
    return s->stop_fd >= 0 ? cp_ssh_keeper_signal(s->stop_fd) : cp_signals_caught();
}

/* A signal during the locks, the push or the pull: the run ends with 128+n, as a signal
 * during the command does; what was staged is removed, nothing landed half-way. */
static int stopped_or(struct ssh_state *s, int rc, int *status_out, cp_error_t *err)
{
    if (rc != CP_ERR_INTERRUPTED)
        return rc;
    cp_error_free(err);
    *status_out = 128 + stop_signal(s);
    return 0;
}

static int ssh_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err)
{
    cleanup_state struct ssh_state *s = NULL;
    if (prepare_state(req, &s, err) < 0)
        return cp_error_code(err);
    cp_run_report_remote("host", s->host.alias, "resolve");
    /* The keeper's process would sync the files, out of the report's sight: not with one. */
    int k = cp_run_report_on() ? -1 : cp_ssh_keeper_reach(&s->host, &s->keeper);
    s->start_keeper = k > 0;
    int rc = k != 0 ? prepare_there(s, req, err) : 0;
    if (rc == CP_ERR_INTERRUPTED) {
        cp_error_free(err);
        s->stopped = true;
    } else if (rc < 0) {
        return rc;
    }
    *state_out = steal_pointer(&s);
    return 0;
}

/* Ctrl-C: the far group is ended on a channel of its own, then ours is closed. */
static void stop_far(void *ctx)
{
    struct ssh_state *s = ctx;
    char *args[] = {s->far_pgid, NULL};
    cleanup_free char *command = cp_ssh_shell_command(kill_script, "conch-kill", args);
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

static int ssh_run(void *state, const struct cp_run_request *req, int *status_out, cp_error_t *err)
{
    struct ssh_state *s = state;
    if (s->stopped) {
        *status_out = 128 + stop_signal(s);
        return 0;
    }
    if (s->keeper >= 0)
        return cp_ssh_keeper_run(s->keeper, req, status_out, err);
    char **args = xcalloc(cp_strv_len(req->argv) + 4, sizeof(char *));
    args[0] = s->far_pgid;
    args[1] = s->far_copy;
    args[2] = req->interactive ? "i" : "n";
    for (size_t i = 0; req->argv[i] != NULL; i++)
        args[3 + i] = req->argv[i];
    cleanup_free char *command = cp_ssh_shell_command(run_script, "conch-run", args);
    free(args);
    int stop_fd = s->stop_fd >= 0 ? s->stop_fd : cp_signals_install();
    struct cp_ssh_io io = {.in_fd = req->interactive ? STDIN_FILENO : -1,
                           .hold_stdin = true,
                           .out = cp_ssh_sink_stdout,
                           .err = cp_ssh_sink_stderr,
                           .stop_fd = &stop_fd,
                           .on_stop = stop_far,
                           .stop_ctx = s};
    cp_debug("ssh:%s: running", s->host.alias);
    int r = cp_ssh_exec(s->session, command, &io, status_out, err);
    cp_debug("ssh:%s: ran, status %d", s->host.alias, *status_out);
    cp_run_report_stage("command");
    if (r == CP_ERR_INTERRUPTED)
        return stopped_or(s, r, status_out, err);
    if (r < 0)
        return cp_remote_words(err, s->host.alias, "running the command on %s", s->host.alias);
    struct cp_mirror_opts o = mirror_opts(s);
    struct cp_mirror_report rep = {.say = say_line};
    int pr = cp_mirror_pull(s->transport, &o, &rep, err);
    if (pr == CP_ERR_INTERRUPTED)
        return stopped_or(s, pr, status_out, err);
    if (pr < 0)
        return cp_remote_words(err, s->host.alias,
                               "bringing the changes back from %s (the command exited %d)",
                               s->host.alias, *status_out);
    cp_debug("ssh:%s: pulled", s->host.alias);
    cp_run_report_stage("pull");
    return 0;
}

static void ssh_release(void *state)
{
    state_free(state);
}

int cp_ssh_place_serve(const struct cp_run_request *req, struct cp_ssh_session *session,
                       int client_fd, int *status_out, cp_error_t *err)
{
    cleanup_state struct ssh_state *s = NULL;
    if (prepare_state(req, &s, err) < 0)
        return cp_error_code(err);
    s->session = session;
    s->stop_fd = client_fd;
    if (cp_ssh_recheck_host_key(session, &s->host, err) < 0)
        return cp_error_code(err);
    int rc = prepare_there(s, req, err);
    if (rc < 0)
        return stopped_or(s, rc, status_out, err);
    return ssh_run(s, req, status_out, err);
}

static int ssh_describe(const struct cp_config *cfg, json_object *places, cp_error_t *err)
{
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    if (cp_ssh_fs_init_default(&fs, err) < 0) {
        cp_error_free(err);
        return 0;
    }
    cleanup_free char *path = xasprintf("%s/.ssh/config", fs.home);
    if (access(path, F_OK) != 0)
        return 0;
    return cp_ssh_places_describe(&fs, path, places, err);
}

/* Nothing to remove: the far lock ends with its connection, the flock here with its process.
 * Copies stay: they are the person's files, and the next run of the chat reuses them. */
static int ssh_clean(const struct cp_config *cfg, cp_error_t *err)
{
    return 0;
}

const struct cp_place_ops cp_place_ssh = {
    .name = "ssh:",
    .is_prefix = true,
    .prepare = ssh_prepare,
    .run = ssh_run,
    .release = ssh_release,
    .check = cp_ssh_check,
    .describe = ssh_describe,
    .clean = ssh_clean,
};
