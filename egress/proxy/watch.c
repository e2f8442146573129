/* The handshake watch. Each direction is cut into records by a small framer that keeps a
 * header across reads; the client's handshake records are gathered into messages, each judged
 * whole as a ClientHello (hello.c), and the server's handshake messages are read only as far
 * as a ServerHello's random, which says whether it is a HelloRetryRequest. Nothing the client
 * sends can end the watch; only the server's ServerHello does. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress/proxy/hello.h"
#include "egress/proxy/watch.h"
#include "src/base/util.h"

#define REC_CHANGE_CIPHER_SPEC 20
#define REC_APPLICATION_DATA   23
#define REC_HANDSHAKE          22
#define PLAINTEXT_MAX          16384          /* RFC 8446 5.1, RFC 5246 6.2.1 */
#define CIPHERTEXT_MAX         (16384 + 2048) /* RFC 5246 6.2.3, above TLS 1.3's */
#define HS_SERVER_HELLO        2
#define HELLO_RANDOM_END       38 /* type, length, legacy_version, random */

/* RFC 8446 4.1.3: the random of a ServerHello that is a HelloRetryRequest, the SHA-256 of
 * "HelloRetryRequest". */
static const uint8_t retry_random[32] = {
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c};

enum frame_event {
    FRAME_MORE, /* part of a header was taken */
    FRAME_HEAD, /* a header is whole: check it */
    FRAME_BODY, /* body bytes of the current record */
};

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t len24(const uint8_t *p)
{
    return ((size_t)p[0] << 16) | ((size_t)p[1] << 8) | p[2];
}

/* Takes what the framer wants next from data[0..len): header bytes, or body bytes of the
 * current record; *used says how many (the body bytes are data[0..*used)). */
static enum frame_event frame_step(struct cp_tls_framing *f, const uint8_t *data, size_t len,
                                   size_t *used)
{
    if (f->head_len == sizeof(f->head) && f->body_left == 0)
        f->head_len = 0; /* the last record is over */
    if (f->head_len < sizeof(f->head)) {
        size_t n = min_size(sizeof(f->head) - f->head_len, len);
        memcpy(f->head + f->head_len, data, n);
        f->head_len += n;
        *used = n;
        if (f->head_len < sizeof(f->head))
            return FRAME_MORE;
        f->body_left = ((size_t)f->head[3] << 8) | f->head[4];
        return FRAME_HEAD;
    }
    *used = min_size(f->body_left, len);
    f->body_left -= *used;
    return FRAME_BODY;
}

/* A record header as TLS writes it: a known type, version 3.0 to 3.3, a length within max. */
static bool head_ok(const struct cp_tls_framing *f, size_t max)
{
    return f->head[0] >= REC_CHANGE_CIPHER_SPEC && f->head[0] <= REC_APPLICATION_DATA &&
           f->head[1] == 3 && f->head[2] <= 3 && f->body_left <= max;
}

/* Adds handshake bytes from the client and judges every message they complete. */
static enum cp_egress_reason client_handshake(struct cp_tls_watch *w, const uint8_t *p, size_t n,
                                              const char *host, char *sni, size_t sni_size)
{
    if (n > CP_TLS_HELLO_MAX - w->hs_len)
        return CP_EGRESS_HELLO_TOO_BIG;
    if (w->hs == NULL)
        w->hs = xmalloc(CP_TLS_HELLO_MAX);
    memcpy(w->hs + w->hs_len, p, n);
    w->hs_len += n;
    while (w->hs_len >= 4) {
        size_t want = 4 + len24(w->hs + 1);
        if (want > CP_TLS_HELLO_MAX)
            return CP_EGRESS_HELLO_TOO_BIG;
        if (w->hs_len < want)
            return CP_EGRESS_ALLOWED;
        enum cp_egress_reason r = cp_tls_client_hello_judge(w->hs, want, host, sni, sni_size);
        if (r != CP_EGRESS_ALLOWED)
            return r;
        memmove(w->hs, w->hs + want, w->hs_len - want);
        w->hs_len -= want;
    }
    if (w->hs_len == 0) {
        free(w->hs); /* an idle watch holds no buffer */
        w->hs = NULL;
    }
    return CP_EGRESS_ALLOWED;
}

