/* The ssh:HOST place: the work folder mirrored into a copy on the far side, the command run
 * there, what changed brought back.
 *
 * On the far side, under the login's home (sshd starts commands there, so every path is
 * relative and no '~' is ever expanded):
 *   .conch-place/copies/CHAT/NAME   the copy (NAME: the work folder's own name, so tools that
 *                                   read their folder's name see the same one)
 *   .conch-place/locks/CHAT         the copy's lock: the pid of the shell holding it
 *   .conch-place/locks/CHAT.pgid    the process group of the command running in the copy
 * The lock is held by a far shell that lives exactly as long as our channel to it, so a
 * crash here, a cut connection or a killed conch-place frees it by itself. Here, a flock on
 * $CONCH_HOME/workplaces/PLACE/CHAT.manifest.lock keeps two commands of this computer apart
 * before either connects. */
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
#include "places/place.h"
#include "places/ssh/place-ssh-int.h"
#include "places/ssh/ssh_place.h"
#include "places/ssh/ssh_session_int.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/util.h"
#include "src/base/run-report.h"

/* $1 lock file, $2 copy folder. Checks the tools the mirror needs, makes the copy's folder,
 * takes the lock, says "ok", then holds the lock until its input ends. */
static const char lock_script[] =
    "set -u\n"
    "for t in tar find xargs stat mktemp; do\n"
    "  command -v \"$t\" >/dev/null 2>&1 || { echo \"missing $t\"; exit 3; }\n"
    "done\n"
    "mkdir -p -- \"${1%/*}\" \"$2\" 2>/dev/null || { echo \"nofolder\"; exit 4; }\n"
    "take() { ( set -C; echo $$ >\"$1\" ) 2>/dev/null; }\n"
    "if ! take \"$1\"; then\n"
    "  old=$(cat -- \"$1\" 2>/dev/null); [ -n \"$old\" ] || { sleep 1; old=$(cat -- \"$1\" "
    "2>/dev/null); }\n"
    "  if [ -n \"$old\" ] && kill -0 \"$old\" 2>/dev/null; then echo \"busy $old\"; exit 5; fi\n"
    "  rm -f -- \"$1\"; take \"$1\" || { echo \"busy\"; exit 5; }\n"
    "fi\n"
    "echo ok\n"
    "while read -r _; do :; done\n"
    "rm -f -- \"$1\" \"$1.pgid\"\n";

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
    bool own_session;      /* false in the keeper: the session is its own */
    int keeper;            /* a connection to a keeper that runs it all, or -1 */
    int stop_fd;           /* in the keeper: the asking run's connection; else -1 */
    bool start_keeper;     /* none answered: start one once this run is connected */
    LIBSSH2_CHANNEL *lock; /* the far shell holding the copy's lock */
    int local_lock;        /* flock'd file, or -1 */
    int rootfd;
    char *manifest;
    char *far_copy;
    char *far_lock;
    char *far_pgid;
};

