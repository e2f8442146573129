/* The event loop. A connection walks HEAD -> RESOLVING -> DIALING [-> ASKING, through an
 * upstream proxy] -> HELLO -> TUNNEL, or leaves for REFUSING -> LINGER with an answer that
 * says why. Every stage has a deadline, every buffer a bound; an idle tunnel holds no buffer
 * and no pipe: bytes are spliced through one shared pipe (no copy through user space), and
 * only what a slow reader leaves behind is kept, in that pipe, which the tunnel then owns.
 * Until the server's ServerHello has gone by, a tunnel copies instead, so that the watch
 * (watch.h) reads every later ClientHello before it goes on. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "places/egress/auth.h"
#include "places/egress/elog.h"
#include "places/egress/hello.h"
#include "places/egress/proxy.h"
#include "places/egress/request.h"
#include "places/egress/sign-ins-feed.h"
#include "places/egress/terminate.h"
#include "places/egress/watch.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define SCRATCH_SIZE    (64 * 1024)
#define LINGER_MS       2000        /* after a refusal: time for the client to read it */
#define LINGER_BYTES    (64 * 1024) /* and what we discard meanwhile, unread */
#define ACCEPT_BATCH    64
#define SWEEP_MS        100
#define EMFILE_PAUSE_MS 100
#define RESPONSE_MAX    4096
#define BUSY_EXTRA      64            /* past the limit: answered 503 rather than dropped */
#define PIPE_SIZE       (1024 * 1024) /* the shared pipe; measured with bench/egress-proxy */
#define RELAY_ROUNDS    4
#define TLS_ALERT_LEN   7
#define HELLO_FIRST     2048 /* most hellos fit; the buffer doubles up to CP_TLS_HELLO_MAX */

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
    char *scratch;
    int pipe[2]; /* the shared pipe, empty between uses; -1 until first needed */
    struct cp_egress_terminate_config term;
    struct cp_signins_feed feed;
    struct side feed_side; /* fd -1 when there is no channel, or once it ended */
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

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

/* ---- epoll bookkeeping ---- */

static void watch(struct proxy *p, struct side *s, uint32_t events)
{
    if (s->fd < 0 || s->events == events)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = s};
    /* The fd is added on creation with events 0 standing for "registered, nothing wanted". */
    epoll_ctl(p->epfd, EPOLL_CTL_MOD, s->fd, &ev);
    s->events = events;
}

static int watch_new(struct proxy *p, struct side *s, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = s};
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, s->fd, &ev) < 0)
        return -1;
    s->events = events;
    return 0;
}

static void side_close(struct proxy *p, struct side *s)
{
    if (s->fd < 0)
        return;
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, s->fd, NULL);
    close(s->fd);
    s->fd = -1;
    s->events = 0;
}

static void close_pipe(int pipe_fds[2])
{
    for (int i = 0; i < 2; i++) {
        if (pipe_fds[i] >= 0)
            close(pipe_fds[i]);
        pipe_fds[i] = -1;
    }
}

static void flow_dispose(struct flow *f)
{
    free(f->buf);
    f->buf = NULL;
    f->off = f->len = 0;
    close_pipe(f->pipe);
    f->piped = 0;
}

static bool flow_pending(const struct flow *f)
{
    return f->len > 0 || f->piped > 0;
}

static void watch_end(struct conn *c)
{
    if (c->watch == NULL)
        return;
    cp_tls_watch_dispose(c->watch);
    free(c->watch);
    c->watch = NULL;
}

/* Closes everything now; the memory goes after the current batch of events, which may still
 * name this connection. */
