/* Connections: accepted in batches up to the limit (past it answered "busy", past that closed),
 * and held to their stages' deadlines by a sweep, which also takes the lookups' answers; and
 * the proxy's own idle exit. Above every stage, below only the loop. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/proxy/proxy-int.h"
#include "src/base/util.h"

#define ACCEPT_BATCH    64
#define EMFILE_PAUSE_MS 100
#define BUSY_EXTRA      64 /* past the limit: answered 503 rather than dropped */

static struct conn *conn_new(struct proxy *p, int fd)
{
    struct conn *c = xcalloc(1, sizeof(*c));
    c->client = (struct side){.c = c, .fd = fd};
    c->upstream = (struct side){.c = c, .fd = -1};
    c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
    c->head = xmalloc(CP_EGRESS_HEAD_MAX + 1);
    c->state = ST_HEAD;
    c->deadline = p->now + p->cfg->head_timeout_ms;
    if (cp_proxy_watch_add(p, &c->client, EPOLLIN) < 0) {
        close(fd);
        free(c->head);
        free(c);
        return NULL;
    }
    c->next = p->conns;
    if (p->conns)
        p->conns->prev = c;
    p->conns = c;
    p->nconns++;
    p->served = true;
    return c;
}

void cp_proxy_accept_some(struct proxy *p)
{
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        int fd = accept4(p->listener.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* Out of descriptors: stop asking for a moment instead of spinning. */
                cp_proxy_watch(p, &p->listener, 0);
                p->accept_resume = p->now + EMFILE_PAUSE_MS;
            }
            return;
        }
        if (p->nconns + cp_egress_terminate_active() >= p->cfg->max_conns + BUSY_EXTRA) {
            close(fd); /* past even the room kept for saying "busy" */
            continue;
        }
        bool busy = p->nconns + cp_egress_terminate_active() >= p->cfg->max_conns;
        struct conn *c = conn_new(p, fd);
        if (c != NULL && busy) {
            /* Told through the usual refusal, which lingers so the answer is not reset. */
            cp_proxy_refuse(p, c, CP_EGRESS_BUSY, NULL);
            cp_proxy_after_event(p, c);
        }
    }
}

static void expire(struct proxy *p, struct conn *c)
{
    if (c->state == ST_HEAD)
        cp_proxy_refuse(p, c, CP_EGRESS_HEAD_TIMEOUT, NULL);
    else if (c->state == ST_RESOLVING || c->state == ST_DIALING || c->state == ST_ASKING)
        cp_proxy_refuse(p, c, CP_EGRESS_DIAL_TIMEOUT, NULL);
    else if (c->state == ST_HELLO)
        cp_proxy_refuse_hello(p, c, CP_EGRESS_HELLO_TIMEOUT, NULL);
    else
        cp_proxy_conn_kill(p, c); /* an idle tunnel, or a refused client that will not read */
    cp_proxy_after_event(p, c);
}

void cp_proxy_sweep(struct proxy *p)
{
    if (p->now < p->next_sweep)
        return;
    p->next_sweep = p->now + SWEEP_MS;
    cp_proxy_take_answers(p); /* the lookups' own time-outs */
    for (struct conn *c = p->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (p->now >= c->deadline)
            expire(p, c);
    }
    if (p->accept_resume != 0 && p->now >= p->accept_resume) {
        p->accept_resume = 0;
        cp_proxy_watch(p, &p->listener, EPOLLIN);
    }
}

/* A sidecar is made for a run whose box comes next: until its first client it waits at least
 * FIRST_CLIENT_GRACE_MS, however short its idle time, or a box slow to start on a busy machine
 * finds it gone (measured: a 2 s idle time, a box that took longer, the run ended 125). */
#define FIRST_CLIENT_GRACE_MS 60000u

bool cp_proxy_idle_exit_due(struct proxy *p)
{
    if (p->nconns > 0 || cp_egress_terminate_active() > 0 || p->cfg->exit_idle_ms == 0) {
        p->idle_since = p->now;
        return false;
    }
    uint64_t wait = p->cfg->exit_idle_ms;
    if (!p->served && wait < FIRST_CLIENT_GRACE_MS)
        wait = FIRST_CLIENT_GRACE_MS;
    return p->now - p->idle_since >= wait;
}
