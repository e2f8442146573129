/* What the proxy loop's files share: a connection, its two sides and flows, the proxy, and the
 * steps each file takes for the others. Private to egress/proxy/proxy*.c.
 *
 * A connection walks HEAD -> RESOLVING -> DIALING [-> ASKING, through an upstream proxy] ->
 * HELLO -> TUNNEL, or leaves for REFUSING -> LINGER with an answer that says why. Every stage
 * has a deadline, every buffer a bound. The files stand in layers, each calling only those
 * below it: proxy-flow.c (a flow's buffered bytes and pipes) at the bottom; proxy-conn.c (a
 * connection's epoll interest, its sides closed, its end); proxy-refuse.c (every refusal and
 * the decision log); the stages: proxy-relay.c (the bytes of a tunnel), proxy-dial.c (the dial,
 * the upstream proxy, the 200), proxy-hello.c (the ClientHello, and the hand-off of a tunnel
 * whose TLS ends here), proxy-head.c (the CONNECT head, the verdict on the name and then on its
 * addresses); proxy-accept.c (accept, the connection limit, the deadlines); and proxy.c on top
 * (the loop that dispatches to them). */
#ifndef CONCH_EGRESS_PROXY_INT_H
#define CONCH_EGRESS_PROXY_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "egress/policy/policy.h"
#include "egress/proxy/proxy.h"
#include "egress/proxy/resolver.h"
#include "egress/sign-ins/sign-ins.h"
#include "egress/terminate/terminate.h"
#include "egress/proxy/watch.h"

#define SCRATCH_SIZE (64 * 1024)
#define SWEEP_MS     100
#define RESPONSE_MAX 4096

enum state {
    ST_HEAD,
    ST_RESOLVING,
    ST_DIALING,
    ST_ASKING, /* waiting for the upstream proxy's answer */
    ST_HELLO,  /* the 200 is sent; waiting for the ClientHello */
    ST_TUNNEL,
    ST_REFUSING,
    ST_LINGER,
    ST_DEAD
};

struct conn;

struct side {
    struct conn *c;
    int fd;
    uint32_t events; /* what epoll watches now */
};

/* Bytes from one side on their way to the other, kept only when the reader is slow: in buf
 * (our answers, the ClientHello, copies) or in a pipe the flow took over. */
struct flow {
    char *buf;
    size_t off, len;
    int pipe[2];  /* -1 unless bytes wait in it */
    size_t piped; /* bytes waiting in pipe */
    bool eof;     /* the source sent FIN; passed on once nothing waits */
};

struct conn {
    struct conn *prev, *next;
    struct side client, upstream;
    enum state state;
    uint64_t deadline;
    char *head; /* HEAD stage only */
    size_t head_len;
    char name[CP_EGRESS_TARGET_MAX + 1]; /* the host, or the target when it held none */
    bool is_host;
    unsigned port;
    char box[CP_EGRESS_BOX_MAX + 1];
    enum cp_egress_mode mode;
    struct cp_egress_job *job;
    bool via;           /* through the upstream proxy */
    unsigned dial_port; /* 443, or the upstream proxy's */
    uint8_t *hello;     /* HELLO stage only: the ClientHello's bytes so far */
    size_t hello_len, hello_cap;
    struct cp_tls_watch *watch; /* TUNNEL stage, until the server's ServerHello */
    struct cp_ip addrs[CP_EGRESS_ADDRS_MAX];
    size_t naddrs, next_addr;
    struct flow up, down; /* client to upstream; upstream to client (and our answers) */
    size_t discarded;
};

struct proxy {
    const struct cp_egress_proxy_config *cfg;
    int epfd;
    struct side listener;
    uint64_t accept_resume; /* 0 while accepting */
    struct cp_egress_resolver *resolver;
    struct side resolver_side;
    struct conn *conns, *dead;
    unsigned nconns;
    uint64_t now, next_sweep, idle_since;
    bool served; /* a client has come: the idle exit's own time applies from then on */
    char *scratch;
    int pipe[2]; /* the shared pipe, empty between uses; -1 until first needed */
    struct cp_egress_terminate_config term;
    struct cp_egress_sign_ins_feed feed;
    struct side feed_side; /* fd -1 when there is no channel, or once it ended */
};

/* proxy-flow.c: flows. */
void cp_proxy_close_pipe(int pipe_fds[2]);
void cp_proxy_flow_dispose(struct flow *f);
bool cp_proxy_flow_pending(const struct flow *f);
void cp_proxy_flow_set_text(struct flow *f, const char *text, size_t len);
int cp_proxy_flow_write(struct flow *f, int fd);
bool cp_proxy_tunnel_done(const struct conn *c);

/* proxy-conn.c: epoll interest, a connection's end. */
void cp_proxy_watch(struct proxy *p, struct side *s, uint32_t events);
int cp_proxy_watch_add(struct proxy *p, struct side *s, uint32_t events);
void cp_proxy_side_close(struct proxy *p, struct side *s);
void cp_proxy_tls_watch_end(struct conn *c);
void cp_proxy_conn_drop_work(struct conn *c);
void cp_proxy_conn_kill(struct proxy *p, struct conn *c);
void cp_proxy_bury_dead(struct proxy *p);
void cp_proxy_after_event(struct proxy *p, struct conn *c);

/* proxy-refuse.c: refusals, their answers, and the decision log. */
void cp_proxy_log_decision(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                           const struct cp_ip *addr, const char *sni);
void cp_proxy_refuse(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                     const struct cp_ip *addr);
void cp_proxy_refuse_hello(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                           const char *sni);
void cp_proxy_refuse_later_hello(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                                 const char *sni);
void cp_proxy_flush_refusal(struct proxy *p, struct conn *c);
void cp_proxy_linger_drain(struct proxy *p, struct conn *c);

/* proxy-relay.c: the tunnel's bytes. */
void cp_proxy_relay(struct proxy *p, struct conn *c, struct side *from, struct flow *f,
                    struct side *to);
void cp_proxy_flush_flow(struct proxy *p, struct conn *c, struct flow *f, struct side *to);

/* proxy-dial.c: the dial, the upstream proxy's answer, the 200. */
bool cp_proxy_early_bytes(struct proxy *p, struct conn *c);
void cp_proxy_dial_next(struct proxy *p, struct conn *c);
void cp_proxy_dial_check(struct proxy *p, struct conn *c);
void cp_proxy_read_upstream_answer(struct proxy *p, struct conn *c);

/* proxy-hello.c: the ClientHello after the 200. */
void cp_proxy_read_hello(struct proxy *p, struct conn *c);

/* proxy-head.c: the CONNECT head, its verdict, the lookups' answers. */
void cp_proxy_read_head(struct proxy *p, struct conn *c);
void cp_proxy_resolved(struct proxy *p, struct conn *c, const struct cp_egress_answer *a);
void cp_proxy_take_answers(struct proxy *p);

/* proxy-accept.c: accept, the limit, the deadlines, the idle exit. */
void cp_proxy_accept_some(struct proxy *p);
void cp_proxy_sweep(struct proxy *p);
bool cp_proxy_idle_exit_due(struct proxy *p);

#endif
