/* After the 200: the ClientHello, read whole (bounded) and checked for the CONNECT's name; then
 * the tunnel either leaves for a worker that ends its TLS (terminate.h) or stays blind here,
 * watched until the server's ServerHello (watch.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "egress/proxy/hello.h"
#include "egress/proxy/proxy-int.h"
#include "src/base/util.h"

#define HELLO_FIRST 2048 /* most hellos fit; the buffer doubles up to CP_TLS_HELLO_MAX */

/* A read or write host's tunnel leaves the loop here, its name checked: both sockets and the
 * hello's bytes go to a worker of its own (terminate.h), which ends the box's TLS. */
static void hand_off(struct proxy *p, struct conn *c)
{
    struct cp_egress_handoff h = {
        .client_fd = c->client.fd,
        .upstream_fd = c->upstream.fd,
        .hello = c->hello,
        .hello_len = c->hello_len,
        .mode = c->mode,
        .port = c->port,
    };
    snprintf(h.host, sizeof(h.host), "%s", c->name);
    snprintf(h.box, sizeof(h.box), "%s", c->box);
    cp_ip_format(&c->addrs[c->next_addr], h.addr, sizeof(h.addr));
    if (c->via)
        snprintf(h.via, sizeof(h.via), "%s:%u", p->cfg->upstream->host, p->cfg->upstream->port);
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, c->client.fd, NULL);
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, c->upstream.fd, NULL);
    c->client.fd = c->upstream.fd = -1;
    c->hello = NULL;
    cp_proxy_conn_kill(p, c);
    cleanup_error cp_error_t err = NULL;
    if (cp_egress_terminate_start(&p->term, &h, &err) < 0)
        cp_error_print(&err);
}

void cp_proxy_read_hello(struct proxy *p, struct conn *c)
{
    if (c->hello_len == c->hello_cap) {
        /* Never full at the bound: the check decides at CP_TLS_HELLO_MAX bytes. */
        size_t cap = c->hello_cap ? 2 * c->hello_cap : HELLO_FIRST;
        c->hello_cap = cap < CP_TLS_HELLO_MAX ? cap : CP_TLS_HELLO_MAX;
        c->hello = xrealloc(c->hello, c->hello_cap);
    }
    ssize_t n = recv(c->client.fd, c->hello + c->hello_len, c->hello_cap - c->hello_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        cp_proxy_conn_kill(p, c); /* gone without a word after the 200 */
        return;
    }
    c->hello_len += (size_t)n;
    enum cp_egress_reason reason;
    char sni[256];
    if (cp_tls_hello_check(c->hello, c->hello_len, c->name, &reason, sni, sizeof(sni)) == 1)
        return;
    if (reason == CP_EGRESS_ALLOWED && c->mode != CP_EGRESS_MODE_PASS && p->cfg->tls != NULL) {
        cp_proxy_log_decision(p, c, CP_EGRESS_ALLOWED, &c->addrs[c->next_addr], NULL);
        hand_off(p, c);
        return;
    }
    /* The hello passed; from here every byte the client sends goes through the watch, which
     * judges the bytes that came with the hello too (a second hello in the same packet). */
    if (reason == CP_EGRESS_ALLOWED) {
        c->watch = xcalloc(1, sizeof(*c->watch));
        reason = cp_tls_watch_client(c->watch, c->hello, c->hello_len, c->name, sni, sizeof(sni));
    }
    if (reason != CP_EGRESS_ALLOWED) {
        cp_proxy_refuse_hello(p, c, reason, sni[0] ? sni : NULL);
        return;
    }
    cp_proxy_log_decision(p, c, CP_EGRESS_ALLOWED, &c->addrs[c->next_addr], NULL);
    /* The hello, and whatever followed it, goes on as the first bytes of the tunnel. */
    c->up.buf = (char *)c->hello;
    c->up.off = 0;
    c->up.len = c->hello_len;
    c->hello = NULL;
    c->state = ST_TUNNEL;
    c->deadline = p->now + p->cfg->idle_timeout_ms;
    cp_proxy_flush_flow(p, c, &c->up, &c->upstream);
}
