/* The byte stream a session rides on (socket.c): a TCP connection, a ProxyCommand's standard
 * input and output, or a ProxyJump leg through a hop's session. */
#ifndef CONCH_SSH_SOCKET_H
#define CONCH_SSH_SOCKET_H

#include <sys/types.h>

#include "src/base/error.h"

struct cp_ssh_session;
struct ssh_jump_leg;

/* A TCP connection to host:port within timeout seconds, in *fd_out. */
int ssh_socket_tcp(const char *host, long port, long timeout, int *fd_out, cp_error_t *err);
/* `/bin/sh -c command` on the other end of a socket pair; its process in *pid_out. */
int ssh_socket_command(const char *command, int *fd_out, pid_t *pid_out, cp_error_t *err);
/* Ends a ProxyCommand's process (none when pid <= 0) and reaps it. */
void ssh_socket_reap(pid_t pid);

/* A ProxyJump leg: a direct-tcpip channel of hop to host:port, its bytes pumped (pump.h) to
 * the other end of a socket pair (*fd_out) by a thread that alone uses hop while it runs.
 * hop stays the caller's and must outlive the leg. */
int ssh_socket_jump(struct cp_ssh_session *hop, const char *host, long port,
                    struct ssh_jump_leg **out, int *fd_out, cp_error_t *err);
/* Stops the leg's thread, then frees its channel (hop is left to its owner). */
void ssh_jump_leg_free(struct ssh_jump_leg *l);

#endif
