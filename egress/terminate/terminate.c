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
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "egress/terminate/terminate-int.h"
#include "src/base/clock.h"
#include "src/base/util.h"

#define STACK_SIZE   (256 * 1024) /* OpenSSL's handshake needs well under this */
#define LINGER_MS    2000
#define LINGER_BYTES (1024 * 1024)

static atomic_uint active;

unsigned cp_egress_terminate_active(void)
{
    return atomic_load(&active);
}

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

/* One step of a handshake: 1 done, 0 waiting for s->want, -1 failed. */
static int handshake_step(struct side *s)
{
    ERR_clear_error();
    int r = SSL_do_handshake(s->ssl);
    if (r == 1)
        return 1;
    return cp_terminate_ssl_again(s, r) == 0 ? 0 : -1;
}

/* Both handshakes at once, so the box's costs no round trip to the host on top of the host's:
 * *host_ok says whether the host's succeeded; returns -1 when the box's failed. */
static int handshakes(struct worker *w, int64_t deadline, bool *host_ok)
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
        int left = cp_deadline_left_ms(deadline);
        if (box != 0 && host != 0)
            break;
        if (left > 0 && poll(p, 2, left) > 0)
            continue;
        if (box == 0)
            return -1; /* the box's handshake ran out of time */
        upstream_timeout(w);
        host = -1;
    }
    *host_ok = host == 1;
    return 0;
}

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
    int64_t deadline = w->head_at && w->head_at < w->idle_at ? w->head_at : w->idle_at;
    int left = cp_deadline_left_ms(deadline);
    if (left == 0)
        return -1;
    int r = poll(p, 2, left);
    w->box.want = w->host.want = POLLIN;
    return r > 0 || (r < 0 && errno == EINTR) ? 0 : -1;
}

/* Closes so the box reads the refusal: half-close, then drain what it still sends, for a
 * moment, since closing with unread bytes would reset the connection over the answer. */
static void linger(struct worker *w)
{
    SSL_shutdown(w->box.ssl);
    shutdown(w->box.fd, SHUT_WR);
    int64_t until = cp_now_ms() + LINGER_MS;
    char sink[IO_CHUNK];
    for (size_t total = 0; total < LINGER_BYTES;) {
        int left = cp_deadline_left_ms(until);
        struct pollfd p = {.fd = w->box.fd, .events = POLLIN};
        if (left == 0 || poll(&p, 1, left) <= 0)
            return;
        ssize_t n = recv(w->box.fd, sink, sizeof(sink), 0);
        if (n <= 0)
            return;
        total += (size_t)n;
    }
}

static void exchange(struct worker *w)
{
    w->idle_at = cp_now_ms() + w->cfg.idle_timeout_ms;
    for (;;) {
        int progress = 0, r;
        if (box_wanted(w) && (r = cp_terminate_step_request(w)) != 0) {
            if (r < 0)
                return;
            progress = 1;
        }
        if (!w->host.eof && (r = cp_terminate_step_response(w)) != 0) {
            if (r < 0)
                return;
            progress = 1;
        }
        if (w->refusal != NULL && w->qn == 0) {
            cp_terminate_push(w, &w->box, w->refusal, w->refusal_len);
            linger(w);
            return;
        }
        if (done(w)) {
            SSL_shutdown(w->box.ssl);
            return;
        }
        if (!progress && wait_io(w) < 0) {
            if (w->head_at != 0 && cp_now_ms() >= w->head_at)
                cp_terminate_log_line(w, CP_EGRESS_HEAD_TIMEOUT, "", NULL);
            return;
        }
    }
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
    if (handshakes(w, cp_now_ms() + w->cfg.head_timeout_ms, &host_ok) < 0) {
        cp_terminate_log_line(w, CP_EGRESS_CLIENT_TLS, NULL, NULL);
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
    cp_egress_sign_ins_unref(w->body_table);
    cp_scrub_dispose(&w->scrub);
    for (size_t i = 0; i < QUEUE_MAX; i++)
        cp_terminate_sent_dispose(&w->sent[i]);
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