static void state_free(struct ssh_state *s)
{
    if (s == NULL)
        return;
    cp_transport_free(s->transport);
    if (s->lock != NULL) {
        libssh2_session_set_blocking(s->session->lib, 1);
        libssh2_session_set_timeout(s->session->lib, 3000);
        libssh2_channel_send_eof(s->lock);
        libssh2_channel_close(s->lock);
        libssh2_channel_free(s->lock);
    }
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

static int lock_here(struct ssh_state *s, const char *place, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("%s.lock", s->manifest);
    s->local_lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (s->local_lock < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    if (flock(s->local_lock, LOCK_EX | LOCK_NB) == 0)
        return 0;
    cp_error_make(err, CP_ERR_DENIED, 0, "another command runs in this chat's copy on %s", place);
    cp_error_hint(err, "One command at a time per copy: wait for it to end, or give this one "
                       "another --chat.");
    return CP_ERR_DENIED;
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

/* The lock shell's one line of answer, read with the session's own time limit. */
static int read_line(LIBSSH2_CHANNEL *ch, char *line, size_t max)
{
    size_t n = 0;
    while (n + 1 < max) {
        char c;
        ssize_t r = libssh2_channel_read(ch, &c, 1);
        if (r <= 0)
            break;
        if (c == '\n')
            break;
        line[n++] = c;
    }
    line[n] = '\0';
    return (int)n;
}

static int lock_answer_error(const char *line, const char *alias, cp_error_t *err)
{
    if (strncmp(line, "missing ", 8) == 0) {
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "%s has no '%s' command, which the copy needs",
                      alias, line + 8);
        cp_error_hint(err, "Install it on %s (it is in every POSIX system's base tools).", alias);
        return CP_ERR_NOT_FOUND;
    }
    if (strncmp(line, "busy", 4) == 0) {
        cp_error_make(err, CP_ERR_DENIED, 0,
                      "another command runs in this chat's copy on %s (far process %s)", alias,
                      line[4] ? line + 5 : "unknown");
        cp_error_hint(err, "One command at a time per copy: wait for it to end, or give this "
                           "one another --chat.");
        return CP_ERR_DENIED;
    }
    if (strcmp(line, "nofolder") == 0) {
        cp_error_make(err, CP_ERR_FAILED, 0,
                      "%s cannot make the copy's folder under "
                      "~/.conch-place",
                      alias);
        cp_error_hint(err, "Check that your home on %s is writable and not full (`df -h ~`).",
                      alias);
        return CP_ERR_FAILED;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s answered the copy's lock with '%s'", alias,
                         line);
}

/* Starts the far shell that checks the tools, makes the copy's folder and holds the lock. */
static int lock_there(struct ssh_state *s, cp_error_t *err)
{
    char *args[] = {s->far_lock, s->far_copy, NULL};
    cleanup_free char *command = cp_ssh_shell_command(lock_script, "conch-lock", args);
    LIBSSH2_SESSION *lib = s->session->lib;
    libssh2_session_set_blocking(lib, 1);
    libssh2_session_set_timeout(lib, CP_SSH_DEFAULT_TIMEOUT * 1000);
    s->lock = cp_ssh_channel_exec(s->session, command, err);
    int rc = s->lock == NULL ? cp_error_code(err) : 0;
    /* While the lock's shell starts, the shells for the command and the listing start too. */
    if (rc == 0 && s->session->warm_want < 2)
        cp_ssh_warm(s->session, 2);
    libssh2_session_set_timeout(lib, CP_SSH_DEFAULT_TIMEOUT * 1000);
    char line[256] = "";
    if (rc == 0 && read_line(s->lock, line, sizeof(line)) >= 0 && strcmp(line, "ok") != 0)
        rc = lock_answer_error(line[0] ? line : "nothing", s->host.alias, err);
    libssh2_session_set_timeout(lib, 0);
    return rc;
}

static void say_line(void *ctx, const char *line)
{
    cp_say("%s", line);
}

static struct cp_mirror_opts mirror_opts(const struct ssh_state *s)
{
    return (struct cp_mirror_opts){
        .rootfd = s->rootfd, .far_root = s->far_copy, .manifest_path = s->manifest};
}

/* Words for a mirror failure whose cause is on the far side. */
static int mirror_error(const struct ssh_state *s, cp_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int mirror_error(const struct ssh_state *s, cp_error_t *err, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    const char *msg = *err != NULL ? (*err)->msg : "";
    if (strstr(msg, "No space left") != NULL || strstr(msg, "Disk quota") != NULL ||
        strstr(msg, "Wrote only") != NULL) {
        cp_error_hint(err,
                      "The copy's disk on %s is full: free space there (`df -h ~`), or remove "
                      "old copies under ~/.conch-place/copies.",
                      s->host.alias);
    } else if (cp_error_code(err) == CP_ERR_UNREACHABLE || cp_error_code(err) == CP_ERR_TIMEOUT) {
        cp_error_hint(err,
                      "The connection to %s broke; nothing landed half-way here. Run the "
                      "command again: the mirror starts over from the last agreed state.",
                      s->host.alias);
    }
    return cp_error_wrap(err, "%s", what);
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
    if (lock_here(s, req->place, err) < 0)
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
    if (lock_there(s, err) < 0 || cp_ssh_transport_new(s->session, &s->transport, err) < 0)
        return cp_error_code(err);
    cp_debug("ssh:%s: far lock held", alias);
    struct cp_mirror_opts o = mirror_opts(s);
    struct cp_mirror_report rep = {.say = say_line};
    if (cp_mirror_push(s->transport, &o, &rep, err) < 0)
        return mirror_error(s, err, "sending the work folder to %s", s->host.alias);
    cp_debug("ssh:%s: pushed", alias);
    cp_run_report_stage("push");
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
    if (k != 0 && prepare_there(s, req, err) < 0)
        return cp_error_code(err);
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
    if (r == CP_ERR_INTERRUPTED) {
        cp_error_free(err);
        *status_out =
            128 + (s->stop_fd >= 0 ? cp_ssh_keeper_signal(s->stop_fd) : cp_signals_caught());
        return 0;
    }
    if (r < 0)
        return mirror_error(s, err, "running the command on %s", s->host.alias);
    struct cp_mirror_opts o = mirror_opts(s);
    struct cp_mirror_report rep = {.say = say_line};
    if (cp_mirror_pull(s->transport, &o, &rep, err) < 0)
        return mirror_error(s, err, "bringing the changes back from %s (the command exited %d)",
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
    if (cp_ssh_recheck_host_key(session, &s->host, err) < 0 || prepare_there(s, req, err) < 0)
        return cp_error_code(err);
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
