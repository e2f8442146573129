/* A libssh2 session to a resolved host (session.c): the socket chosen from the config
 * (socket.h), the handshake, the host key checked against known_hosts, the login (auth.h).
 * Commands run over it through exec.h; the mirror's transport through mirror-transport.h. */
#ifndef CONCH_SSH_SESSION_H
#define CONCH_SSH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "places/ssh/config-host.h"
#include "places/ssh/handles.h"
#include "src/base/error.h"
#include "src/base/spawn.h"

#define CP_SSH_DEFAULT_TIMEOUT 30 /* seconds, when ConnectTimeout is none */
/* Far shells kept started: one for each step of a run (lock, push, command, listing, pack),
 * within sshd's default MaxSessions (10) beside the run's own open channels. */
#define CP_SSH_MAX_WARM 5
/* Channels whose close is sent and whose answer is waited for after the run (exec.h). */
#define CP_SSH_MAX_CLOSING 8

struct ssh_jump_leg;

struct cp_ssh_session {
    LIBSSH2_SESSION *lib;
    int fd;
    struct cp_child proxy;      /* a ProxyCommand's process, or none */
    struct ssh_jump_leg *leg;   /* the ProxyJump leg the socket rides on, or NULL */
    struct cp_ssh_session *hop; /* the session that leg goes through, or NULL */
    long alive_interval;
    char *alias;
    LIBSSH2_CHANNEL *warm[CP_SSH_MAX_WARM]; /* far shells started, waiting for a command */
    size_t nwarm;
    /* A kept session's (the keeper's): a channel let go during a run is closed without waiting
     * for the far side's answer, which cp_ssh_closes_finish waits for after the run answered. */
    bool defer_closes;
    bool run_closing; /* the run's transport lets go (the far lock's release) */
    LIBSSH2_CHANNEL *closing[CP_SSH_MAX_CLOSING];
    size_t nclosing;
    int stop_fd; /* readable when the run is to stop (a signal, or the keeper's client); -1 */
};

/* Connects (TCP, ProxyCommand through /bin/sh -c, or ProxyJump through the hops' own
 * sessions), checks the host key against known_hosts, and authenticates with the agent, then
 * with key files that need no passphrase. Never prompts; never forwards anything.
 * fs resolves ProxyJump hops from the same config as h; *out is the caller's. */
int cp_ssh_connect(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                   struct cp_ssh_session **out, cp_error_t *err);
/* cp_ssh_connect, with the next step set for each way a connection fails: the name not
 * found, refused, no answer in time. */
int cp_ssh_connect_words(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                         struct cp_ssh_session **out, cp_error_t *err);
void cp_ssh_session_free(struct cp_ssh_session *s);
void cp_cleanup_ssh_session(struct cp_ssh_session **s);
#define cleanup_ssh_session __attribute__((cleanup(cp_cleanup_ssh_session)))

/* The session's host key checked against known_hosts again, as at its connect. */
int cp_ssh_recheck_host_key(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err);

#endif
