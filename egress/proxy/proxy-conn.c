/* A connection's primitives, which every stage uses: its sides' epoll interest, and the
 * interest each stage wants, set again after every event; a side closed; the TLS watch let go;
 * the connection ended, and its memory freed once no event of the batch can name it. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "egress/proxy/proxy-int.h"

void cp_proxy_watch(struct proxy *p, struct side *s, uint32_t events)
{
    if (s->fd < 0 || s->events == events)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = s};
    /* The fd is added on creation with events 0 standing for "registered, nothing wanted". */
    epoll_ctl(p->epfd, EPOLL_CTL_MOD, s->fd, &ev);
    s->events = events;
}

int cp_proxy_watch_add(struct proxy *p, struct side *s, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = s};
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, s->fd, &ev) < 0)
        return -1;
    s->events = events;
    return 0;
}

void cp_proxy_side_close(struct proxy *p, struct side *s)
{
    if (s->fd < 0)
        return;
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, s->fd, NULL);
    close(s->fd);
    s->fd = -1;
    s->events = 0;
}

void cp_proxy_tls_watch_end(struct conn *c)
{
    if (c->watch == NULL)
        return;
    cp_tls_watch_dispose(c->watch);
    free(c->watch);
    c->watch = NULL;
}

/* What a connection's stages hold besides its sockets: the resolver's job, the head, the
 * ClientHello, the TLS watch and both flows; a refusal and a kill both let them go. */
void cp_proxy_conn_drop_work(struct conn *c)
{
    cp_proxy_tls_watch_end(c);
    if (c->job != NULL)
        cp_egress_resolver_cancel(c->job);
    c->job = NULL;
    free(c->head);
    c->head = NULL;
    free(c->hello);
    c->hello = NULL;
    cp_proxy_flow_dispose(&c->up);
    cp_proxy_flow_dispose(&c->down);
}

/* Closes everything now; the memory goes after the current batch of events, which may still
 * name this connection. */
void cp_proxy_conn_kill(struct proxy *p, struct conn *c)
{
    if (c->state == ST_DEAD)
        return;
    cp_proxy_side_close(p, &c->client);
    cp_proxy_side_close(p, &c->upstream);
    cp_proxy_conn_drop_work(c);
    c->state = ST_DEAD;
    if (c->prev)
        c->prev->next = c->next;
    else
        p->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->next = p->dead;
    p->dead = c;
    p->nconns--;
}

void cp_proxy_bury_dead(struct proxy *p)
{
    while (p->dead != NULL) {
        struct conn *c = p->dead;
        p->dead = c->next;
        free(c);
    }
}

static void update_watch(struct proxy *p, struct conn *c)
{
    uint32_t cl = 0, up = 0;
    switch (c->state) {
    case ST_HEAD:
    case ST_LINGER:
    case ST_RESOLVING:
        cl = EPOLLIN;
        break;
    case ST_REFUSING:
        cl = EPOLLOUT;
        break;
    case ST_DIALING:
        cl = EPOLLIN;
        up = EPOLLOUT;
        break;
    case ST_ASKING:
        cl = EPOLLIN;
        up = c->up.len > 0 ? EPOLLOUT : EPOLLIN;
        break;
    case ST_HELLO:
        /* The server is not read until the hello has passed. */
        cl = c->down.len > 0 ? EPOLLOUT : EPOLLIN;
        break;
    case ST_TUNNEL:
        cl = (!cp_proxy_flow_pending(&c->up) && !c->up.eof ? EPOLLIN : 0) |
             (cp_proxy_flow_pending(&c->down) ? EPOLLOUT : 0);
        up = (!cp_proxy_flow_pending(&c->down) && !c->down.eof ? EPOLLIN : 0) |
             (cp_proxy_flow_pending(&c->up) ? EPOLLOUT : 0);
        break;
    default:
        break;
    }
    cp_proxy_watch(p, &c->client, cl);
    cp_proxy_watch(p, &c->upstream, up);
}

void cp_proxy_after_event(struct proxy *p, struct conn *c)
{
    if (c->state == ST_TUNNEL && cp_proxy_tunnel_done(c))
        cp_proxy_conn_kill(p, c);
    if (c->state != ST_DEAD)
        update_watch(p, c);
}
