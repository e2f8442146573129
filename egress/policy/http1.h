/* HTTP/1.1 inside a tunnel the sidecar ends: a strict parser of a box's request heads, one of
 * the host's response heads, and a chunked-body framer. Strict because two readers of one
 * request (this proxy and the host) must never see two different requests: every shape that
 * RFC 9112 lets a reader take two ways is refused, never repaired. All lengths explicit; the
 * buffers are the caller's and are never written. */
#ifndef CONCH_EGRESS_HTTP1_H
#define CONCH_EGRESS_HTTP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "egress/policy/verdict.h"

#define CP_HTTP1_HEAD_MAX    (64 * 1024) /* a request or response head, final CRLF included */
#define CP_HTTP1_HEADERS_MAX 128
#define CP_HTTP1_METHOD_MAX  32

enum cp_http1_body {
    CP_HTTP1_BODY_NONE = 0,
    CP_HTTP1_BODY_LENGTH,  /* Content-Length bytes */
    CP_HTTP1_BODY_CHUNKED, /* Transfer-Encoding: chunked */
    CP_HTTP1_BODY_CLOSE,   /* a response read until the host closes */
};

/* A part of the head: data[off .. off+len). */
struct cp_http1_span {
    size_t off, len;
};

struct cp_http1_request {
    size_t head_len; /* the request line and headers, the empty line included */
    struct cp_http1_span method, target, host;
    int minor; /* HTTP/1.minor */
    enum cp_http1_body body;
    uint64_t length; /* CP_HTTP1_BODY_LENGTH */
    bool close;      /* Connection: close, or HTTP/1.0 */
    bool expect_continue;
    const char *why; /* a refusal's detail, for the answer and the log; static */
};

/* Judges the head at data[0..len) for a tunnel to host (lower-case). Returns 1 when more bytes
 * are needed (no whole head yet and under the bound), else 0 with *reason:
 *   CP_EGRESS_ALLOWED       a head to forward as it is;
 *   CP_EGRESS_REQUEST       a smuggling shape or not HTTP/1.x: both Content-Length and
 *                           Transfer-Encoding, several of either, Transfer-Encoding other than
 *                           exactly chunked, obs-fold, a bare LF, a control byte, an
 *                           absolute-form or authority-form target, CONNECT, Upgrade, no Host;
 *   CP_EGRESS_HIDDEN_REQUEST a body on GET, HEAD, OPTIONS, DELETE or TRACE (CL.0);
 *   CP_EGRESS_HOST_HEADER   a Host other than host or host:443;
 *   CP_EGRESS_HEAD_TOO_BIG  no whole head within CP_HTTP1_HEAD_MAX bytes.
 * out->why says which, for a refusal. */
int cp_http1_parse_request(const char *data, size_t len, const char *host,
                           struct cp_http1_request *out, enum cp_egress_reason *reason);

/* Whether data[0..len) begins as a request line would, after the empty lines a server may
 * skip: a token, a space, then '/', '*' or "http". A host that does not read a request's body
 * would take such a body for the next request. */
bool cp_http1_looks_like_request(const char *data, size_t len);

/* Copies the head at data[0..len), one cp_http1_parse_request allowed, into out (at least len
 * bytes) without any header line named name (case-insensitive), the final empty line kept;
 * returns the length written. The sidecar uses it to take the box's own Authorization off a
 * request it signs in, so the box never chooses the credential that goes out. */
size_t cp_http1_drop_header(const char *data, size_t len, const char *name, char *out);

/* The head at data[0..len) with every header line named name taken out and "name: value" put
 * in before the final empty line; heap, the caller's, its length in *len_out. */
char *cp_http1_set_header(const char *data, size_t len, const char *name, const char *value,
                          size_t *len_out);

struct cp_http1_response {
    size_t head_len;
    int status;
    enum cp_http1_body body;
    uint64_t length;
    bool close;   /* Connection: close, HTTP/1.0, or a body read until the close */
    bool encoded; /* a Content-Encoding other than identity: the body is not its bytes */
};

/* Parses a response head to a request whose method was HEAD (head_request) or not. Returns 1
 * when more bytes are needed, 0 when parsed, -1 when it is not a response this proxy can frame
 * (then the connection ends: a misframed response would shift every later one). A 1xx has no
 * body; the caller reads the next head for the same request. 101 is -1: no Upgrade is ever
 * forwarded, so none can be granted. */
int cp_http1_parse_response(const char *data, size_t len, bool head_request,
                            struct cp_http1_response *out);

/* A chunked body's framing, fed the raw bytes as they come; the bytes themselves go on
 * unchanged. */
struct cp_http1_chunked {
    int state;
    uint64_t left;   /* data bytes left in this chunk */
    unsigned digits; /* of the size */
    size_t line;     /* bytes of the current size or trailer line */
    bool last;       /* the size line was 0 */
};

/* How many of the next bytes are a chunk's data (0 while framing is read): a reader that needs
 * the data alone takes that many, and feeds framing a byte at a time. */
uint64_t cp_http1_chunked_data_left(const struct cp_http1_chunked *c);

/* Consumes from data[0..len) what belongs to the body; returns that count (<= len), with
 * *done set when the body's last byte was among them; -1 when the framing is malformed. */
ssize_t cp_http1_chunked_feed(struct cp_http1_chunked *c, const char *data, size_t len, bool *done);

#endif
