/* The byte streams a session rides on (socket.h): a TCP connection with a time limit, a
 * ProxyCommand run by /bin/sh over a socket pair, or a ProxyJump leg: the target's session
 * rides on a socket pair whose other end a thread pumps into a direct-tcpip channel of the
 * hop's session, both directions buffered and non-blocking so neither side can wedge the other
 * (pump.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "places/ssh/pump.h"
#include "places/ssh/session.h"
#include "places/ssh/socket.h"
#include "src/base/spawn.h"
#include "src/base/util.h"

static int connect_one(const struct addrinfo *ai, long timeout, int *fd_out)
{
    cleanup_close int fd =
        socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0)
        return -errno;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)
        return -errno;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int r = poll(&p, 1, (int)(timeout * 1000));
    if (r == 0)
        return -ETIMEDOUT;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        return -errno;
    if (soerr != 0)
        return -soerr;
    int flags = fcntl(fd, F_GETFL);
    int on = 1;
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) < 0)
        return -errno;
    /* A run is a chain of small requests (a channel, its command, a lock's answer): with
     * Nagle each waited for the last one's acknowledgement, which the far side delays up to
     * 40 ms. Best effort: a socket without it is only slower. */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    *fd_out = steal_fd(&fd);
    return 0;
}

int ssh_socket_tcp(const char *host, long port, long timeout, int *fd_out, cp_error_t *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    char service[16];
    snprintf(service, sizeof(service), "%ld", port);
    int g = getaddrinfo(host, service, &hints, &res);
    if (g != 0)
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "cannot resolve %s: %s", host,
                             gai_strerror(g));
    int last = -EHOSTUNREACH;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next)
        if ((last = connect_one(ai, timeout, fd_out)) == 0)
            break;
    freeaddrinfo(res);
    if (last == -ETIMEDOUT)
        return cp_error_make(err, CP_ERR_TIMEOUT, 0, "%s port %ld did not answer within %ld s",
                             host, port, timeout);
    if (last < 0)
        return cp_error_make(err, CP_ERR_UNREACHABLE, -last, "cannot connect to %s port %ld", host,
                             port);
    return 0;
}

int ssh_socket_command(const char *command, int *fd_out, struct cp_child *proxy_out,
                       cp_error_t *err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a socket pair");
    /* The socket on its standard input and output, its standard error ours. */
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    const struct cp_spawn_opts opts = {.in = {.how = CP_STDIO_FD, .fd = sv[1]},
                                       .out = {.how = CP_STDIO_FD, .fd = sv[1]},
                                       .file = "/bin/sh",
                                       .default_signals = true,
                                       .stop_signal = SIGTERM,
                                       .what = "the ProxyCommand"};
    int r = cp_spawn(argv, &opts, proxy_out, err);
    close(sv[1]);
    if (r < 0) {
        close(sv[0]);
        return r;
    }
    *fd_out = sv[0];
    return 0;
}

/* ---- ProxyJump ---- */

struct ssh_jump_leg {
    struct cp_ssh_session *hop; /* borrowed: the leg's thread alone uses it while it runs */
    LIBSSH2_CHANNEL *channel;
    int fd;      /* our end of the pair */
    int stop[2]; /* a pipe: written to stop the thread */
    pthread_t thread;
    bool running;
};

static void *leg_main(void *arg)
{
    struct ssh_jump_leg *l = arg;
    const struct ssh_pump_io io = {.s = l->hop,
                                   .ch = l->channel,
                                   .in_fd = l->fd,
                                   .out = {.fd = l->fd},
                                   .err = {.fd = -1},
                                   .stop_fd = l->stop[0],
                                   .wait_ms = 1000};
    if (ssh_pump_run(&io) == 0)
        shutdown(l->fd, SHUT_WR); /* the far end's end, passed on */
    return NULL;
}

int ssh_socket_jump(struct cp_ssh_session *hop, const char *host, long port,
                    struct ssh_jump_leg **out, int *fd_out, cp_error_t *err)
{
    LIBSSH2_CHANNEL *ch =
        libssh2_channel_direct_tcpip_ex(hop->lib, host, (int)port, "127.0.0.1", 22);
    if (ch == NULL)
        return cp_ssh_lib_error(hop->lib, CP_ERR_UNREACHABLE, err,
                                "the jump host cannot reach the next host");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        libssh2_channel_free(ch);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a socket pair");
    }
    struct ssh_jump_leg *l = xcalloc(1, sizeof(*l));
    l->hop = hop;
    l->channel = ch;
    l->fd = sv[1];
    l->stop[0] = l->stop[1] = -1;
    fcntl(l->fd, F_SETFL, O_NONBLOCK);
    if (pipe2(l->stop, O_CLOEXEC) < 0 || pthread_create(&l->thread, NULL, leg_main, l) != 0) {
        int e = errno;
        close(sv[0]);
        l->hop = NULL;
        ssh_jump_leg_free(l);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot start the ProxyJump pump");
    }
    l->running = true;
    *out = l;
    *fd_out = sv[0];
    return 0;
}

void ssh_jump_leg_free(struct ssh_jump_leg *l)
{
    if (l == NULL)
        return;
    if (l->running) {
        (void)!write(l->stop[1], "x", 1);
        pthread_join(l->thread, NULL);
    }
    if (l->hop != NULL)
        libssh2_session_set_blocking(l->hop->lib, 1);
    if (l->channel != NULL)
        libssh2_channel_free(l->channel);
    for (int i = 0; i < 2; i++)
        if (l->stop[i] >= 0)
            close(l->stop[i]);
    if (l->fd >= 0)
        close(l->fd);
    free(l);
}
