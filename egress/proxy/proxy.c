/* The event loop: one epoll loop and one thread (proxy.h), which hands each event to the
 * stage its connection is in (proxy-int.h names the files), and the set-up and tear-down
 * around it. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "egress/proxy/proxy-int.h"
#include "src/base/clock.h"
#include "src/base/util.h"

void cp_egress_proxy_defaults(struct cp_egress_proxy_config *cfg)
{
    if (cfg->max_conns == 0)
        cfg->max_conns = 2048;
    if (cfg->head_timeout_ms == 0)
        cfg->head_timeout_ms = 10 * 1000;
    if (cfg->dial_timeout_ms == 0)
        cfg->dial_timeout_ms = 30 * 1000;
    if (cfg->idle_timeout_ms == 0)
        cfg->idle_timeout_ms = 10 * 60 * 1000;
}

static void on_client(struct proxy *p, struct conn *c, uint32_t ev)
{
    bool in = ev & (EPOLLIN | EPOLLHUP | EPOLLERR), out = ev & (EPOLLOUT | EPOLLERR);
    switch (c->state) {
    case ST_HEAD:
        if (in)
            cp_proxy_read_head(p, c);
        break;
    case ST_RESOLVING:
    case ST_DIALING:
    case ST_ASKING:
        if (in)
            cp_proxy_early_bytes(p, c);
        break;
    case ST_HELLO:
        if (out)
            cp_proxy_flush_flow(p, c, &c->down, &c->client); /* the rest of the 200 */
        if (c->state == ST_HELLO && in)
            cp_proxy_read_hello(p, c);
        break;
    case ST_TUNNEL:
        if (out)
            cp_proxy_flush_flow(p, c, &c->down, &c->client);
        if (c->state == ST_TUNNEL && in && c->up.eof && (ev & (EPOLLHUP | EPOLLERR)))
            cp_proxy_conn_kill(p, c); /* gone both ways, and nothing left to read from it */
        else if (c->state == ST_TUNNEL && in)
            cp_proxy_relay(p, c, &c->client, &c->up, &c->upstream);
        break;
    case ST_REFUSING:
        if (out || in)
            cp_proxy_flush_refusal(p, c);
        break;
    case ST_LINGER:
        cp_proxy_linger_drain(p, c);
        break;
    case ST_DEAD:
        break;
    }
}

static void on_upstream(struct proxy *p, struct conn *c, uint32_t ev)
{
    bool in = ev & (EPOLLIN | EPOLLHUP | EPOLLERR), out = ev & (EPOLLOUT | EPOLLERR);
    switch (c->state) {
    case ST_DIALING:
        cp_proxy_dial_check(p, c);
        return;
    case ST_ASKING:
        if (out && c->up.len > 0 && cp_proxy_flow_write(&c->up, c->upstream.fd) < 0)
            cp_proxy_refuse(p, c, CP_EGRESS_UPSTREAM, &c->addrs[c->next_addr]);
        else if (in)
            cp_proxy_read_upstream_answer(p, c);
        return;
    case ST_HELLO:
        if (ev & (EPOLLHUP | EPOLLERR))
            cp_proxy_conn_kill(p, c); /* the server left before the hello: nothing to carry */
        return;
    case ST_TUNNEL:
        break;
    default:
        return;
    }
    if (out)
        cp_proxy_flush_flow(p, c, &c->up, &c->upstream);
    if (c->state == ST_TUNNEL && in && c->down.eof && (ev & (EPOLLHUP | EPOLLERR)))
        cp_proxy_conn_kill(p, c);
    else if (c->state == ST_TUNNEL && in)
        cp_proxy_relay(p, c, &c->upstream, &c->down, &c->client);
}

/* The sign-in channel: at its end the table stays and the fd is no longer watched (a closed
 * pipe would otherwise wake the loop for ever). */
static void read_sign_ins(struct proxy *p)
{
    if (cp_egress_sign_ins_feed_read(&p->feed) == 0)
        return;
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->feed_side.fd, NULL);
    p->feed_side.fd = -1;
}

