/* Refusals: the decision logged, an answer that says why (HTTP before the 200, a TLS alert
 * after it), then nothing more read that could be taken for a request, and a linger so the
 * answer is not reset away. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "egress/policy/policy.h"
#include "egress/proxy/proxy-int.h"
#include "src/base/util.h"

#define LINGER_MS     2000        /* after a refusal: time for the client to read it */
#define LINGER_BYTES  (64 * 1024) /* and what we discard meanwhile, unread */
#define TLS_ALERT_LEN 7

void cp_proxy_log_decision(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                           const struct cp_ip *addr, const char *sni)
{
    char text[64], via[sizeof(p->cfg->upstream->host) + 16];
    if (addr != NULL)
        cp_ip_format(addr, text, sizeof(text));
    if (c->via)
        snprintf(via, sizeof(via), "%s:%u", p->cfg->upstream->host, p->cfg->upstream->port);
    struct cp_egress_decision d = {
        .time = time(NULL),
        .box = c->box,
        .host = c->name,
        .port = c->port,
        .reason = reason,
        .addr = addr ? text : NULL,
        .sni = sni,
        .via = c->via ? via : NULL,
    };
    cleanup_error cp_error_t err = NULL;
    if (cp_egress_log_write(p->cfg->log, &d, &err) < 0)
        cp_error_print(&err); /* a full disk must not stop the proxy */
}

static size_t http_answer(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                          char *answer, size_t size)
{
    char host_port[CP_EGRESS_TARGET_MAX + 16];
    if (c->is_host)
        snprintf(host_port, sizeof(host_port), "%s:%u", c->name, c->port);
    else
        snprintf(host_port, sizeof(host_port), "%s", c->name[0] ? c->name : "the request");
    return cp_egress_response(reason, host_port, (const char *const *)p->cfg->policy->patterns.v,
                              p->cfg->policy->patterns.n, answer, size);
}

/* Logs, sends answer[0..len) (nothing when len is 0), closes the upstream, and from now on
 * reads nothing that could be taken for a request. */
static void refuse_with(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                        const struct cp_ip *addr, const char *sni, const char *answer, size_t len)
{
    cp_proxy_log_decision(p, c, reason, addr, sni);
    cp_proxy_side_close(p, &c->upstream);
    cp_proxy_conn_drop_work(c);
    if (len > 0)
        cp_proxy_flow_set_text(&c->down, answer, len);
    c->state = ST_REFUSING;
    c->deadline = p->now + LINGER_MS;
    cp_proxy_flush_refusal(p, c);
}

/* Before the 200: an HTTP answer that says why. */
void cp_proxy_refuse(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                     const struct cp_ip *addr)
{
    char answer[RESPONSE_MAX];
    size_t len = http_answer(p, c, reason, answer, sizeof(answer));
    refuse_with(p, c, reason, addr, NULL, answer, len);
}

void cp_proxy_flush_refusal(struct proxy *p, struct conn *c)
{
    if (cp_proxy_flow_write(&c->down, c->client.fd) < 0) {
        cp_proxy_conn_kill(p, c);
        return;
    }
    if (c->down.len > 0)
        return;
    /* Half-close and drain unread for a moment: closing with unread bytes would send a reset
     * that can destroy the answer before the client reads it. */
    shutdown(c->client.fd, SHUT_WR);
    c->state = ST_LINGER;
}

void cp_proxy_linger_drain(struct proxy *p, struct conn *c)
{
    ssize_t n = recv(c->client.fd, p->scratch, SCRATCH_SIZE, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    c->discarded += n > 0 ? (size_t)n : 0;
    if (n <= 0 || c->discarded > LINGER_BYTES)
        cp_proxy_conn_kill(p, c);
}

/* A fatal alert: unrecognized_name (112) for a name we will not serve; decode_error (50)
 * else. */
static size_t tls_alert(enum cp_egress_reason reason, char *out)
{
    bool name =
        reason == CP_EGRESS_SNI_MISMATCH || reason == CP_EGRESS_NO_SNI || reason == CP_EGRESS_ECH;
    const char alert[TLS_ALERT_LEN] = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, name ? 112 : 50};
    memcpy(out, alert, sizeof(alert));
    return sizeof(alert);
}

/* After the 200 the client expects TLS: a fatal alert is what its library can report. Plain
 * text gets the HTTP answer, which an HTTP client can show. */
void cp_proxy_refuse_hello(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                           const char *sni)
{
    char answer[RESPONSE_MAX];
    size_t len;
    if (c->hello_len > 0 && c->hello[0] != 0x16)
        len = http_answer(p, c, reason, answer, sizeof(answer));
    else
        len = reason == CP_EGRESS_HELLO_TIMEOUT ? 0 : tls_alert(reason, answer);
    refuse_with(p, c, reason, &c->addrs[c->next_addr], sni, answer, len);
}

/* A later ClientHello of the tunnel refused: the server never gets it whole, and the client,
 * still in its handshake, gets the alert. */
void cp_proxy_refuse_later_hello(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                                 const char *sni)
{
    char alert[TLS_ALERT_LEN];
    size_t len = tls_alert(reason, alert);
    refuse_with(p, c, reason, &c->addrs[c->next_addr], sni[0] ? sni : NULL, alert, len);
}