static void conn_kill(struct proxy *p, struct conn *c)
{
    if (c->state == ST_DEAD)
        return;
    side_close(p, &c->client);
    side_close(p, &c->upstream);
    watch_end(c);
    if (c->job != NULL)
        cp_egress_resolver_cancel(c->job);
    c->job = NULL;
    free(c->head);
    c->head = NULL;
    free(c->hello);
    c->hello = NULL;
    flow_dispose(&c->up);
    flow_dispose(&c->down);
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

static void bury_dead(struct proxy *p)
{
    while (p->dead != NULL) {
        struct conn *c = p->dead;
        p->dead = c->next;
        free(c);
    }
}

/* ---- decisions and answers ---- */

static void log_decision(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
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

static void set_flow_text(struct flow *f, const char *text, size_t len)
{
    flow_dispose(f);
    f->buf = xmalloc(len);
    memcpy(f->buf, text, len);
    f->len = len;
}

static void flush_refusal(struct proxy *p, struct conn *c);
static void after_event(struct proxy *p, struct conn *c);

static size_t http_answer(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                          char *answer, size_t size)
{
    char host_port[CP_EGRESS_TARGET_MAX + 16];
    if (c->is_host)
        snprintf(host_port, sizeof(host_port), "%s:%u", c->name, c->port);
    else
        snprintf(host_port, sizeof(host_port), "%s", c->name[0] ? c->name : "the request");
    return cp_egress_response(reason, host_port, (const char *const *)p->cfg->policy->patterns,
                              p->cfg->policy->npatterns, answer, size);
}

/* Logs, sends answer[0..len) (nothing when len is 0), closes the upstream, and from now on
 * reads nothing that could be taken for a request. */
static void refuse_with(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                        const struct cp_ip *addr, const char *sni, const char *answer, size_t len)
{
    log_decision(p, c, reason, addr, sni);
    side_close(p, &c->upstream);
    if (c->job != NULL)
        cp_egress_resolver_cancel(c->job);
    c->job = NULL;
    free(c->head);
    c->head = NULL;
    free(c->hello);
    c->hello = NULL;
    watch_end(c);
    flow_dispose(&c->up);
    flow_dispose(&c->down);
    if (len > 0)
        set_flow_text(&c->down, answer, len);
    c->state = ST_REFUSING;
    c->deadline = p->now + LINGER_MS;
    flush_refusal(p, c);
}

/* Before the 200: an HTTP answer that says why. */
static void refuse(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                   const struct cp_ip *addr)
{
    char answer[RESPONSE_MAX];
    size_t len = http_answer(p, c, reason, answer, sizeof(answer));
    refuse_with(p, c, reason, addr, NULL, answer, len);
}

/* Writes what a flow holds to fd; -1 when the peer is gone. */
static int flow_write(struct flow *f, int fd)
{
    while (f->len > 0) {
        ssize_t n = send(fd, f->buf + f->off, f->len, MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        f->off += (size_t)n;
        f->len -= (size_t)n;
    }
    flow_dispose(f);
    return 0;
}

static void flush_refusal(struct proxy *p, struct conn *c)
{
    if (flow_write(&c->down, c->client.fd) < 0) {
        conn_kill(p, c);
        return;
    }
    if (c->down.len > 0)
        return;
    /* Half-close and drain unread for a moment: closing with unread bytes would send a reset
     * that can destroy the answer before the client reads it. */
    shutdown(c->client.fd, SHUT_WR);
    c->state = ST_LINGER;
}

static void linger_drain(struct proxy *p, struct conn *c)
{
    ssize_t n = recv(c->client.fd, p->scratch, SCRATCH_SIZE, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    c->discarded += n > 0 ? (size_t)n : 0;
    if (n <= 0 || c->discarded > LINGER_BYTES)
        conn_kill(p, c);
}

/* ---- the tunnel ---- */

/* A byte before the 200, in any packet, is refused: nothing may ride ahead of the tunnel.
 * Returns true when it refused. */
static bool early_bytes(struct proxy *p, struct conn *c)
{
    char byte;
    ssize_t n = recv(c->client.fd, &byte, 1, MSG_PEEK);
    if (n > 0) {
        refuse(p, c, CP_EGRESS_EARLY_DATA, NULL);
        return true;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        conn_kill(p, c); /* gone before the answer: nothing was decided */
        return true;
    }
    return false;
}

static void tunnel_open(struct proxy *p, struct conn *c)
{
    static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    int one = 1;
    if (early_bytes(p, c))
        return;
    setsockopt(c->client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(c->upstream.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    free(c->head);
    c->head = NULL;
    set_flow_text(&c->down, ok, sizeof(ok) - 1);
    c->state = ST_HELLO;
    c->deadline = p->now + p->cfg->head_timeout_ms;
    if (flow_write(&c->down, c->client.fd) < 0)
        conn_kill(p, c);
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
static void refuse_hello(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
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
static void refuse_later_hello(struct proxy *p, struct conn *c, enum cp_egress_reason reason,
                               const char *sni)
{
    char alert[TLS_ALERT_LEN];
    size_t len = tls_alert(reason, alert);
    refuse_with(p, c, reason, &c->addrs[c->next_addr], sni[0] ? sni : NULL, alert, len);
}

static void flush_flow(struct proxy *p, struct conn *c, struct flow *f, struct side *to);

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
    conn_kill(p, c);
    cleanup_error cp_error_t err = NULL;
    if (cp_egress_terminate_start(&p->term, &h, &err) < 0)
        cp_error_print(&err);
}

static void read_hello(struct proxy *p, struct conn *c)
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
        conn_kill(p, c); /* gone without a word after the 200 */
        return;
    }
    c->hello_len += (size_t)n;
    enum cp_egress_reason reason;
    char sni[256];
    if (cp_tls_hello_check(c->hello, c->hello_len, c->name, &reason, sni, sizeof(sni)) == 1)
        return;
    if (reason == CP_EGRESS_ALLOWED && c->mode != CP_EGRESS_MODE_PASS && p->cfg->tls != NULL) {
        log_decision(p, c, CP_EGRESS_ALLOWED, &c->addrs[c->next_addr], NULL);
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
        refuse_hello(p, c, reason, sni[0] ? sni : NULL);
        return;
    }
    log_decision(p, c, CP_EGRESS_ALLOWED, &c->addrs[c->next_addr], NULL);
    /* The hello, and whatever followed it, goes on as the first bytes of the tunnel. */
    c->up.buf = (char *)c->hello;
    c->up.off = 0;
    c->up.len = c->hello_len;
    c->hello = NULL;
    c->state = ST_TUNNEL;
    c->deadline = p->now + p->cfg->idle_timeout_ms;
    flush_flow(p, c, &c->up, &c->upstream);
}

/* The shared pipe; false when none can be had (out of descriptors): then bytes are copied. */
static bool shared_pipe(struct proxy *p)
{
    if (p->pipe[0] >= 0)
        return true;
    if (pipe2(p->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
        p->pipe[0] = p->pipe[1] = -1;
        return false;
    }
    fcntl(p->pipe[1], F_SETPIPE_SZ, PIPE_SIZE); /* a smaller pipe only costs calls */
    return true;
}

/* What a read from one side of a tunnel means: true when n bytes moved and the write may
 * follow; false after an error (the tunnel is ended), nothing to read yet, or the end of the
 * source (the half-close is passed on; the other way keeps flowing). */
static bool read_moved(struct proxy *p, struct conn *c, struct flow *f, struct side *to, ssize_t n)
{
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR)
            conn_kill(p, c);
        return false;
    }
    c->deadline = p->now + p->cfg->idle_timeout_ms;
    if (n == 0) {
        f->eof = true;
        shutdown(to->fd, SHUT_WR);
        return false;
    }
    return true;
}

/* Shows the watch what one side sent; false when the tunnel was refused for it. The watch
 * ends with the server's ServerHello, and the tunnel splices from then on. */
static bool watched(struct proxy *p, struct conn *c, struct side *from, size_t n)
{
    const uint8_t *bytes = (const uint8_t *)p->scratch;
    if (c->watch == NULL)
        return true;
    if (from == &c->upstream) {
        cp_tls_watch_server(c->watch, bytes, n);
        if (cp_tls_watch_done(c->watch))
            watch_end(c);
        return true;
    }
    char sni[256];
    enum cp_egress_reason reason =
        cp_tls_watch_client(c->watch, bytes, n, c->name, sni, sizeof(sni));
    if (reason == CP_EGRESS_ALLOWED)
        return true;
    refuse_later_hello(p, c, reason, sni);
    return false;
}

/* Moves bytes from one side to the other through the scratch buffer. */
static void relay_copy(struct proxy *p, struct conn *c, struct side *from, struct flow *f,
                       struct side *to)
{
    ssize_t n = recv(from->fd, p->scratch, SCRATCH_SIZE, 0);
    if (!read_moved(p, c, f, to, n) || !watched(p, c, from, (size_t)n))
        return;
    ssize_t w = send(to->fd, p->scratch, (size_t)n, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
        conn_kill(p, c);
        return;
    }
    size_t sent = w > 0 ? (size_t)w : 0;
    if (sent < (size_t)n) {
        f->buf = xmalloc((size_t)n - sent);
        memcpy(f->buf, p->scratch + sent, (size_t)n - sent);
        f->len = (size_t)n - sent;
    }
}

/* Moves bytes from one side to the other through the shared pipe: splice(2) hands the pages
 * over instead of copying them. When the reader is slow, the tunnel takes the pipe with what
 * is left in it, and reads no more from this source until it is written. */
static void relay(struct proxy *p, struct conn *c, struct side *from, struct flow *f,
                  struct side *to)
{
    /* A few rounds a wake-up while the source keeps the pipe full: fewer epoll_wait calls. */
    for (int round = 0; round < RELAY_ROUNDS; round++) {
        if (flow_pending(f) || f->eof)
            return;
        if (c->watch != NULL || !shared_pipe(p)) {
            relay_copy(p, c, from, f, to);
            return;
        }
        ssize_t n =
            splice(from->fd, NULL, p->pipe[1], NULL, PIPE_SIZE, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (!read_moved(p, c, f, to, n))
            return;
        ssize_t w =
            splice(p->pipe[0], NULL, to->fd, NULL, (size_t)n, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
            close_pipe(p->pipe); /* it holds bytes nobody will read */
            conn_kill(p, c);
            return;
        }
        size_t sent = w > 0 ? (size_t)w : 0;
        if (sent < (size_t)n) {
            memcpy(f->pipe, p->pipe, sizeof(f->pipe));
            f->piped = (size_t)n - sent;
            p->pipe[0] = p->pipe[1] = -1;
            return;
        }
        if (n < PIPE_SIZE)
            return; /* the source is drained for now */
    }
}

/* Writes what waits in the flow's pipe; -1 when the peer is gone. An emptied pipe becomes the
 * shared one again if there is none. */
static int pipe_write(struct proxy *p, struct flow *f, int fd)
{
    while (f->piped > 0) {
        ssize_t n = splice(f->pipe[0], NULL, fd, NULL, f->piped, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        f->piped -= (size_t)n;
    }
    if (p->pipe[0] < 0) {
        memcpy(p->pipe, f->pipe, sizeof(p->pipe));
        f->pipe[0] = f->pipe[1] = -1;
    }
    close_pipe(f->pipe);
    return 0;
}

static void flush_flow(struct proxy *p, struct conn *c, struct flow *f, struct side *to)
{
    if (!flow_pending(f))
        return;
    int r = f->len > 0 ? flow_write(f, to->fd) : pipe_write(p, f, to->fd);
    if (r < 0) {
        conn_kill(p, c);
        return;
    }
    c->deadline = p->now + p->cfg->idle_timeout_ms;
    if (!flow_pending(f) && f->eof)
        shutdown(to->fd, SHUT_WR);
}

static bool tunnel_done(const struct conn *c)
{
    return c->up.eof && !flow_pending(&c->up) && c->down.eof && !flow_pending(&c->down);
}

/* ---- the upstream proxy ---- */

static void ask_upstream(struct proxy *p, struct conn *c)
{
    char request[RESPONSE_MAX];
    size_t len = cp_egress_upstream_request(p->cfg->upstream, c->name, request, sizeof(request));
    set_flow_text(&c->up, request, len);
    explicit_bzero(request, sizeof(request));
    c->state = ST_ASKING;
    if (len == 0 || flow_write(&c->up, c->upstream.fd) < 0)
        refuse(p, c, CP_EGRESS_UPSTREAM, &c->addrs[c->next_addr]);
}

/* The upstream's answer head, read whole before the 200; a byte past it is refused, since a
 * TLS server says nothing before the ClientHello. */
static void read_upstream_answer(struct proxy *p, struct conn *c)
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
        refuse(p, c, CP_EGRESS_UPSTREAM, &c->addrs[c->next_addr]);
        return;
    }
    tunnel_open(p, c);
}

/* ---- dialling ---- */

static void dial_next(struct proxy *p, struct conn *c)
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
        if (watch_new(p, &c->upstream, EPOLLOUT) < 0) {
            side_close(p, &c->upstream);
            continue;
        }
        /* The address connected to is the one that was checked: no second lookup. */
        if (connect(fd, (struct sockaddr *)&ss, len) == 0 || errno == EINPROGRESS)
            return;
        side_close(p, &c->upstream);
    }
    c->next_addr = 0;
    refuse(p, c, c->via ? CP_EGRESS_UPSTREAM : CP_EGRESS_UNREACHABLE, NULL);
}

static void dial_check(struct proxy *p, struct conn *c)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (getsockopt(c->upstream.fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr != 0) {
        side_close(p, &c->upstream);
        c->next_addr++;
        dial_next(p, c);
        return;
    }
    if (c->via)
        ask_upstream(p, c);
    else
        tunnel_open(p, c);
}

static void resolved(struct proxy *p, struct conn *c, const struct cp_egress_answer *a)
{
    c->job = NULL;
    if (!a->ok) {
        refuse(p, c, c->via ? CP_EGRESS_UPSTREAM : CP_EGRESS_DNS, NULL);
        return;
    }
    size_t bad = 0;
    /* The upstream proxy's own address is the operator's choice and may well be private. */
    if (!c->via &&
        cp_egress_policy_check_addrs(p->cfg->policy, a->addrs, a->n, &bad) != CP_EGRESS_ALLOWED) {
        refuse(p, c, CP_EGRESS_SPECIAL_ADDRESS, &a->addrs[bad]);
        return;
    }
    memcpy(c->addrs, a->addrs, a->n * sizeof(a->addrs[0]));
    c->naddrs = a->n;
    c->next_addr = 0;
    c->state = ST_DIALING;
    dial_next(p, c);
}

/* ---- the request head ---- */

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
        resolved(p, c, &a);
        return;
    }
    if (cp_egress_resolver_submit(p->resolver, c->via ? up->host : c->name, c, &a, &c->job) == 1)
        resolved(p, c, &a);
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
        refuse(p, c, reason, NULL);
        return;
    }
    free(c->head);
    c->head = NULL;
    resolve(p, c);
}

