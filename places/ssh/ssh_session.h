/* A libssh2 session to a resolved host, and commands run over it with their byte streams.
 * The mirror's transport (run a remote command, feed its stdin, read stdout and stderr,
 * get its status) sits on cp_ssh_exec. */
#ifndef CONCH_SSH_SESSION_H
#define CONCH_SSH_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "mirror/transport.h"
#include "places/ssh/ssh_config.h"
#include "src/base/error.h"

#define CP_SSH_DEFAULT_TIMEOUT 30 /* seconds, when ConnectTimeout is none */

struct cp_ssh_session;

/* Connects (TCP, ProxyCommand through /bin/sh -c, or ProxyJump through the hops' own
 * sessions), checks the host key against known_hosts, and authenticates with the agent, then
 * with key files that need no passphrase. Never prompts; never forwards anything.
 * fs resolves ProxyJump hops from the same config as h; *out is the caller's. */
int cp_ssh_connect(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                   struct cp_ssh_session **out, cp_error_t *err);
void cp_ssh_session_free(struct cp_ssh_session *s);
void cp_cleanup_ssh_session(struct cp_ssh_session **s);
#define cleanup_ssh_session __attribute__((cleanup(cp_cleanup_ssh_session)))

/* Where a remote command's bytes go, as they arrive. A sink returning -1 stops the command. */
struct cp_ssh_io {
    int in_fd;       /* the command's standard input, read to its end; -1: none (EOF at once) */
    bool hold_stdin; /* with in_fd -1: no EOF either; input ends when the channel closes */
    int (*out)(void *ctx, const void *buf, size_t len);
    int (*err)(void *ctx, const void *buf, size_t len);
    void *ctx;
    /* NULL, or a descriptor that becomes readable when the command is to be stopped:
     * cp_ssh_exec then returns CP_ERR_INTERRUPTED at once, the channel still open. */
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

/* argv as one command line for a POSIX shell: each word in single quotes, ' as '\''.
 * *out is the caller's. */
char *cp_ssh_quote_argv(char *const *argv);

/* The mirror's transport over s (borrowed: it must outlive the transport). Each far script
 * runs on its own channel; a far side silent past the idle limit is given up. */
int cp_ssh_transport_new(struct cp_ssh_session *s, struct cp_transport **out, cp_error_t *err);

#endif
