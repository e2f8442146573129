/* The worker of a terminated tunnel (terminate.h).
 *
 * One thread per connection, blocking in poll() with deadlines, since OpenSSL's handshakes and
 * records are far simpler to drive that way than from the proxy's epoll loop, and a tunnel's
 * work (TLS both ways) is CPU the loop should not wait on. The two directions run in one
 * loop, as two small machines over one SSL object each (an SSL object must not be used from
 * two threads): the request side reads a head, judges it, and forwards it and its body as
 * the bytes come; the response side frames each answer in order. A refusal waits until every
 * earlier response has gone to the box, then is written, and the connection closes. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "places/egress/answer.h"
#include "places/egress/elog.h"
#include "places/egress/http1.h"
#include "places/egress/methods.h"
#include "places/egress/terminate.h"
#include "src/base/util.h"

#define STACK_SIZE   (256 * 1024) /* OpenSSL's handshake needs well under this */
#define QUEUE_MAX    32           /* requests sent on and not yet answered (pipelining) */
#define IO_CHUNK     (16 * 1024)  /* one TLS record's worth */
#define BUF_CAP      (CP_HTTP1_HEAD_MAX + IO_CHUNK)
#define LINGER_MS    2000
#define LINGER_BYTES (1024 * 1024)

static atomic_uint active;

unsigned cp_egress_terminate_active(void)
{
    return atomic_load(&active);
}

enum rstate { R_HEAD, R_BODY, R_HELD, R_STOP };
enum sstate { S_HEAD, S_BODY };

/* One direction's body framing. */
struct framing {
    enum cp_http1_body body;
    uint64_t left;
    struct cp_http1_chunked chunked;
};

/* A request sent on and not yet answered. */
struct sent {
    bool head;    /* a HEAD: its answer has no body */
    char *source; /* the sign-in's source when we added one, else NULL; then method, path */
    char *method, *path;
};

struct side {
    SSL *ssl;
    int fd;
    short want; /* POLLIN or POLLOUT: what the last SSL call waited for */
    char *buf;  /* bytes read and not yet handled */
    size_t len;
    bool eof;
};