static void read_head(struct proxy *p, struct conn *c)
{
    /* One byte past the maximum, so a head that fills it is seen to be too big. */
    ssize_t n = recv(c->client.fd, c->head + c->head_len, CP_EGRESS_HEAD_MAX + 1 - c->head_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        conn_kill(p, c); /* gone before asking anything: no decision to log */
        return;
    }
    c->head_len += (size_t)n;
    struct cp_egress_request req;
    enum cp_egress_reason reason = CP_EGRESS_MALFORMED;
    if (cp_egress_parse_head(c->head, c->head_len, &req, &reason) == 1)
        return;
    decide(p, c, &req, reason);
}

/* ---- accepting ---- */

static struct conn *conn_new(struct proxy *p, int fd)
{
    struct conn *c = xcalloc(1, sizeof(*c));
    c->client = (struct side){.c = c, .fd = fd};
    c->upstream = (struct side){.c = c, .fd = -1};
    c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
    c->head = xmalloc(CP_EGRESS_HEAD_MAX + 1);
    c->state = ST_HEAD;
    c->deadline = p->now + p->cfg->head_timeout_ms;
    if (watch_new(p, &c->client, EPOLLIN) < 0) {
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
    return c;
}

static void accept_some(struct proxy *p)
{
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        int fd = accept4(p->listener.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* Out of descriptors: stop asking for a moment instead of spinning. */
                watch(p, &p->listener, 0);
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
            refuse(p, c, CP_EGRESS_BUSY, NULL);
            after_event(p, c);
        }
    }
}