static void on_event(struct proxy *p, struct side *s, uint32_t ev)
{
    if (s == &p->listener) {
        cp_proxy_accept_some(p);
        return;
    }
    if (s == &p->resolver_side) {
        cp_proxy_take_answers(p);
        return;
    }
    if (s == &p->feed_side) {
        read_sign_ins(p);
        return;
    }
    struct conn *c = s->c;
    if (c->state == ST_DEAD)
        return;
    if (s == &c->client)
        on_client(p, c, ev);
    else
        on_upstream(p, c, ev);
    cp_proxy_after_event(p, c);
}

static int loop(struct proxy *p, cp_error_t *err)
{
    struct epoll_event events[128];
    while (p->cfg->stop == NULL || !*p->cfg->stop) {
        int n = epoll_wait(p->epfd, events, (int)ARRAY_SIZE(events), SWEEP_MS);
        if (n < 0 && errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "epoll_wait failed");
        p->now = (uint64_t)cp_now_ms();
        for (int i = 0; i < n; i++)
            on_event(p, events[i].data.ptr, events[i].events);
        cp_proxy_bury_dead(p);
        cp_proxy_sweep(p);
        cp_proxy_bury_dead(p);
        if (cp_proxy_idle_exit_due(p))
            break;
    }
    return 0;
}

static void proxy_dispose(struct proxy *p)
{
    while (p->conns != NULL)
        cp_proxy_conn_kill(p, p->conns);
    cp_proxy_bury_dead(p);
    cp_egress_resolver_free(p->resolver);
    if (p->epfd >= 0)
        close(p->epfd);
    cp_proxy_close_pipe(p->pipe);
    free(p->scratch);
    cp_egress_sign_ins_feed_dispose(&p->feed);
}

/* The channel is watched like a socket (a sidecar's standard input is a pipe). epoll refuses
 * a regular file or /dev/null with EPERM; reading those never blocks, so they are read whole
 * now, which lets a standalone proxy take its sign-ins from a file. */
static int watch_feed(struct proxy *p, cp_error_t *err)
{
    const struct cp_egress_proxy_config *cfg = p->cfg;
    if (cfg->sign_ins == NULL || cfg->sign_ins_fd < 0)
        return 0;
    if (cp_egress_sign_ins_feed_init(&p->feed, cfg->sign_ins_fd, cfg->sign_ins, cfg->log, err) < 0)
        return cp_error_code(err);
    p->feed_side = (struct side){.fd = cfg->sign_ins_fd};
    if (cp_proxy_watch_add(p, &p->feed_side, EPOLLIN) == 0)
        return 0;
    p->feed_side.fd = -1;
    if (errno != EPERM)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot watch fd %d for sign-ins",
                             cfg->sign_ins_fd);
    while (cp_egress_sign_ins_feed_read(&p->feed) == 0)
        ;
    return 0;
}

int cp_egress_proxy_run(int listen_fd, const struct cp_egress_proxy_config *cfg, cp_error_t *err)
{
    __attribute__((cleanup(proxy_dispose))) struct proxy p = {
        .cfg = cfg, .epfd = -1, .pipe = {-1, -1}};
    p.now = p.idle_since = (uint64_t)cp_now_ms();
    p.scratch = xmalloc(SCRATCH_SIZE);
    p.listener = (struct side){.fd = listen_fd};
    p.term = (struct cp_egress_terminate_config){
        .tls = cfg->tls,
        .log = cfg->log,
        .head_timeout_ms = cfg->head_timeout_ms,
        .idle_timeout_ms = cfg->idle_timeout_ms,
        .sign_ins = cfg->sign_ins,
    };
    p.feed_side.fd = -1;
    p.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (p.epfd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot create the epoll instance");
    if (cp_egress_resolver_new(cfg->policy, cfg->dns_servers, &p.resolver, err) < 0)
        return cp_error_code(err);
    p.resolver_side = (struct side){.fd = cp_egress_resolver_fd(p.resolver)};
    if (cp_proxy_watch_add(&p, &p.listener, EPOLLIN) < 0 ||
        cp_proxy_watch_add(&p, &p.resolver_side, EPOLLIN) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot watch the listening socket");
    if (watch_feed(&p, err) < 0)
        return cp_error_code(err);
    return loop(&p, err);
}
