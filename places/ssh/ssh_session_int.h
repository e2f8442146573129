/* What the session, its transports and exec share; not for other modules. */
#ifndef CONCH_SSH_SESSION_INT_H
#define CONCH_SSH_SESSION_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "places/ssh/ssh_handles.h"
#include "places/ssh/ssh_session.h"

/* A ProxyJump leg: bytes pumped between a direct-tcpip channel of the hop's session and one
 * end of a socket pair, by a thread that alone uses the hop's session while it runs. */
struct ssh_pump {
    struct cp_ssh_session *hop;
    LIBSSH2_CHANNEL *channel;
    int fd;      /* our end of the pair */
    int stop[2]; /* a pipe: written to stop the thread */
    pthread_t thread;
    bool running;
};

#define CP_SSH_MAX_WARM 2

struct cp_ssh_session {
    LIBSSH2_SESSION *lib;
    int fd;
    pid_t proxy_pid; /* a ProxyCommand's process, or -1 */
    struct ssh_pump *pump;
    long alive_interval;
    char *alias;
    LIBSSH2_CHANNEL *warm[CP_SSH_MAX_WARM]; /* far shells started, waiting for a command */
    size_t nwarm, warm_want;
    int stop_fd; /* readable when the run is to stop (a signal, or the keeper's client); -1 */
};

/* The session's host key checked against known_hosts again, as at its connect. */
int cp_ssh_recheck_host_key(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err);

/* Keeps want warm channels ready (at most CP_SSH_MAX_WARM), refilled as they are taken. */
void cp_ssh_warm(struct cp_ssh_session *s, size_t want);
/* Closes the warm channels and keeps no more. */
void cp_ssh_warm_drop(struct cp_ssh_session *s);
/* A channel running command: a warm one when there is one, else a new one. NULL on failure,
 * with err set. The channel is the caller's. */
LIBSSH2_CHANNEL *cp_ssh_channel_exec(struct cp_ssh_session *s, const char *command,
                                     cp_error_t *err);

/* The byte stream a session rides on: TCP, ProxyCommand, or a channel of a hop. */
int ssh_transport_tcp(const char *host, long port, long timeout, int *fd_out, cp_error_t *err);
int ssh_transport_command(const char *command, int *fd_out, pid_t *pid_out, cp_error_t *err);
int ssh_transport_jump(struct cp_ssh_session *hop, const char *host, long port,
                       struct ssh_pump **out, int *fd_out, cp_error_t *err);
void ssh_pump_free(struct ssh_pump *p);
void ssh_proxy_reap(pid_t pid);

/* The agent, then key files; CP_ERR_DENIED with a hint when nothing is accepted. */
int ssh_authenticate(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err);

/* A signal's name as the protocol sends it ("TERM") to its number; 127 when unknown. */
int cp_ssh_signal_number(const char *name);
/* The exit status of a closed channel, or 128 + the signal that ended it. */
int cp_ssh_channel_status(LIBSSH2_CHANNEL *ch);

/* Seconds without a byte from the far side before a transfer is given up, when the config
 * sets no ServerAliveInterval (with one: four intervals). */
#define CP_SSH_IDLE_TIMEOUT 120
/* Polls the session's socket for the direction libssh2 waits on, sending keepalives;
 * *last_progress moves on when it can. -1 once nothing moved for the idle limit. */
/* -1 past the idle limit, -2 when stop_fd became readable (the run is to stop). */
int cp_ssh_wait_socket(struct cp_ssh_session *s, time_t *last_progress);

#endif
