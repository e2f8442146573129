/* ProxyJump: the target's session rides on a socket pair whose other end a thread pumps into
 * a direct-tcpip channel of the hop's session. Both directions are buffered and non-blocking,
 * so neither side can wedge the other. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "places/ssh/ssh_session_int.h"
#include "src/base/util.h"

#define PUMP_BUF 32768

struct pump_dir {
    char buf[PUMP_BUF];
    size_t len, off;
    bool eof;
};

struct pump_state {
    struct pump_dir down; /* channel -> our socket */
    struct pump_dir up;   /* our socket -> channel */
};

/* One step of each direction; 1 progress, 0 none, -1 failed. */
static int pump_down(struct ssh_pump *p, struct pump_dir *d)
{
    int progress = 0;
    if (d->len == d->off && !d->eof) {
        ssize_t n = libssh2_channel_read(p->channel, d->buf, sizeof(d->buf));
        if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
            return -1;
        if (n == 0 && libssh2_channel_eof(p->channel))
            d->eof = true;
        if (n > 0) {
            d->len = (size_t)n;
            d->off = 0;
            progress = 1;
        }
    }
    if (d->len > d->off) {
        ssize_t w = write(p->fd, d->buf + d->off, d->len - d->off);
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        if (w > 0) {
            d->off += (size_t)w;
            progress = 1;
        }
    }
    return progress;
}

static int pump_up(struct ssh_pump *p, struct pump_dir *u)
{
    int progress = 0;
    if (u->len == u->off && !u->eof) {
        ssize_t n = read(p->fd, u->buf, sizeof(u->buf));
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        if (n == 0) {
            u->eof = true;
            libssh2_channel_send_eof(p->channel);
        }
        if (n > 0) {
            u->len = (size_t)n;
            u->off = 0;
            progress = 1;
        }
    }
    if (u->len > u->off) {
        ssize_t w = libssh2_channel_write(p->channel, u->buf + u->off, u->len - u->off);
        if (w < 0 && w != LIBSSH2_ERROR_EAGAIN)
            return -1;
        if (w > 0) {
            u->off += (size_t)w;
            progress = 1;
        }
    }
    return progress;
}

/* Waits for the hop's socket, ours, or the stop pipe; false when asked to stop. */
static bool pump_wait(struct ssh_pump *p, const struct pump_state *st)
{
    int dirs = libssh2_session_block_directions(p->hop->lib);
    struct pollfd fds[3] = {
        {.fd = p->hop->fd,
         .events = (short)(((dirs & LIBSSH2_SESSION_BLOCK_INBOUND) ? POLLIN : 0) |
                           ((dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? POLLOUT : 0))},
        {.fd = p->fd,
         .events = (short)((st->up.len == st->up.off && !st->up.eof ? POLLIN : 0) |
                           (st->down.len > st->down.off ? POLLOUT : 0))},
        {.fd = p->stop[0], .events = POLLIN},
    };
    if (fds[0].events == 0)
        fds[0].events = POLLIN;
    if (poll(fds, 3, 1000) < 0 && errno != EINTR)
        return false;
    return (fds[2].revents & POLLIN) == 0;
}

static void *pump_main(void *arg)
{
    struct ssh_pump *p = arg;
    struct pump_state *st = xcalloc(1, sizeof(*st));
    libssh2_session_set_blocking(p->hop->lib, 0);
    for (;;) {
        int d = pump_down(p, &st->down);
        int u = pump_up(p, &st->up);
        if (d < 0 || u < 0)
            break;
        if (st->down.eof && st->down.len == st->down.off) {
            shutdown(p->fd, SHUT_WR);
            break;
        }
        if (d == 0 && u == 0 && !pump_wait(p, st))
            break;
    }
    free(st);
    return NULL;
}

int ssh_transport_jump(struct cp_ssh_session *hop, const char *host, long port,
                       struct ssh_pump **out, int *fd_out, cp_error_t *err)
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
    struct ssh_pump *p = xcalloc(1, sizeof(*p));
    p->hop = hop;
    p->channel = ch;
    p->fd = sv[1];
    p->stop[0] = p->stop[1] = -1;
    fcntl(p->fd, F_SETFL, O_NONBLOCK);
    if (pipe2(p->stop, O_CLOEXEC) < 0 || pthread_create(&p->thread, NULL, pump_main, p) != 0) {
        int e = errno;
        close(sv[0]);
        p->hop = NULL;
        ssh_pump_free(p);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot start the ProxyJump pump");
    }
    p->running = true;
    *out = p;
    *fd_out = sv[0];
    return 0;
}

/* Stops the thread, then frees the channel and the hop it rode on. */
void ssh_pump_free(struct ssh_pump *p)
{
    if (p == NULL)
        return;
    if (p->running) {
        (void)!write(p->stop[1], "x", 1);
        pthread_join(p->thread, NULL);
    }
    if (p->hop != NULL)
        libssh2_session_set_blocking(p->hop->lib, 1);
    if (p->channel != NULL)
        libssh2_channel_free(p->channel);
    for (int i = 0; i < 2; i++)
        if (p->stop[i] >= 0)
            close(p->stop[i]);
    if (p->fd >= 0)
        close(p->fd);
    cp_ssh_session_free(p->hop);
    free(p);
}
