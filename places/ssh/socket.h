/* The byte stream a session rides on (socket.c): a TCP connection, a ProxyCommand's standard
 * input and output, or a ProxyJump leg through a hop's session. */
#ifndef CONCH_SSH_SOCKET_H
#define CONCH_SSH_SOCKET_H

#include "src/base/error.h"
#include "src/base/spawn.h"

struct cp_ssh_session;
struct ssh_jump_leg;

/* A TCP connection to host:port within timeout seconds, in *fd_out. */
int ssh_socket_tcp(const char *host, long port, long timeout, int *fd_out, cp_error_t *err);
/* `/bin/sh -c command` on the other end of a socket pair; its process in *proxy_out (empty
 * before), which cp_child_dispose ends (SIGTERM) and reaps. */
int ssh_socket_command(const char *command, int *fd_out, struct cp_child *proxy_out,
                       cp_error_t *err);

/* A ProxyJump leg: a direct-tcpip channel of hop to host:port, its bytes pumped (pump.h) to
 * the other end of a socket pair (*fd_out) by a thread that alone uses hop while it runs.
 * hop stays the caller's and must outlive the leg. */
int ssh_socket_jump(struct cp_ssh_session *hop, const char *host, long port,
                    struct ssh_jump_leg **out, int *fd_out, cp_error_t *err);
/* Stops the leg's thread, then frees its channel (hop is left to its owner). */
void ssh_jump_leg_free(struct ssh_jump_leg *l);

#endif
