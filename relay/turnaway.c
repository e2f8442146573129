/* Turning connections away from the door's loop: the answer sent without waiting, then up to
 * LINGER_MS of reading and discarding before the close, so the client reads the answer instead
 * of a reset. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay/request.h"
#include "relay/turnaway.h"
#include "src/base/clock.h"

#define LINGER_MS 200

static void drop(struct cp_turnaway *t, size_t i)
{
    close(t->fd[i]);
    t->n--;
    t->fd[i] = t->fd[t->n];
    t->until_ms[i] = t->until_ms[t->n];
}

/* Reads what is there without waiting; false once the client has closed (or failed). */
static bool drain(int fd)
{
    char sink[4096];
    for (;;) {
        ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
        if (n > 0)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    }
}

void cp_turnaway_add(struct cp_turnaway *t, int fd, const void *answer, size_t len)
{
    (void)drain(fd); /* a request already here would turn the close into a reset */
    (void)!send(fd, answer, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    if (t->n == CP_TURNAWAY_MAX) {
        size_t oldest = 0;
        for (size_t i = 1; i < t->n; i++)
            if (t->until_ms[i] < t->until_ms[oldest])
                oldest = i;
        drop(t, oldest);
    }
    t->fd[t->n] = fd;
    t->until_ms[t->n] = cp_now_ms() + LINGER_MS;
    t->n++;
}

size_t cp_turnaway_pollfds(const struct cp_turnaway *t, struct pollfd *p)
{
    for (size_t i = 0; i < t->n; i++)
        p[i] = (struct pollfd){.fd = t->fd[i], .events = POLLIN};
    return t->n;
}

void cp_turnaway_serve(struct cp_turnaway *t, const struct pollfd *p, size_t n)
{
    int64_t now = cp_now_ms();
    /* From the end: drop() moves the last entry into the slot it frees. */
    for (size_t i = n; i-- > 0;) {
        if (i >= t->n || t->fd[i] != p[i].fd)
            continue;
        bool open = p[i].revents == 0 || drain(t->fd[i]);
        if (!open || now >= t->until_ms[i])
            drop(t, i);
    }
}

void cp_turnaway_dispose(struct cp_turnaway *t)
{
    while (t->n > 0)
        drop(t, t->n - 1);
}

size_t cp_relay_refusal(char *out, size_t size, int status, const char *reason)
{
    char body[256];
    int blen = snprintf(body, sizeof(body), "conch-place relay: %s\n", reason);
    if (blen < 0 || (size_t)blen >= sizeof(body))
        blen = (int)sizeof(body) - 1;
    int n = snprintf(out, size,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                     "Cache-Control: no-store\r\nConnection: close\r\n%s\r\n%s",
                     status, cp_relay_status_text(status), blen,
                     status == 405   ? "Allow: GET\r\n"
                     : status == 503 ? "Retry-After: 1\r\n"
                                     : "",
                     body);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
