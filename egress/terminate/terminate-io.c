/* A terminated tunnel's TLS reads and writes, each bounded by a deadline (the worker blocks in
 * poll() rather than spin), and the framing that says where a body ends. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include <openssl/err.h>

#include "egress/terminate/terminate-int.h"
#include "src/base/clock.h"

/* Waits for what the last SSL call on s wanted, until deadline; -1 past it. */
static int wait_side(struct side *s, int64_t deadline)
{
    int left = cp_deadline_left_ms(deadline);
    if (left == 0)
        return -1;
    struct pollfd p = {.fd = s->fd, .events = s->want};
    int r = poll(&p, 1, left);
    return r > 0 || (r < 0 && errno == EINTR) ? 0 : -1;
}

/* What an SSL call's failure means: 0 to retry once s->want is ready, -1 for an error. */
int cp_terminate_ssl_again(struct side *s, int ret)
{
    int e = SSL_get_error(s->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        s->want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        return 0;
    }
    return -1;
}

/* Writes all of data, waiting up to the idle time for the peer to read. */
int cp_terminate_push(struct worker *w, struct side *s, const char *data, size_t len)
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
        if (cp_terminate_ssl_again(s, r) < 0 ||
            wait_side(s, cp_now_ms() + w->cfg.idle_timeout_ms) < 0)
            return -1;
    }
    w->idle_at = cp_now_ms() + w->cfg.idle_timeout_ms;
    return 0;
}

/* Reads what is there into s->buf (up to BUF_CAP): 1 when bytes came, 0 when none yet, -1
 * at the end or an error (s->eof set). */
int cp_terminate_pull(struct worker *w, struct side *s)
{
    if (s->len >= BUF_CAP)
        return 0;
    ERR_clear_error();
    size_t got = 0;
    int r = SSL_read_ex(s->ssl, s->buf + s->len, BUF_CAP - s->len, &got);
    if (r == 1) {
        s->len += got;
        w->idle_at = cp_now_ms() + w->cfg.idle_timeout_ms;
        return 1;
    }
    if (cp_terminate_ssl_again(s, r) == 0)
        return 0;
    s->eof = true;
    return -1;
}

void cp_terminate_consume(struct side *s, size_t n)
{
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

/* How many of the n bytes at data belong to the body; *done when it ended. -1: malformed. */
ssize_t cp_terminate_body_part(struct framing *f, const char *data, size_t n, bool *done)
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

void cp_terminate_framing_start(struct framing *f, enum cp_http1_body body, uint64_t length)
{
    memset(f, 0, sizeof(*f));
    f->body = body;
    f->left = length;
}

/* Sends on what from->buf holds of the body; 1 when the body ended, 0 when more is to come,
 * -1 when it cannot go on. */
/* Whether data[0..n), with the part before it that a placeholder could begin in, holds one;
 * the tail is kept for the next part. */
static bool body_placeholder(struct worker *w, const char *data, size_t n)
{
    if (cp_egress_sign_ins_find_placeholder(w->body_table, data, n) != NULL)
        return true;
    char joined[2 * CP_EGRESS_SIGN_IN_PLACEHOLDER_MAX];
    size_t head = n < CP_EGRESS_SIGN_IN_PLACEHOLDER_MAX ? n : CP_EGRESS_SIGN_IN_PLACEHOLDER_MAX;
    memcpy(joined, w->body_tail, w->body_tail_len);
    memcpy(joined + w->body_tail_len, data, head);
    size_t jn = w->body_tail_len + head;
    if (cp_egress_sign_ins_find_placeholder(w->body_table, joined, jn) != NULL)
        return true;
    /* The last bytes seen, of the joined part or of data. */
    const char *from = n >= sizeof(w->body_tail) ? data + n - sizeof(w->body_tail) : NULL;
    size_t keep = from != NULL ? sizeof(w->body_tail)
                               : (jn < sizeof(w->body_tail) ? jn : sizeof(w->body_tail));
    if (from == NULL)
        from = joined + jn - keep;
    memmove(w->body_tail, from, keep);
    w->body_tail_len = keep;
    return false;
}

int cp_terminate_relay_body(struct worker *w, struct side *from, struct framing *f, struct side *to)
{
    bool done = false;
    ssize_t n = cp_terminate_body_part(f, from->buf, from->len, &done);
    if (n > 0 && from == &w->box && w->body_table != NULL &&
        body_placeholder(w, from->buf, (size_t)n))
        return CP_TERMINATE_PLACEHOLDER;
    if (n < 0 || cp_terminate_push(w, to, from->buf, (size_t)n) < 0)
        return -1;
    cp_terminate_consume(from, (size_t)n);
    return done ? 1 : 0;
}