/* ---- dispatch ---- */

static void on_client(struct proxy *p, struct conn *c, uint32_t ev)
{
    bool in = ev & (EPOLLIN | EPOLLHUP | EPOLLERR), out = ev & (EPOLLOUT | EPOLLERR);
    switch (c->state) {
    case ST_HEAD:
        if (in)
            read_head(p, c);
        break;
    case ST_RESOLVING:
    case ST_DIALING:
    case ST_ASKING:
        if (in)
            early_bytes(p, c);
        break;
    case ST_HELLO:
        if (out)
            flush_flow(p, c, &c->down, &c->client); /* the rest of the 200 */
        if (c->state == ST_HELLO && in)
            read_hello(p, c);
        break;
    case ST_TUNNEL:
        if (out)
            flush_flow(p, c, &c->down, &c->client);
        if (c->state == ST_TUNNEL && in && c->up.eof && (ev & (EPOLLHUP | EPOLLERR)))
            conn_kill(p, c); /* gone both ways, and nothing left to read from it */
        else if (c->state == ST_TUNNEL && in)
            relay(p, c, &c->client, &c->up, &c->upstream);
        break;
    case ST_REFUSING:
        if (out || in)
            flush_refusal(p, c);
        break;
    case ST_LINGER:
        linger_drain(p, c);
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
        dial_check(p, c);
        return;
    case ST_ASKING:
        if (out && c->up.len > 0 && flow_write(&c->up, c->upstream.fd) < 0)
            refuse(p, c, CP_EGRESS_UPSTREAM, &c->addrs[c->next_addr]);
        else if (in)
            read_upstream_answer(p, c);
        return;
    case ST_HELLO:
        if (ev & (EPOLLHUP | EPOLLERR))
            conn_kill(p, c); /* the server left before the hello: nothing to carry */
        return;
    case ST_TUNNEL:
        break;
    default:
        return;
    }
    if (out)
        flush_flow(p, c, &c->up, &c->upstream);
    if (c->state == ST_TUNNEL && in && c->down.eof && (ev & (EPOLLHUP | EPOLLERR)))
        conn_kill(p, c);
    else if (c->state == ST_TUNNEL && in)
        relay(p, c, &c->upstream, &c->down, &c->client);
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
        cl = (!flow_pending(&c->up) && !c->up.eof ? EPOLLIN : 0) |
             (flow_pending(&c->down) ? EPOLLOUT : 0);
        up = (!flow_pending(&c->down) && !c->down.eof ? EPOLLIN : 0) |
             (flow_pending(&c->up) ? EPOLLOUT : 0);
        break;
    default:
        break;
    }
    watch(p, &c->client, cl);
    watch(p, &c->upstream, up);
}

