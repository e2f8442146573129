/* The CONNECT head: read whole (bounded), judged (the credential, the list), then the name
 * looked up (through the upstream proxy's name when one applies), the lookups' answers taken
 * as they come, and the addresses judged before the dial (proxy-dial.c). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress/proxy/proxy-int.h"

void cp_proxy_resolved(struct proxy *p, struct conn *c, const struct cp_egress_answer *a)
{
    c->job = NULL;
    if (!a->ok) {
        cp_proxy_refuse(p, c, c->via ? CP_EGRESS_UPSTREAM : CP_EGRESS_DNS, NULL);
        return;
    }
    size_t bad = 0;
    /* The upstream proxy's own address is the operator's choice and may well be private. */
    if (!c->via &&
        cp_egress_policy_check_addrs(p->cfg->policy, a->addrs, a->n, &bad) != CP_EGRESS_ALLOWED) {
        cp_proxy_refuse(p, c, CP_EGRESS_SPECIAL_ADDRESS, &a->addrs[bad]);
        return;
    }
    memcpy(c->addrs, a->addrs, a->n * sizeof(a->addrs[0]));
    c->naddrs = a->n;
    c->next_addr = 0;
    c->state = ST_DIALING;
    cp_proxy_dial_next(p, c);
}

static void resolve(struct proxy *p, struct conn *c)
{
    const struct cp_egress_upstream *up = p->cfg->upstream;
    struct cp_egress_answer a;
    /* A pinned name is a route of its own; NO_PROXY names go direct too. */
    c->via = up != NULL && cp_egress_upstream_applies(up, c->name) &&
             cp_egress_policy_pinned(p->cfg->policy, c->name) == NULL;
    c->dial_port = c->via ? up->port : c->port;
    c->state = ST_RESOLVING;
    c->deadline = p->now + p->cfg->dial_timeout_ms;
    if (c->via && cp_ip_parse(up->host, &a.addrs[0]) == 0) {
        a.n = 1;
        a.ok = 1;
        cp_proxy_resolved(p, c, &a);
        return;
    }
    if (cp_egress_resolver_submit(p->resolver, c->via ? up->host : c->name, c, &a, &c->job) == 1)
        cp_proxy_resolved(p, c, &a);
}

static void decide(struct proxy *p, struct conn *c, const struct cp_egress_request *req,
                   enum cp_egress_reason reason)
{
    bool authorised = cp_egress_auth_check(p->cfg->secret, req->auth, c->box);
    c->is_host = req->host[0] != '\0' && req->port != 0;
    snprintf(c->name, sizeof(c->name), "%s", c->is_host ? req->host : req->target);
    c->port = req->port;
    c->mode = cp_egress_policy_mode(p->cfg->policy, req->host);
    if (!authorised)
        reason = CP_EGRESS_AUTH;
    else if (reason == CP_EGRESS_ALLOWED && !cp_egress_policy_listed(p->cfg->policy, req->host))
        reason = CP_EGRESS_NOT_LISTED;
    if (reason != CP_EGRESS_ALLOWED) {
        cp_proxy_refuse(p, c, reason, NULL);
        return;
    }
    free(c->head);
    c->head = NULL;
    resolve(p, c);
}

void cp_proxy_read_head(struct proxy *p, struct conn *c)
{
    /* One byte past the maximum, so a head that fills it is seen to be too big. */
    ssize_t n = recv(c->client.fd, c->head + c->head_len, CP_EGRESS_HEAD_MAX + 1 - c->head_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        cp_proxy_conn_kill(p, c); /* gone before asking anything: no decision to log */
        return;
    }
    c->head_len += (size_t)n;
    struct cp_egress_request req;
    enum cp_egress_reason reason = CP_EGRESS_MALFORMED;
    if (cp_egress_parse_head(c->head, c->head_len, &req, &reason) == 1)
        return;
    decide(p, c, &req, reason);
}

void cp_proxy_take_answers(struct proxy *p)
{
    void *tag;
    struct cp_egress_answer a;
    while (cp_egress_resolver_take(p->resolver, &tag, &a) == 1) {
        struct conn *c = tag;
        cp_proxy_resolved(p, c, &a);
        cp_proxy_after_event(p, c);
    }
}
