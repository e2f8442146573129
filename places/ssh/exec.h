/* Commands run over a session's channels (exec.c): a channel running a command (warm or new),
 * and the command run with its byte streams. A far command line is one of src/base/shell.h's:
 * cp_shell_command("exec /bin/sh", SCRIPT, NAME, ARGS) replaces the far login shell. */
#ifndef CONCH_SSH_EXEC_H
#define CONCH_SSH_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "places/ssh/handles.h"
#include "src/base/error.h"

struct cp_ssh_session;

/* Where a remote command's bytes go, as they arrive. A sink returning -1 stops the command. */
struct cp_ssh_io {
    int in_fd;       /* the command's standard input, read to its end; -1: none (EOF at once) */
    bool hold_stdin; /* with in_fd -1: no EOF either; input ends when the channel closes */
    int (*out)(void *ctx, const void *buf, size_t len);
    int (*err)(void *ctx, const void *buf, size_t len);
    void *ctx;
    /* NULL, or a descriptor that becomes readable when the command is to be stopped:
     * cp_ssh_exec then calls on_stop and returns CP_ERR_INTERRUPTED, the channel still open
     * until then. */
    const int *stop_fd;
    /* Called when a stop is asked, before the channel is closed; may use the session. */
    void (*on_stop)(void *stop_ctx);
    void *stop_ctx;
};

/* Sinks that write to file descriptors 1 and 2; ctx unused. */
int cp_ssh_sink_stdout(void *ctx, const void *buf, size_t len);
int cp_ssh_sink_stderr(void *ctx, const void *buf, size_t len);

/* Runs command (one shell command line for the far side's shell) with no terminal and no
 * environment; *status_out is its exit status, or 128 + the signal that ended it. */
int cp_ssh_exec(struct cp_ssh_session *s, const char *command, const struct cp_ssh_io *io,
                int *status_out, cp_error_t *err);
/* cp_ssh_exec on a channel whose command was sent already (cp_ssh_channel_exec); it is the
 * callee's, whatever comes. */
int cp_ssh_exec_on(struct cp_ssh_session *s, LIBSSH2_CHANNEL *started, const struct cp_ssh_io *io,
                   int *status_out, cp_error_t *err);

/* A signal's name as the protocol sends it ("TERM") to its number; 127 when unknown. */
int cp_ssh_signal_number(const char *name);
/* The exit status of a closed channel, or 128 + the signal that ended it. */
int cp_ssh_channel_status(LIBSSH2_CHANNEL *ch);

/* A channel running command: a warm one when there is one, else a new one. NULL on failure,
 * with err set. The channel is the caller's. */
LIBSSH2_CHANNEL *cp_ssh_channel_exec(struct cp_ssh_session *s, const char *command,
                                     cp_error_t *err);
/* Starts warm channels until want are ready (at most CP_SSH_MAX_WARM). A taken one is not
 * replaced until this is called again (the keeper, between runs). */
void cp_ssh_warm(struct cp_ssh_session *s, size_t want);
/* Lets ch go: on a session that defers closes (the keeper's), it is kept until
 * cp_ssh_closes_finish closes it after the run: our close is no request the run waits on, and
 * nothing is sent that the far side would answer meanwhile. A far script that must see its
 * input end is sent EOF first. Elsewhere closed and freed, bounded by the session's timeout. */
void cp_ssh_channel_let_go(struct cp_ssh_session *s, LIBSSH2_CHANNEL *ch);
/* Waits for the closes let go so far (a few seconds at most) and frees their channels. */
void cp_ssh_closes_finish(struct cp_ssh_session *s);
/* Closes the warm channels and keeps no more. */
void cp_ssh_warm_drop(struct cp_ssh_session *s);

#endif