static enum cp_egress_reason client_bytes(struct cp_tls_watch *w, const uint8_t *data, size_t len,
                                          const char *host, char *sni, size_t sni_size)
{
    struct cp_tls_framing *f = &w->client;
    for (size_t off = 0, used = 0; off < len && !w->done; off += used) {
        enum frame_event ev = frame_step(f, data + off, len - off, &used);
        bool handshake = f->head[0] == REC_HANDSHAKE;
        if (ev == FRAME_HEAD && (!head_ok(f, handshake ? PLAINTEXT_MAX : CIPHERTEXT_MAX) ||
                                 (handshake && f->body_left == 0)))
            return CP_EGRESS_NOT_TLS;
        /* A message may span records, but no other record may come between (RFC 8446 5.1). */
        if (ev == FRAME_HEAD && !handshake && w->hs_len > 0)
            return CP_EGRESS_NOT_TLS;
        if (ev != FRAME_BODY || !handshake)
            continue;
        enum cp_egress_reason r = client_handshake(w, data + off, used, host, sni, sni_size);
        if (r != CP_EGRESS_ALLOWED)
            return r;
    }
    return CP_EGRESS_ALLOWED;
}

enum cp_egress_reason cp_tls_watch_client(struct cp_tls_watch *w, const uint8_t *data, size_t len,
                                          const char *host, char *sni, size_t sni_size)
{
    char name[256] = "";
    if (w->refused == CP_EGRESS_ALLOWED)
        w->refused = client_bytes(w, data, len, host, name, sizeof(name));
    if (sni_size > 0)
        snprintf(sni, sni_size, "%s", w->refused == CP_EGRESS_ALLOWED ? "" : name);
    return w->refused;
}

/* Reads the server's handshake messages as far as a ServerHello's random: a retry request
 * means another ClientHello comes, any other ServerHello ends the watch. */
static void server_handshake(struct cp_tls_watch *w, const uint8_t *p, size_t n)
{
    while (n > 0 && !w->done && !w->lost) {
        size_t k;
        if (w->msg_skip > 0) {
            k = min_size(w->msg_skip, n);
            w->msg_skip -= k;
        } else {
            k = min_size(sizeof(w->msg) - w->msg_len, n);
            memcpy(w->msg + w->msg_len, p, k);
            w->msg_len += k;
        }
        p += k;
        n -= k;
        if (w->msg_len >= 4 &&
            (w->msg[0] != HS_SERVER_HELLO || len24(w->msg + 1) < HELLO_RANDOM_END - 4)) {
            w->lost = true; /* a server's first message is its ServerHello */
            return;
        }
        if (w->msg_len < HELLO_RANDOM_END)
            continue;
        if (memcmp(w->msg + 6, retry_random, sizeof(retry_random)) != 0) {
            w->done = true;
            return;
        }
        w->retries++;
        w->msg_skip = len24(w->msg + 1) - (HELLO_RANDOM_END - 4);
        w->msg_len = 0;
    }
}

void cp_tls_watch_server(struct cp_tls_watch *w, const uint8_t *data, size_t len)
{
    struct cp_tls_framing *f = &w->server;
    for (size_t off = 0, used = 0; off < len && !w->done && !w->lost; off += used) {
        enum frame_event ev = frame_step(f, data + off, len - off, &used);
        if (ev == FRAME_HEAD && !head_ok(f, CIPHERTEXT_MAX))
            w->lost = true; /* then the client's hellos are judged to the end */
        else if (ev == FRAME_BODY && f->head[0] == REC_HANDSHAKE)
            server_handshake(w, data + off, used);
    }
}

bool cp_tls_watch_done(const struct cp_tls_watch *w)
{
    return w->done;
}

void cp_tls_watch_dispose(struct cp_tls_watch *w)
{
    free(w->hs);
    w->hs = NULL;
    w->hs_len = 0;
}
