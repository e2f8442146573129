/* Commands run over a session's channels: the channel itself (a warm one when there is one),
 * the command's streams pumped (pump.h) with standard output and error passed on separately as
 * they arrive and standard input fed from a descriptor, keepalives sent while it runs, and its
 * status or signal returned. Far command lines are built by src/base/shell.h.
 *
 * Warm channels: most of a far command's cost is not ours: sshd forks a session and starts the
 * login shell, a few hundred milliseconds on a busy host, and a run needs three or four of them
 * one after another (lock, command, listing, sometimes a pack). A warm channel is one whose far
 * shell was started early and waits for its command on standard input: its start-up overlaps
 * what we do meanwhile. The command arrives as a count of lines, then the lines; the shell reads
 * them with its read builtin (one byte at a time on a pipe, so nothing past them is taken) and
 * evals them, which execs the command in its place with standard input where the command's own
 * input begins. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "places/ssh/exec.h"
#include "places/ssh/pump.h"
#include "places/ssh/session.h"
#include "src/base/log.h"
#include "src/base/util.h"

int cp_ssh_sink_stdout(void *ctx, const void *buf, size_t len)
{
    return cp_write_all(STDOUT_FILENO, buf, len);
}

int cp_ssh_sink_stderr(void *ctx, const void *buf, size_t len)
{
    return cp_write_all(STDERR_FILENO, buf, len);
}

int cp_ssh_signal_number(const char *name)
{
    static const struct {
        const char *name;
        int number;
    } table[] = {{"ABRT", SIGABRT}, {"ALRM", SIGALRM}, {"BUS", SIGBUS},   {"FPE", SIGFPE},
                 {"HUP", SIGHUP},   {"ILL", SIGILL},   {"INT", SIGINT},   {"KILL", SIGKILL},
                 {"PIPE", SIGPIPE}, {"QUIT", SIGQUIT}, {"SEGV", SIGSEGV}, {"TERM", SIGTERM},
                 {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TRAP", SIGTRAP}, {"XCPU", SIGXCPU}};
    for (size_t i = 0; i < ARRAY_SIZE(table); i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].number;
    return 127; /* a signal with no name we know: still reported as a signal */
}

int cp_ssh_channel_status(LIBSSH2_CHANNEL *ch)
{
    char *sig = NULL;
    size_t sig_len = 0;
    libssh2_channel_get_exit_signal(ch, &sig, &sig_len, NULL, NULL, NULL, NULL);
    if (sig != NULL) {
        int number = cp_ssh_signal_number(sig);
        free(sig);
        return 128 + number;
    }
    return libssh2_channel_get_exit_status(ch);
}

/* ---- warm channels ---- */

static const char trampoline[] =
    "exec /bin/sh -c 'IFS= read -r n || exit 0; c=; "
    "while [ \"$n\" -gt 0 ]; do IFS= read -r l || exit 0; c=\"$c$l\n\"; n=$((n-1)); done; "
    "eval \"$c\"'";

/* Opens one warm channel into the pool; quietly nothing when the far side says no (a cold
 * channel is still possible, or its failure is reported there). */
static void warm_one(struct cp_ssh_session *s)
{
    libssh2_session_set_blocking(s->lib, 1);
    LIBSSH2_CHANNEL *ch = libssh2_channel_open_session(s->lib);
    if (ch == NULL)
        return;
    if (libssh2_channel_exec(ch, trampoline) != 0) {
        libssh2_channel_free(ch);
        return;
    }
    s->warm[s->nwarm++] = ch;
}

void cp_ssh_warm(struct cp_ssh_session *s, size_t want)
{
    if (want > CP_SSH_MAX_WARM)
        want = CP_SSH_MAX_WARM;
    while (s->nwarm < want) {
        size_t before = s->nwarm;
        warm_one(s);
        if (s->nwarm == before)
            break;
    }
}

/* Sends command to a warm channel, in one write (one packet, not three); 0, or -1 when that
 * channel is no good any more. */
