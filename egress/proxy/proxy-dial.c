/* From the checked addresses to the 200: dial each in turn (the address checked, no second
 * lookup), ask the upstream proxy for a tunnel when one applies, and refuse any byte the box
 * sends before the answer. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "egress/proxy/proxy-int.h"
#include "src/base/log.h"
#include "src/base/util.h"

/* A byte before the 200, in any packet, is refused: nothing may ride ahead of the tunnel.
 * Returns true when it refused. */
bool cp_proxy_early_bytes(struct proxy *p, struct conn *c)
{
    char byte;
    ssize_t n = recv(c->client.fd, &byte, 1, MSG_PEEK);
    if (n > 0) {
        cp_proxy_refuse(p, c, CP_EGRESS_EARLY_DATA, NULL);
        return true;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        cp_proxy_conn_kill(p, c); /* gone before the answer: nothing was decided */
        return true;
    }
    return false;
}

static void tunnel_open(struct proxy *p, struct conn *c)
{
    static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    int one = 1;
    if (cp_proxy_early_bytes(p, c))
        return;
    setsockopt(c->client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(c->upstream.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    free(c->head);
    c->head = NULL;
    cp_proxy_flow_set_text(&c->down, ok, sizeof(ok) - 1);
    c->state = ST_HELLO;
    c->deadline = p->now + p->cfg->head_timeout_ms;
    if (cp_proxy_flow_write(&c->down, c->client.fd) < 0)
        cp_proxy_conn_kill(p, c);
}

static void ask_upstream(struct proxy *p, struct conn *c)
{
    char request[RESPONSE_MAX];
    size_t len = cp_egress_upstream_request(p->cfg->upstream, c->name, request, sizeof(request));
    cp_proxy_flow_set_text(&c->up, request, len);
    explicit_bzero(request, sizeof(request));
    c->state = ST_ASKING;
    if (len == 0 || cp_proxy_flow_write(&c->up, c->upstream.fd) < 0)
        cp_proxy_refuse(p, c, CP_EGRESS_UPSTREAM, &c->addrs[c->next_addr]);
}

/* The upstream's answer head, read whole before the 200; a byte past it is refused, since a
 * TLS server says nothing before the ClientHello. */
void cp_proxy_read_upstream_answer(struct proxy *p, struct conn *c)
{
    if (c->head == NULL) {
        c->head = xmalloc(CP_EGRESS_UPSTREAM_ANSWER_MAX);
        c->head_len = 0;
    }
    ssize_t n =
        recv(c->upstream.fd, c->head + c->head_len, CP_EGRESS_UPSTREAM_ANSWER_MAX - c->head_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        c->head_len += (size_t)n;
    int status = 0;
    size_t head_len = 0;
    int r = n <= 0 ? -1 : cp_egress_upstream_answer(c->head, c->head_len, &status, &head_len);
    if (r == 1)
        return;
    if (r < 0 || status / 100 != 2 || head_len != c->head_len) {
        cp_debug("upstream proxy answered HTTP %d for %s", status, c->name);
        cp_proxy_refuse(p, c, CP_EGRESS_UPSTREAM, &c->addrs[c->next_addr]);
        return;
    }
    tunnel_open(p, c);
}

void cp_proxy_dial_next(struct proxy *p, struct conn *c)
{
    for (; c->next_addr < c->naddrs; c->next_addr++) {
        const struct cp_ip *ip = &c->addrs[c->next_addr];
        struct sockaddr_storage ss = {0};
        socklen_t len;
        if (ip->family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&ss;
            in->sin_family = AF_INET;
            in->sin_port = htons((uint16_t)c->dial_port);
            memcpy(&in->sin_addr, ip->bytes, 4);
            len = sizeof(*in);
        } else {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            in6->sin6_family = AF_INET6;
            in6->sin6_port = htons((uint16_t)c->dial_port);
            memcpy(&in6->sin6_addr, ip->bytes, 16);
            len = sizeof(*in6);
        }
        int fd = socket(ip->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        c->upstream.fd = fd;
        if (cp_proxy_watch_add(p, &c->upstream, EPOLLOUT) < 0) {
            cp_proxy_side_close(p, &c->upstream);
            continue;
        }
        /* The address connected to is the one that was checked: no second lookup. */
        if (connect(fd, (struct sockaddr *)&ss, len) == 0 || errno == EINPROGRESS)
            return;
        cp_proxy_side_close(p, &c->upstream);
    }
    c->next_addr = 0;
    cp_proxy_refuse(p, c, c->via ? CP_EGRESS_UPSTREAM : CP_EGRESS_UNREACHABLE, NULL);
}

void cp_proxy_dial_check(struct proxy *p, struct conn *c)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (getsockopt(c->upstream.fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr != 0) {
        cp_proxy_side_close(p, &c->upstream);
        c->next_addr++;
        cp_proxy_dial_next(p, c);
        return;
    }
    if (c->via)
        ask_upstream(p, c);
    else
        tunnel_open(p, c);
}
