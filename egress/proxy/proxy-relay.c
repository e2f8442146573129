/* A tunnel's bytes, carried in its flows (proxy-flow.c). An idle tunnel holds no buffer and no
 * pipe: bytes are spliced through one shared pipe (no copy through user space), and only what a
 * slow reader leaves behind is kept, in that pipe, which the tunnel then owns. Until the server's
 * ServerHello has gone by, a tunnel copies instead, so that the watch (watch.h) reads every later
 * ClientHello before it goes on. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/proxy/proxy-int.h"
#include "src/base/util.h"

#define PIPE_SIZE    (1024 * 1024) /* the shared pipe; measured with bench/egress-proxy */
#define RELAY_ROUNDS 4

/* The shared pipe; false when none can be had (out of descriptors): then bytes are copied. */
static bool shared_pipe(struct proxy *p)
{
    if (p->pipe[0] >= 0)
        return true;
    if (pipe2(p->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
        p->pipe[0] = p->pipe[1] = -1;
        return false;
    }
    fcntl(p->pipe[1], F_SETPIPE_SZ, PIPE_SIZE); /* a smaller pipe only costs calls */
    return true;
}

/* What a read from one side of a tunnel means: true when n bytes moved and the write may
 * follow; false after an error (the tunnel is ended), nothing to read yet, or the end of the
 * source (the half-close is passed on; the other way keeps flowing). */
static bool read_moved(struct proxy *p, struct conn *c, struct flow *f, struct side *to, ssize_t n)
{
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR)
            cp_proxy_conn_kill(p, c);
        return false;
    }
    c->deadline = p->now + p->cfg->idle_timeout_ms;
    if (n == 0) {
        f->eof = true;
        shutdown(to->fd, SHUT_WR);
        return false;
    }
    return true;
}

/* Shows the watch what one side sent; false when the tunnel was refused for it. The watch
 * ends with the server's ServerHello, and the tunnel splices from then on. */
static bool watched(struct proxy *p, struct conn *c, struct side *from, size_t n)
{
    const uint8_t *bytes = (const uint8_t *)p->scratch;
    if (c->watch == NULL)
        return true;
    if (from == &c->upstream) {
        cp_tls_watch_server(c->watch, bytes, n);
        if (cp_tls_watch_done(c->watch))
            cp_proxy_tls_watch_end(c);
        return true;
    }
    char sni[256];
    enum cp_egress_reason reason =
        cp_tls_watch_client(c->watch, bytes, n, c->name, sni, sizeof(sni));
    if (reason == CP_EGRESS_ALLOWED)
        return true;
    cp_proxy_refuse_later_hello(p, c, reason, sni);
    return false;
}

/* Moves bytes from one side to the other through the scratch buffer. */
static void relay_copy(struct proxy *p, struct conn *c, struct side *from, struct flow *f,
                       struct side *to)
{
    ssize_t n = recv(from->fd, p->scratch, SCRATCH_SIZE, 0);
    if (!read_moved(p, c, f, to, n) || !watched(p, c, from, (size_t)n))
        return;
    ssize_t w = send(to->fd, p->scratch, (size_t)n, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
        cp_proxy_conn_kill(p, c);
        return;
    }
    size_t sent = w > 0 ? (size_t)w : 0;
    if (sent < (size_t)n) {
        f->buf = xmalloc((size_t)n - sent);
        memcpy(f->buf, p->scratch + sent, (size_t)n - sent);
        f->len = (size_t)n - sent;
    }
}

/* Moves bytes from one side to the other through the shared pipe: splice(2) hands the pages
 * over instead of copying them. When the reader is slow, the tunnel takes the pipe with what
 * is left in it, and reads no more from this source until it is written. */
void cp_proxy_relay(struct proxy *p, struct conn *c, struct side *from, struct flow *f,
                    struct side *to)
{
    /* A few rounds a wake-up while the source keeps the pipe full: fewer epoll_wait calls. */
    for (int round = 0; round < RELAY_ROUNDS; round++) {
        if (cp_proxy_flow_pending(f) || f->eof)
            return;
        if (c->watch != NULL || !shared_pipe(p)) {
            relay_copy(p, c, from, f, to);
            return;
        }
        ssize_t n =
            splice(from->fd, NULL, p->pipe[1], NULL, PIPE_SIZE, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (!read_moved(p, c, f, to, n))
            return;
        ssize_t w =
            splice(p->pipe[0], NULL, to->fd, NULL, (size_t)n, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
            cp_proxy_close_pipe(p->pipe); /* it holds bytes nobody will read */
            cp_proxy_conn_kill(p, c);
            return;
        }
        size_t sent = w > 0 ? (size_t)w : 0;
        if (sent < (size_t)n) {
            memcpy(f->pipe, p->pipe, sizeof(f->pipe));
            f->piped = (size_t)n - sent;
            p->pipe[0] = p->pipe[1] = -1;
            return;
        }
        if (n < PIPE_SIZE)
            return; /* the source is drained for now */
    }
}

/* Writes what waits in the flow's pipe; -1 when the peer is gone. An emptied pipe becomes the
 * shared one again if there is none. */
static int pipe_write(struct proxy *p, struct flow *f, int fd)
{
    while (f->piped > 0) {
        ssize_t n = splice(f->pipe[0], NULL, fd, NULL, f->piped, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        f->piped -= (size_t)n;
    }
    if (p->pipe[0] < 0) {
        memcpy(p->pipe, f->pipe, sizeof(p->pipe));
        f->pipe[0] = f->pipe[1] = -1;
    }
    cp_proxy_close_pipe(f->pipe);
    return 0;
}

void cp_proxy_flush_flow(struct proxy *p, struct conn *c, struct flow *f, struct side *to)
{
    if (!cp_proxy_flow_pending(f))
        return;
    int r = f->len > 0 ? cp_proxy_flow_write(f, to->fd) : pipe_write(p, f, to->fd);
    if (r < 0) {
        cp_proxy_conn_kill(p, c);
        return;
    }
    c->deadline = p->now + p->cfg->idle_timeout_ms;
    if (!cp_proxy_flow_pending(f) && f->eof)
        shutdown(to->fd, SHUT_WR);
}
