/* A flow: the bytes from one side on their way to the other that a slow reader left behind,
 * in a buffer (our answers, the ClientHello, copies) or in a pipe the flow took over; whether
 * any wait, written out, let go; and whether a tunnel's two flows have both ended. The lowest
 * of the proxy loop's files: it calls none of the others. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/proxy/proxy-int.h"
#include "src/base/util.h"

void cp_proxy_close_pipe(int pipe_fds[2])
{
    for (int i = 0; i < 2; i++) {
        if (pipe_fds[i] >= 0)
            close(pipe_fds[i]);
        pipe_fds[i] = -1;
    }
}

void cp_proxy_flow_dispose(struct flow *f)
{
    free(f->buf);
    f->buf = NULL;
    f->off = f->len = 0;
    cp_proxy_close_pipe(f->pipe);
    f->piped = 0;
}

bool cp_proxy_flow_pending(const struct flow *f)
{
    return f->len > 0 || f->piped > 0;
}

void cp_proxy_flow_set_text(struct flow *f, const char *text, size_t len)
{
    cp_proxy_flow_dispose(f);
    f->buf = xmalloc(len);
    memcpy(f->buf, text, len);
    f->len = len;
}

/* Writes what a flow holds to fd; -1 when the peer is gone. */
int cp_proxy_flow_write(struct flow *f, int fd)
{
    while (f->len > 0) {
        ssize_t n = send(fd, f->buf + f->off, f->len, MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        f->off += (size_t)n;
        f->len -= (size_t)n;
    }
    cp_proxy_flow_dispose(f);
    return 0;
}

bool cp_proxy_tunnel_done(const struct conn *c)
{
    return c->up.eof && !cp_proxy_flow_pending(&c->up) && c->down.eof &&
           !cp_proxy_flow_pending(&c->down);
}
