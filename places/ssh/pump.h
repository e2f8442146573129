/* The one channel pump (pump.c): a channel's bytes moved both ways between the far side and
 * this process, a chunk in flight each way, never blocking on one side while the other waits.
 * A command's streams (exec.c) and a ProxyJump leg (socket.c) both ride on it; the mirror's
 * transport (mirror-transport.c) reads at its own pace but waits through ssh_pump_poll. */
#ifndef CONCH_SSH_PUMP_H
#define CONCH_SSH_PUMP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "places/ssh/handles.h"

struct cp_ssh_session;

/* Where one of the channel's output streams goes. With put: a sink of this process's own (our
 * standard output, a buffer) that takes each chunk whole or fails (-1). With fd instead: a
 * non-blocking descriptor that takes what it can now, the rest kept until it can take more.
 * Neither (put NULL, fd -1): the stream is not read. */
struct ssh_pump_sink {
    int (*put)(void *ctx, const void *buf, size_t len);
    void *ctx;
    int fd;
};

struct ssh_pump_io {
    struct cp_ssh_session *s; /* the session the channel rides on; the pump alone uses it */
    LIBSSH2_CHANNEL *ch;
    int in_fd; /* read to its end into the channel's standard input, then EOF; -1: none */
    struct ssh_pump_sink out, err; /* the channel's standard output and error */
    int stop_fd;                   /* readable: stop at once; -1: none */
    int wait_ms;    /* the longest wait on the sockets between steps (libssh2 may hold a read
                       packet that the socket no longer shows) */
    bool keepalive; /* send the session's keepalives (ServerAliveInterval) while waiting */
};

#define SSH_PUMP_STOPPED 1 /* ssh_pump_run: stop_fd became readable, the channel still open */

/* Pumps until the far side's end of output has all gone to the sinks (0), a stop
 * (SSH_PUMP_STOPPED), or a broken channel, socket or sink (-1: libssh2's error, if any, is the
 * session's). The session is left non-blocking. */
int ssh_pump_run(const struct ssh_pump_io *io);

/* Waits at most ms for the session's socket to move the way libssh2 waits on (reading always),
 * or for one of fds (their revents set), sending a keepalive first with keepalive. 1: the
 * socket moved; 0: it did not; -1: poll failed. */
int ssh_pump_poll(struct cp_ssh_session *s, bool keepalive, struct pollfd *fds, size_t n, int ms);

#endif