static int hand_command(LIBSSH2_CHANNEL *ch, const char *command)
{
    size_t lines = 1;
    for (const char *c = command; *c != '\0'; c++)
        lines += *c == '\n';
    cleanup_free char *msg = xasprintf("%zu\n%s\n", lines, command);
    size_t len = strlen(msg), off = 0;
    while (off < len) {
        ssize_t w = libssh2_channel_write(ch, msg + off, len - off);
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

LIBSSH2_CHANNEL *cp_ssh_channel_exec(struct cp_ssh_session *s, const char *command, cp_error_t *err)
{
    libssh2_session_set_blocking(s->lib, 1);
    LIBSSH2_CHANNEL *ch = NULL;
    while (ch == NULL && s->nwarm > 0) {
        ch = s->warm[0];
        memmove(s->warm, s->warm + 1, (--s->nwarm) * sizeof(s->warm[0]));
        if (hand_command(ch, command) < 0) {
            cp_debug("ssh:%s: a warm channel was gone; another", s->alias);
            libssh2_channel_free(ch);
            ch = NULL;
        }
    }
    if (ch == NULL) {
        ch = libssh2_channel_open_session(s->lib);
        if (ch == NULL) {
            cp_ssh_lib_error(s->lib, CP_ERR_UNREACHABLE, err, "cannot open a channel");
            return NULL;
        }
        if (libssh2_channel_exec(ch, command) != 0) {
            cp_ssh_lib_error(s->lib, CP_ERR_FAILED, err, "the far side refused the command");
            libssh2_channel_free(ch);
            return NULL;
        }
    }
    /* No shell is started here to replace the one taken: each cost the run two round trips
     * (the channel's opening, the shell's start) before it could go on (bench/ssh with
     * DELAY_MS: 6 of a run's 8 round trips). The keeper restocks between runs. */
    return ch;
}

void cp_ssh_channel_let_go(struct cp_ssh_session *s, LIBSSH2_CHANNEL *ch)
{
    if (s->defer_closes && s->nclosing < CP_SSH_MAX_CLOSING) {
        s->closing[s->nclosing++] = ch;
        return;
    }
    libssh2_session_set_blocking(s->lib, 1);
    libssh2_session_set_timeout(s->lib, 5000);
    libssh2_channel_close(ch);
    libssh2_channel_free(ch);
    libssh2_session_set_timeout(s->lib, 0);
}

void cp_ssh_closes_finish(struct cp_ssh_session *s)
{
    if (s->nclosing == 0)
        return;
    libssh2_session_set_blocking(s->lib, 1);
    libssh2_session_set_timeout(s->lib, 3000);
    for (size_t i = 0; i < s->nclosing; i++) /* all closes sent first, their answers after */
        libssh2_channel_close(s->closing[i]);
    while (s->nclosing > 0)
        libssh2_channel_free(s->closing[--s->nclosing]);
    libssh2_session_set_timeout(s->lib, 0);
}

void cp_ssh_warm_drop(struct cp_ssh_session *s)
{
    while (s->nwarm > 0)
        libssh2_channel_free(s->warm[--s->nwarm]);
}

int cp_ssh_exec(struct cp_ssh_session *s, const char *command, const struct cp_ssh_io *io,
                int *status_out, cp_error_t *err)
{
    LIBSSH2_CHANNEL *ch = cp_ssh_channel_exec(s, command, err);
    if (ch == NULL)
        return cp_error_code(err);
    return cp_ssh_exec_on(s, ch, io, status_out, err);
}

int cp_ssh_exec_on(struct cp_ssh_session *s, LIBSSH2_CHANNEL *started, const struct cp_ssh_io *io,
                   int *status_out, cp_error_t *err)
{
    cleanup_libssh2_channel LIBSSH2_CHANNEL *ch = started;
    if (io->in_fd < 0 && !io->hold_stdin)
        libssh2_channel_send_eof(ch);
    const struct ssh_pump_io p = {.s = s,
                                  .ch = ch,
                                  .in_fd = io->in_fd,
                                  .out = {.put = io->out, .ctx = io->ctx, .fd = -1},
                                  .err = {.put = io->err, .ctx = io->ctx, .fd = -1},
                                  .stop_fd = io->stop_fd != NULL ? *io->stop_fd : -1,
                                  .wait_ms = 50,
                                  .keepalive = true};
    int r = ssh_pump_run(&p);
    if (r < 0)
        return cp_ssh_lib_error(s->lib, CP_ERR_UNREACHABLE, err,
                                "the connection broke while the command ran");
    libssh2_session_set_blocking(s->lib, 1);
    if (r == SSH_PUMP_STOPPED) {
        if (io->on_stop != NULL)
            io->on_stop(io->stop_ctx);
        /* The far side closes once its command has ended; not waited for past this. */
        libssh2_session_set_timeout(s->lib, 5000);
        return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "stopped");
    }
    /* The far side's close ends its messages (its status may come after its end of output);
     * ours is let go, not waited on: nothing in the run depends on it. */
    libssh2_channel_wait_closed(ch);
    *status_out = cp_ssh_channel_status(ch);
    cp_ssh_channel_let_go(s, steal_pointer(&ch));
    return 0;
}