struct worker {
    struct cp_egress_terminate_config cfg;
    struct cp_egress_handoff h;
    struct side box, host;
    uint64_t idle_at, head_at; /* deadlines; head_at 0 unless a head has begun */
    enum rstate rs;
    struct framing rf, sf;
    bool close_after; /* the request just sent asked for Connection: close */
    char *held;       /* R_HELD: the head and the body a rule must read */
    size_t held_len, held_want;
    int held_row;
    char *method, *target;       /* the request being read or held, for the log */
    struct sent sent[QUEUE_MAX]; /* the requests awaiting answers, from qfirst */
    size_t qfirst, qn;
    enum sstate ss;
    bool resp_close;
    char *refusal; /* written once every earlier answer is out */
    size_t refusal_len;
    enum cp_egress_reason upstream_failed;
    char upstream_why[256];
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- the log ---- */

static struct cp_egress_decision decision(const struct worker *w, enum cp_egress_reason reason,
                                          const char *method, const char *path)
{
    return (struct cp_egress_decision){
        .time = time(NULL),
        .box = w->h.box,
        .host = w->h.host,
        .port = w->h.port,
        .reason = reason,
        .addr = w->h.addr[0] ? w->h.addr : NULL,
        .via = w->h.via[0] ? w->h.via : NULL,
        .method = method,
        .path = method != NULL ? (path != NULL ? path : "") : NULL,
    };
}

static void log_decision(const struct worker *w, const struct cp_egress_decision *d)
{
    cleanup_error cp_error_t err = NULL;
    if (cp_egress_log_write(w->cfg.log, d, &err) < 0)
        cp_error_print(&err);
}

static void log_line(struct worker *w, enum cp_egress_reason reason, const char *method,
                     const char *path)
{
    struct cp_egress_decision d = decision(w, reason, method, path);
    log_decision(w, &d);
}

/* ---- TLS I/O with deadlines ---- */

/* Waits for what the last SSL call on s wanted, until deadline; -1 past it. */
static int wait_side(struct side *s, uint64_t deadline)
{
    uint64_t now = now_ms();
    if (now >= deadline)
        return -1;
    struct pollfd p = {.fd = s->fd, .events = s->want};
    int r = poll(&p, 1, (int)(deadline - now));
    return r > 0 || (r < 0 && errno == EINTR) ? 0 : -1;
}

/* What an SSL call's failure means: 0 to retry once s->want is ready, -1 for an error. */
static int ssl_again(struct side *s, int ret)
{
    int e = SSL_get_error(s->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        s->want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        return 0;
    }
    return -1;
}

static void upstream_failure(struct worker *w);
static void upstream_timeout(struct worker *w);

/* One step of a handshake: 1 done, 0 waiting for s->want, -1 failed. */
static int handshake_step(struct side *s)
{
    ERR_clear_error();
    int r = SSL_do_handshake(s->ssl);
    if (r == 1)
        return 1;
    return ssl_again(s, r) == 0 ? 0 : -1;
}

/* Both handshakes at once, so the box's costs no round trip to the host on top of the host's:
 * *host_ok says whether the host's succeeded; returns -1 when the box's failed. */
static int handshakes(struct worker *w, uint64_t deadline, bool *host_ok)
{
    int box = 0, host = 0;
    while (box == 0 || host == 0) {
        if (host == 0)
            host = handshake_step(&w->host);
        if (host < 0 && w->upstream_failed == CP_EGRESS_ALLOWED)
            upstream_failure(w); /* before another call clears OpenSSL's error queue */
        if (box == 0 && (box = handshake_step(&w->box)) < 0)
            return -1;
        struct pollfd p[2] = {{.fd = box == 0 ? w->box.fd : -1, .events = w->box.want},
                              {.fd = host == 0 ? w->host.fd : -1, .events = w->host.want}};
        uint64_t now = now_ms();
        if (box != 0 && host != 0)
            break;
        if (now < deadline && poll(p, 2, (int)(deadline - now)) > 0)
            continue;
        if (box == 0)
            return -1; /* the box's handshake ran out of time */
        upstream_timeout(w);
        host = -1;
    }
    *host_ok = host == 1;
    return 0;
}

/* Writes all of data, waiting up to the idle time for the peer to read. */
static int push(struct worker *w, struct side *s, const char *data, size_t len)
{
    while (len > 0) {
        ERR_clear_error();
        size_t put = 0;
        int r = SSL_write_ex(s->ssl, data, len, &put);
        if (r == 1) {
            data += put;
            len -= put;
            continue;
        }
        if (ssl_again(s, r) < 0 || wait_side(s, now_ms() + w->cfg.idle_timeout_ms) < 0)
            return -1;
    }
    w->idle_at = now_ms() + w->cfg.idle_timeout_ms;
    return 0;
}

/* Reads what is there into s->buf (up to BUF_CAP): 1 when bytes came, 0 when none yet, -1
 * at the end or an error (s->eof set). */
static int pull(struct worker *w, struct side *s)
{
    if (s->len >= BUF_CAP)
        return 0;
    ERR_clear_error();
    size_t got = 0;
    int r = SSL_read_ex(s->ssl, s->buf + s->len, BUF_CAP - s->len, &got);
    if (r == 1) {
        s->len += got;
        w->idle_at = now_ms() + w->cfg.idle_timeout_ms;
        return 1;
    }
    if (ssl_again(s, r) == 0)
        return 0;
    s->eof = true;
    return -1;
}

static void consume(struct side *s, size_t n)
{
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

/* ---- bodies ---- */

/* How many of the n bytes at data belong to the body; *done when it ended. -1: malformed. */
static ssize_t body_part(struct framing *f, const char *data, size_t n, bool *done)
{
    *done = false;
    switch (f->body) {
    case CP_HTTP1_BODY_LENGTH: {
        size_t take = f->left < n ? (size_t)f->left : n;
        f->left -= take;
        *done = f->left == 0;
        return (ssize_t)take;
    }
    case CP_HTTP1_BODY_CHUNKED:
        return cp_http1_chunked_feed(&f->chunked, data, n, done);
    case CP_HTTP1_BODY_CLOSE:
        return (ssize_t)n; /* done at the end of the stream */
    default:
        *done = true;
        return 0;
    }
}

static void framing_start(struct framing *f, enum cp_http1_body body, uint64_t length)
{
    memset(f, 0, sizeof(*f));
    f->body = body;
    f->left = length;
}

/* Sends on what from->buf holds of the body; 1 when the body ended, 0 when more is to come,
 * -1 when it cannot go on. */
static int relay_body(struct worker *w, struct side *from, struct framing *f, struct side *to)
{
    bool done = false;
    ssize_t n = body_part(f, from->buf, from->len, &done);
    if (n < 0 || push(w, to, from->buf, (size_t)n) < 0)
        return -1;
    consume(from, (size_t)n);
    return done ? 1 : 0;
}

/* ---- requests ---- */

static void refuse(struct worker *w, enum cp_egress_reason reason, const char *why,
                   const char *head, size_t head_len)
{
    struct cp_egress_answer_about a = {
        .host = w->h.host,
        .method = w->method,
        .path = w->target,
        .detail = why,
        .json = head != NULL && cp_egress_answer_wants_json(head, head_len),
    };
    w->refusal = xmalloc(CP_EGRESS_ANSWER_MAX);
    w->refusal_len = cp_egress_answer_write(reason, &a, w->refusal, CP_EGRESS_ANSWER_MAX);
    log_line(w, reason, w->method ? w->method : "", w->target);
    w->rs = R_STOP;
}

/* Sends the head on: signed in when it reads and the table has an entry for this host and
 * path (the box's own Authorization then taken off), as the box wrote it otherwise. *source
 * is the entry's source, the caller's, or NULL when none was added. */
static int send_head(struct worker *w, const char *head, size_t len, bool reading, char **source)
{
    *source = NULL;
    struct cp_signins *t =
        reading && w->cfg.sign_ins != NULL ? cp_signins_holder_get(w->cfg.sign_ins) : NULL;
    const struct cp_signin *s = cp_signins_match(t, w->h.host, w->target);
    if (s == NULL) {
        cp_signins_unref(t);
        return push(w, &w->host, head, len);
    }
    size_t n = 0;
    char *signed_head = cp_signins_head(s, head, len, &n);
    *source = xstrdup(s->source);
    cp_signins_unref(t);
    int r = push(w, &w->host, signed_head, n);
    cp_signins_head_free(signed_head, n);
    return r;
}

static void queue_push(struct worker *w, bool head, char *source)
{
    struct sent *q = &w->sent[(w->qfirst + w->qn++) % QUEUE_MAX];
    *q = (struct sent){.head = head, .source = source};
    if (source != NULL) {
        q->method = xstrdup(w->method);
        q->path = xstrdup(w->target);
    }
}

static void sent_dispose(struct sent *q)
{
    free(q->source);
    free(q->method);
    free(q->path);
    *q = (struct sent){0};
}

/* Sends an allowed head on and starts its body. body: the whole body when a rule read it
 * (held), else NULL; with it the read table says whether the request only fetches, which alone
 * may carry a sign-in. */
static int forward(struct worker *w, const struct cp_http1_request *r, const char *head,
                   const char *body, size_t body_len)
{
    bool reading = cp_signins_may_carry(w->method, w->target, body, body_len);
    char *source = NULL;
    if (send_head(w, head, r->head_len, reading, &source) < 0) {
        free(source);
        return -1;
    }
    struct cp_egress_decision d = decision(w, CP_EGRESS_ALLOWED, w->method, w->target);
    d.signed_in = source != NULL;
    d.source = source;
    log_decision(w, &d);
    queue_push(w, strcmp(w->method, "HEAD") == 0, source);
    framing_start(&w->rf, r->body, r->length);
    w->close_after = r->close;
    w->rs = r->body == CP_HTTP1_BODY_NONE ? (r->close ? R_STOP : R_HEAD) : R_BODY;
    return 0;
}

static void set_request(struct worker *w, const char *head, const struct cp_http1_request *r)
{
    w->method = xasprintf("%.*s", (int)r->method.len, head + r->method.off);
    w->target = xasprintf("%.*s", (int)r->target.len, head + r->target.off);
}

static bool holdable(const struct cp_http1_request *r)
{
    return r->body == CP_HTTP1_BODY_LENGTH && r->length <= CP_EGRESS_BODY_RULE_MAX;
}

/* A rule that reads the body: the head is held until the body is whole. */
static int hold(struct worker *w, const struct cp_http1_request *r, const char *head, int row)
{
    if (!holdable(r)) {
        refuse(w, CP_EGRESS_METHOD,
               "a body this rule reads must come with a Content-Length of "
               "at most 1 MiB",
               head, r->head_len);
        return 0;
    }
    w->held_want = r->head_len + (size_t)r->length;
    w->held = xmalloc(w->held_want);
    memcpy(w->held, head, r->head_len);
    w->held_len = r->head_len;
    w->held_row = row;
    w->rs = R_HELD;
    return 0;
}

/* Whether the table has an entry for this request's host and path. */
static bool sign_in_listed(struct worker *w)
{
    if (w->cfg.sign_ins == NULL)
        return false;
    struct cp_signins *t = cp_signins_holder_get(w->cfg.sign_ins);
    bool listed = cp_signins_match(t, w->h.host, w->target) != NULL;
    cp_signins_unref(t);
    return listed;
}

/* A write host takes everything; the read table decides only whether a request reads, and
 * so may carry a sign-in. A body that decides it is held only when a sign-in waits on it and
 * it can be held (else the request goes unsigned, as it is), since a write host never
 * refuses. */
static int judge_write(struct worker *w, const struct cp_http1_request *r, const char *head,
                       struct cp_egress_rule_result j)
{
    if (j.verdict == CP_RULE_BODY && holdable(r) && sign_in_listed(w))
        return hold(w, r, head, j.row);
    return forward(w, r, head, NULL, 0);
}

static int judge_head(struct worker *w, const struct cp_http1_request *r, const char *head)
{
    struct cp_egress_rule_result j = cp_egress_methods_judge(w->method, w->target);
    if (w->h.mode == CP_EGRESS_MODE_WRITE)
        return judge_write(w, r, head, j);
    if (j.verdict == CP_RULE_REFUSE) {
        refuse(w, CP_EGRESS_METHOD, j.why, head, r->head_len);
        return 0;
    }
    if (j.verdict == CP_RULE_BODY)
        return hold(w, r, head, j.row);
    return forward(w, r, head, NULL, 0);
}

static int on_head(struct worker *w)
{
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    if (cp_http1_parse_request(w->box.buf, w->box.len, w->h.host, &r, &reason) == 1)
        return 0;
    w->head_at = 0;
    free(w->method);
    free(w->target);
    w->method = w->target = NULL;
    if (r.method.len > 0 && r.target.len > 0)
        set_request(w, w->box.buf, &r);
    if (reason != CP_EGRESS_ALLOWED) {
        refuse(w, reason, r.why, w->box.buf, r.head_len ? r.head_len : w->box.len);
        return 1;
    }
    if (w->upstream_failed != CP_EGRESS_ALLOWED) {
        refuse(w, w->upstream_failed, w->upstream_why, w->box.buf, r.head_len);
        return 1;
    }
    if (judge_head(w, &r, w->box.buf) < 0)
        return -1;
    consume(&w->box, r.head_len);
    return 1;
}

/* R_HELD: the body is gathered whole, then judged, then sent on with its head. */
static int on_held(struct worker *w)
{
    size_t take = w->held_want - w->held_len < w->box.len ? w->held_want - w->held_len : w->box.len;
    memcpy(w->held + w->held_len, w->box.buf, take);
    w->held_len += take;
    consume(&w->box, take);
    if (w->held_len < w->held_want)
        return take > 0;
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    cp_http1_parse_request(w->held, w->held_len, w->h.host, &r, &reason);
    size_t body = w->held_len - r.head_len;
    if (!cp_egress_methods_body_ok(w->held_row, w->held + r.head_len, body) &&
        w->h.mode != CP_EGRESS_MODE_WRITE) {
        refuse(w, CP_EGRESS_METHOD, "only a download batch passes", w->held, r.head_len);
        return 1;
    }
    r.body = CP_HTTP1_BODY_NONE; /* the body goes with the head, here */
    if (forward(w, &r, w->held, w->held + r.head_len, body) < 0 ||
        push(w, &w->host, w->held + r.head_len, body) < 0)
        return -1;
    free(w->held);
    w->held = NULL;
    return 1;
}

static int handle_request_bytes(struct worker *w)
{
    switch (w->rs) {
    case R_HEAD:
        if (w->box.len > 0 && w->head_at == 0)
            w->head_at = now_ms() + w->cfg.head_timeout_ms;
        return w->box.len > 0 ? on_head(w) : 0;
    case R_BODY: {
        if (w->box.len == 0)
            return 0;
        int r = relay_body(w, &w->box, &w->rf, &w->host);
        if (r == 1)
            w->rs = w->close_after ? R_STOP : R_HEAD;
        return r < 0 ? -1 : 1;
    }
    case R_HELD:
        return on_held(w);
    default:
        return 0;
    }
}

/* One step of the box's side: what is buffered first (pipelined requests), then a read. */
static int step_request(struct worker *w)
{
    int r = handle_request_bytes(w);
    if (r != 0 || w->rs == R_STOP)
        return r;
    r = pull(w, &w->box);
    if (r < 0)
        return w->rs == R_HEAD && w->box.len == 0 ? 0 : -1; /* gone between requests: fine */
    if (r == 0)
        return 0;
    /* Bytes came: progress even if they are not a whole head yet, since OpenSSL may hold
     * more that poll() would not show. */
    return handle_request_bytes(w) < 0 ? -1 : 1;
}

/* ---- responses ---- */

static void answered(struct worker *w)
{
    sent_dispose(&w->sent[w->qfirst]);
    w->qfirst = (w->qfirst + 1) % QUEUE_MAX;
    w->qn--;
    w->ss = S_HEAD;
}

/* A 401 or 403 to a request we signed in: the credential is stale or wrong, and the person
 * renews it where it came from, so the line names that place. The answer itself goes to the
 * box unchanged. */
static void check_sign_in(struct worker *w, int status)
{
    const struct sent *q = &w->sent[w->qfirst];
    if (q->source == NULL || (status != 401 && status != 403))
        return;
    struct cp_egress_decision d = decision(w, CP_EGRESS_SIGNIN_REFUSED, q->method, q->path);
    d.status = status;
    d.signed_in = true;
    d.source = q->source;
    log_decision(w, &d);
}

static int on_response_head(struct worker *w)
{
    struct cp_http1_response r;
    bool head = w->qn > 0 && w->sent[w->qfirst].head;
    int p = cp_http1_parse_response(w->host.buf, w->host.len, head, &r);
    if (p == 1)
        return 0;
    if (p < 0 || w->qn == 0) {
        log_line(w, CP_EGRESS_UPSTREAM_HTTP, w->method ? w->method : "", w->target);
        return -1;
    }
    if (push(w, &w->box, w->host.buf, r.head_len) < 0)
        return -1;
    consume(&w->host, r.head_len);
    if (r.status / 100 == 1)
        return 1; /* 100 Continue and the like: the real answer follows */
    check_sign_in(w, r.status);
    w->resp_close = r.close;
    framing_start(&w->sf, r.body, r.length);
    if (r.body == CP_HTTP1_BODY_NONE)
        answered(w);
    else
        w->ss = S_BODY;
    return 1;
}

static int handle_response_bytes(struct worker *w)
{
    if (w->host.len == 0)
        return 0;
    if (w->ss == S_HEAD)
        return on_response_head(w);
    int r = relay_body(w, &w->host, &w->sf, &w->box);
    if (r == 1)
        answered(w);
    return r < 0 ? -1 : 1;
}

static int step_response(struct worker *w)
{
    int r = handle_response_bytes(w);
    if (r != 0)
        return r;
    if (w->resp_close && w->qn == 0)
        return 0;
    r = pull(w, &w->host);
    if (r < 0) {
        if (w->ss == S_BODY && w->sf.body == CP_HTTP1_BODY_CLOSE)
            answered(w); /* a body read until the close has ended */
        return 0;
    }
    if (r == 0)
        return 0;
    return handle_response_bytes(w) < 0 ? -1 : 1;
}

/* ---- the loop ---- */

static bool box_wanted(const struct worker *w)
{
    return w->rs != R_STOP && !w->box.eof && w->qn < QUEUE_MAX;
}

static bool done(const struct worker *w)
{
    if (w->qn > 0 && !w->host.eof)
        return false;
    if (w->qn > 0)
        return true; /* the host left before answering */
    if (w->refusal != NULL)
        return false; /* written next */
    /* A host that failed its handshake is "ended" from the start; the box's first request
     * is still read, to be answered with why. */
    bool host_gone = w->host.eof && w->upstream_failed == CP_EGRESS_ALLOWED;
    return w->box.eof || host_gone || w->resp_close || (w->rs == R_STOP && w->close_after);
}

static int wait_io(struct worker *w)
{
    struct pollfd p[2] = {{.fd = -1}, {.fd = -1}};
    if (box_wanted(w))
        p[0] = (struct pollfd){.fd = w->box.fd, .events = w->box.want};
    if (!w->host.eof)
        p[1] = (struct pollfd){.fd = w->host.fd, .events = w->host.want};
    uint64_t deadline = w->head_at && w->head_at < w->idle_at ? w->head_at : w->idle_at;
    uint64_t now = now_ms();
    if (now >= deadline)
        return -1;
    int r = poll(p, 2, (int)(deadline - now));
    w->box.want = w->host.want = POLLIN;
    return r > 0 || (r < 0 && errno == EINTR) ? 0 : -1;
}

/* Closes so the box reads the refusal: half-close, then drain what it still sends, for a
 * moment, since closing with unread bytes would reset the connection over the answer. */
static void linger(struct worker *w)
{
    SSL_shutdown(w->box.ssl);
    shutdown(w->box.fd, SHUT_WR);
    uint64_t until = now_ms() + LINGER_MS;
    char sink[IO_CHUNK];
    for (size_t total = 0; total < LINGER_BYTES;) {
        uint64_t now = now_ms();
        struct pollfd p = {.fd = w->box.fd, .events = POLLIN};
        if (now >= until || poll(&p, 1, (int)(until - now)) <= 0)
            return;
        ssize_t n = recv(w->box.fd, sink, sizeof(sink), 0);
        if (n <= 0)
            return;
        total += (size_t)n;
    }
}

static void exchange(struct worker *w)
{
    w->idle_at = now_ms() + w->cfg.idle_timeout_ms;
    for (;;) {
        int progress = 0, r;
        if (box_wanted(w) && (r = step_request(w)) != 0) {
            if (r < 0)
                return;
            progress = 1;
        }
        if (!w->host.eof && (r = step_response(w)) != 0) {
            if (r < 0)
                return;
            progress = 1;
        }
        if (w->refusal != NULL && w->qn == 0) {
            push(w, &w->box, w->refusal, w->refusal_len);
            linger(w);
            return;
        }
        if (done(w)) {
            SSL_shutdown(w->box.ssl);
            return;
        }
        if (!progress && wait_io(w) < 0) {
            if (w->head_at != 0 && now_ms() >= w->head_at)
                log_line(w, CP_EGRESS_HEAD_TIMEOUT, "", NULL);
            return;
        }
    }
}

/* ---- the handshakes ---- */

/* Why the host's handshake failed, for the box's 502 and the log. */
static void upstream_failure(struct worker *w)
{
    long v = SSL_get_verify_result(w->host.ssl);
    unsigned long e = ERR_peek_last_error();
    if (v != X509_V_OK) {
        w->upstream_failed = CP_EGRESS_UPSTREAM_CERT;
        snprintf(w->upstream_why, sizeof(w->upstream_why), "%s",
                 v == X509_V_ERR_HOSTNAME_MISMATCH ? "the name does not match"
                                                   : X509_verify_cert_error_string(v));
    } else {
        w->upstream_failed = CP_EGRESS_UPSTREAM_TLS;
        snprintf(w->upstream_why, sizeof(w->upstream_why), "%s",
                 e ? ERR_reason_error_string(e) : "the host closed the connection");
        if (w->upstream_why[0] == '\0' || strcmp(w->upstream_why, "(null)") == 0)
            snprintf(w->upstream_why, sizeof(w->upstream_why), "no TLS answer");
    }
    ERR_clear_error();
}

static void upstream_timeout(struct worker *w)
{
    if (w->upstream_failed != CP_EGRESS_ALLOWED)
        return;
    w->upstream_failed = CP_EGRESS_UPSTREAM_TLS;
    snprintf(w->upstream_why, sizeof(w->upstream_why), "the host's handshake took too long");
}

static int start_sides(struct worker *w)
{
    cleanup_error cp_error_t err = NULL;
    w->box = (struct side){.fd = w->h.client_fd, .want = POLLIN, .buf = xmalloc(BUF_CAP)};
    w->host = (struct side){.fd = w->h.upstream_fd, .want = POLLIN, .buf = xmalloc(BUF_CAP)};
    if (cp_egress_tls_client(w->cfg.tls, w->h.host, w->h.upstream_fd, &w->host.ssl, &err) < 0 ||
        cp_egress_tls_server(w->cfg.tls, w->h.host, w->h.client_fd, w->h.hello, w->h.hello_len,
                             &w->box.ssl, &err) < 0) {
        cp_error_print(&err);
        return -1;
    }
    bool host_ok = false;
    if (handshakes(w, now_ms() + w->cfg.head_timeout_ms, &host_ok) < 0) {
        log_line(w, CP_EGRESS_CLIENT_TLS, NULL, NULL);
        return -1;
    }
    /* A host that failed: the box still has our TLS, and gets the 502 inside it. */
    if (!host_ok)
        w->host.eof = true;
    return 0;
}

static void worker_free(struct worker *w)
{
    SSL_free(w->box.ssl);
    SSL_free(w->host.ssl);
    close(w->h.client_fd);
    close(w->h.upstream_fd);
    free(w->h.hello);
    free(w->box.buf);
    free(w->host.buf);
    free(w->held);
    free(w->method);
    free(w->target);
    free(w->refusal);
    for (size_t i = 0; i < QUEUE_MAX; i++)
        sent_dispose(&w->sent[i]);
    free(w);
    atomic_fetch_sub(&active, 1);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    if (start_sides(w) == 0)
        exchange(w);
    worker_free(w);
    ERR_clear_error();
    return NULL;
}

int cp_egress_terminate_start(const struct cp_egress_terminate_config *cfg,
                              struct cp_egress_handoff *h, cp_error_t *err)
{
    struct worker *w = xcalloc(1, sizeof(*w));
    w->cfg = *cfg;
    w->h = *h;
    w->upstream_failed = CP_EGRESS_ALLOWED;
    atomic_fetch_add(&active, 1);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_SIZE);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int r = pthread_create(&t, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (r != 0) {
        worker_free(w);
        return cp_error_make(err, CP_ERR_FAILED, r, "cannot start a tunnel's thread");
    }
    return 0;
}
