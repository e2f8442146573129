/* The one channel pump (pump.h). Each step moves what is ready now, one chunk each way and
 * each buffered, so a sink that cannot take more never keeps the far side's bytes from being
 * read, nor the far side's window from taking ours; a step that moved nothing waits on every
 * descriptor that could make the next one move. */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "places/ssh/pump.h"
#include "places/ssh/session.h"
#include "src/base/util.h"

#define CHUNK 32768

struct dir {
    char buf[CHUNK];
    size_t len, off;
    bool eof;
};

struct pump {
    const struct ssh_pump_io *io;
    struct dir up;      /* in_fd -> the channel's standard input */
    struct dir down[2]; /* the channel's standard output and error -> their sinks */
};

static bool sink_on(const struct ssh_pump_sink *k)
{
    return k->put != NULL || k->fd >= 0;
}

/* What the sink took of buf: all of it (put), what the descriptor took now, or -1. */
static ssize_t sink_take(const struct ssh_pump_sink *k, const char *buf, size_t len)
{
    if (k->put != NULL)
        return k->put(k->ctx, buf, len) < 0 ? -1 : (ssize_t)len;
    ssize_t w = write(k->fd, buf, len);
    if (w < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    return w;
}

/* One step of a stream coming here (0 standard output, 1 error); 1 progress, 0 none, -1 failed. */
static int step_down(struct pump *p, int stream)
{
    const struct ssh_pump_sink *k = stream == 0 ? &p->io->out : &p->io->err;
    struct dir *d = &p->down[stream];
    if (!sink_on(k))
        return 0;
    int progress = 0;
    if (d->off == d->len) {
        ssize_t n = libssh2_channel_read_ex(p->io->ch, stream == 0 ? 0 : SSH_EXTENDED_DATA_STDERR,
                                            d->buf, sizeof(d->buf));
        if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
            return -1;
        if (n > 0) {
            d->len = (size_t)n;
            d->off = 0;
            progress = 1;
        }
    }
    if (d->off < d->len) {
        ssize_t w = sink_take(k, d->buf + d->off, d->len - d->off);
        if (w < 0)
            return -1;
        d->off += (size_t)w;
        progress |= w > 0;
    }
    return progress;
}

/* Reads what in_fd has now (never waiting: it may be a terminal); at its end, EOF goes there. */
static int fill_up(struct pump *p)
{
    struct dir *u = &p->up;
    struct pollfd fd = {.fd = p->io->in_fd, .events = POLLIN};
    if (poll(&fd, 1, 0) <= 0)
        return 0;
    ssize_t n = read(p->io->in_fd, u->buf, sizeof(u->buf));
    if (n < 0 && errno != EINTR && errno != EAGAIN)
        return -1;
    if (n == 0) {
        u->eof = true;
        while (libssh2_channel_send_eof(p->io->ch) == LIBSSH2_ERROR_EAGAIN)
            ;
    }
    u->len = n > 0 ? (size_t)n : 0;
    u->off = 0;
    return n > 0;
}

/* One step of standard input going there; 1 progress, 0 none, -1 failed. */
static int step_up(struct pump *p)
{
    struct dir *u = &p->up;
    if (p->io->in_fd < 0)
        return 0;
    int progress = 0;
    if (u->off == u->len && !u->eof && (progress = fill_up(p)) < 0)
        return -1;
    if (u->off < u->len) {
        ssize_t w = libssh2_channel_write(p->io->ch, u->buf + u->off, u->len - u->off);
        if (w < 0 && w != LIBSSH2_ERROR_EAGAIN)
            return -1;
        if (w > 0) {
            u->off += (size_t)w;
            progress = 1;
        }
    }
    return progress;
}

static bool asked_to_stop(int stop_fd)
{
    struct pollfd p = {.fd = stop_fd, .events = POLLIN};
    return stop_fd >= 0 && poll(&p, 1, 0) > 0;
}

/* The far side ended its output and every byte of it went to its sink. */
static bool all_down(const struct pump *p)
{
    return libssh2_channel_eof(p->io->ch) && p->down[0].off == p->down[0].len &&
           p->down[1].off == p->down[1].len;
}

/* Waits on what could let the next step move: the socket, input wanted, a sink's room, a stop. */
static int wait_any(struct pump *p)
{
    const struct ssh_pump_io *io = p->io;
    bool want_in = io->in_fd >= 0 && !p->up.eof && p->up.off == p->up.len;
    struct pollfd fds[4] = {
        {.fd = want_in ? io->in_fd : -1, .events = POLLIN},
        {.fd = p->down[0].off < p->down[0].len ? io->out.fd : -1, .events = POLLOUT},
        {.fd = p->down[1].off < p->down[1].len ? io->err.fd : -1, .events = POLLOUT},
        {.fd = io->stop_fd, .events = POLLIN},
    };
    return ssh_pump_poll(io->s, io->keepalive, fds, 4, io->wait_ms) < 0 ? -1 : 0;
}

int ssh_pump_run(const struct ssh_pump_io *io)
{
    struct pump *p = xcalloc(1, sizeof(*p));
    p->io = io;
    libssh2_session_set_blocking(io->s->lib, 0);
    int rc = 0;
    while (rc == 0 && !all_down(p)) {
        if (asked_to_stop(io->stop_fd)) {
            rc = SSH_PUMP_STOPPED;
            break;
        }
        int a = step_down(p, 0), b = step_down(p, 1), c = step_up(p);
        if (a < 0 || b < 0 || c < 0)
            rc = -1;
        else if (a == 0 && b == 0 && c == 0)
            rc = wait_any(p);
    }
    /* What libssh2 still holds after the end: passed on too. */
    while (rc == 0 && (step_down(p, 0) > 0 || step_down(p, 1) > 0))
        ;
    free(p);
    return rc;
}

int ssh_pump_poll(struct cp_ssh_session *s, bool keepalive, struct pollfd *fds, size_t n, int ms)
{
    struct pollfd all[8];
    if (n > ARRAY_SIZE(all) - 1)
        n = ARRAY_SIZE(all) - 1;
    int dirs = libssh2_session_block_directions(s->lib);
    all[0] = (struct pollfd){.fd = s->fd, .events = POLLIN};
    if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
        all[0].events |= POLLOUT;
    for (size_t i = 0; i < n; i++)
        all[1 + i] = (struct pollfd){.fd = fds[i].fd, .events = fds[i].events};
    int next = 1;
    if (keepalive && s->alive_interval > 0)
        libssh2_keepalive_send(s->lib, &next);
    (void)next;
    int r = poll(all, n + 1, ms);
    for (size_t i = 0; i < n; i++)
        fds[i].revents = all[1 + i].revents;
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    return all[0].revents != 0 ? 1 : 0;
}