static void after_event(struct proxy *p, struct conn *c)
{
    if (c->state == ST_TUNNEL && tunnel_done(c))
        conn_kill(p, c);
    if (c->state != ST_DEAD)
        update_watch(p, c);
}

static void take_answers(struct proxy *p)
{
    void *tag;
    struct cp_egress_answer a;
    while (cp_egress_resolver_take(p->resolver, &tag, &a) == 1) {
        struct conn *c = tag;
        resolved(p, c, &a);
        after_event(p, c);
    }
}

/* The sign-in channel: at its end the table stays and the fd is no longer watched (a closed
 * pipe would otherwise wake the loop for ever). */
static void read_sign_ins(struct proxy *p)
{
    if (cp_signins_feed_read(&p->feed) == 0)
        return;
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->feed_side.fd, NULL);
    p->feed_side.fd = -1;
}

static void on_event(struct proxy *p, struct side *s, uint32_t ev)
{
    if (s == &p->listener) {
        accept_some(p);
        return;
    }
    if (s == &p->resolver_side) {
        take_answers(p);
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
    after_event(p, c);
}

/* ---- time ---- */

static void expire(struct proxy *p, struct conn *c)
{
    if (c->state == ST_HEAD)
        refuse(p, c, CP_EGRESS_HEAD_TIMEOUT, NULL);
    else if (c->state == ST_RESOLVING || c->state == ST_DIALING || c->state == ST_ASKING)
        refuse(p, c, CP_EGRESS_DIAL_TIMEOUT, NULL);
    else if (c->state == ST_HELLO)
        refuse_hello(p, c, CP_EGRESS_HELLO_TIMEOUT, NULL);
    else
        conn_kill(p, c); /* an idle tunnel, or a refused client that will not read */
    after_event(p, c);
}

static void sweep(struct proxy *p)
{
    if (p->now < p->next_sweep)
        return;
    p->next_sweep = p->now + SWEEP_MS;
    take_answers(p); /* the lookups' own time-outs */
    for (struct conn *c = p->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (p->now >= c->deadline)
            expire(p, c);
    }
    if (p->accept_resume != 0 && p->now >= p->accept_resume) {
        p->accept_resume = 0;
        watch(p, &p->listener, EPOLLIN);
    }
}

static bool idle_exit_due(struct proxy *p)
{
    if (p->nconns > 0 || cp_egress_terminate_active() > 0 || p->cfg->exit_idle_ms == 0) {
        p->idle_since = p->now;
        return false;
    }
    return p->now - p->idle_since >= p->cfg->exit_idle_ms;
}

/* ---- the loop ---- */

static int loop(struct proxy *p, cp_error_t *err)
{
    struct epoll_event events[128];
    while (p->cfg->stop == NULL || !*p->cfg->stop) {
        int n = epoll_wait(p->epfd, events, (int)ARRAY_SIZE(events), SWEEP_MS);
        if (n < 0 && errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "epoll_wait failed");
        p->now = now_ms();
        for (int i = 0; i < n; i++)
            on_event(p, events[i].data.ptr, events[i].events);
        bury_dead(p);
        sweep(p);
        bury_dead(p);
        if (idle_exit_due(p))
            break;
    }
    return 0;
}

static void proxy_dispose(struct proxy *p)
{
    while (p->conns != NULL)
        conn_kill(p, p->conns);
    bury_dead(p);
    cp_egress_resolver_free(p->resolver);
    if (p->epfd >= 0)
        close(p->epfd);
    close_pipe(p->pipe);
    free(p->scratch);
    cp_signins_feed_dispose(&p->feed);
}

/* The channel is watched like a socket (a sidecar's standard input is a pipe). epoll refuses
 * a regular file or /dev/null with EPERM; reading those never blocks, so they are read whole
 * now, which lets a standalone proxy take its sign-ins from a file. */
static int watch_feed(struct proxy *p, cp_error_t *err)
{
    const struct cp_egress_proxy_config *cfg = p->cfg;
    if (cfg->sign_ins == NULL || cfg->sign_ins_fd < 0)
        return 0;
    if (cp_signins_feed_init(&p->feed, cfg->sign_ins_fd, cfg->sign_ins, cfg->log, err) < 0)
        return cp_error_code(err);
    p->feed_side = (struct side){.fd = cfg->sign_ins_fd};
    if (watch_new(p, &p->feed_side, EPOLLIN) == 0)
        return 0;
    p->feed_side.fd = -1;
    if (errno != EPERM)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot watch fd %d for sign-ins",
                             cfg->sign_ins_fd);
    while (cp_signins_feed_read(&p->feed) == 0)
        ;
    return 0;
}

int cp_egress_proxy_run(int listen_fd, const struct cp_egress_proxy_config *cfg, cp_error_t *err)
{
    __attribute__((cleanup(proxy_dispose))) struct proxy p = {
        .cfg = cfg, .epfd = -1, .pipe = {-1, -1}};
    p.now = p.idle_since = now_ms();
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
    if (watch_new(&p, &p.listener, EPOLLIN) < 0 || watch_new(&p, &p.resolver_side, EPOLLIN) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot watch the listening socket");
    if (watch_feed(&p, err) < 0)
        return cp_error_code(err);
    return loop(&p, err);
}
