/* Channels started ahead of need. Most of a far command's cost is not ours: sshd forks a
 * session and starts the login shell, a few hundred milliseconds on a busy host, and a run
 * needs three or four of them one after another (lock, command, listing, sometimes a pack).
 * A warm channel is one whose far shell was started early and waits for its command on
 * standard input: its start-up overlaps what we do meanwhile. The command arrives as a count
 * of lines, then the lines; the shell reads them with its read builtin (one byte at a time on
 * a pipe, so nothing past them is taken) and evals them, which execs the command in its place
 * with standard input where the command's own input begins. */
#include "config.h"

#include <string.h>

#include "places/ssh/ssh_session_int.h"
#include "src/base/log.h"
#include "src/base/util.h"

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
    s->warm_want = want;
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
    cp_ssh_warm(s, s->warm_want);
    return ch;
}

void cp_ssh_warm_drop(struct cp_ssh_session *s)
{
    s->warm_want = 0;
    while (s->nwarm > 0)
        libssh2_channel_free(s->warm[--s->nwarm]);
}
