/* The HTTP/1.1 parsers of a terminated tunnel (http1.h), after RFC 9112. Every header line is
 * read the same way for requests and responses; what differs is which shapes are refused. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "egress/policy/http1.h"
#include "src/base/util.h"

#define CHUNK_LINE_MAX 4096 /* a size line with its extensions, or a trailer line */

/* tchar (RFC 9110 5.6.2) */
static bool tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* field-vchar, SP and HTAB; obs-text passes, every other control byte does not. */
static bool value_char(unsigned char c)
{
    return c == ' ' || c == '\t' || (c > 0x20 && c != 0x7f);
}

static bool span_is(const char *data, struct cp_http1_span s, const char *word)
{
    return s.len == strlen(word) && strncasecmp(data + s.off, word, s.len) == 0;
}

/* The end of the head: the offset just past "\r\n\r\n", 0 when not there yet, or -1 at a
 * bare LF (which would otherwise wait for an end that never comes). */
static long head_end(const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n')
            continue;
        if (i == 0 || data[i - 1] != '\r')
            return -1;
        if (i >= 3 && data[i - 2] == '\n' && data[i - 3] == '\r')
            return (long)i + 1;
    }
    return 0;
}

struct header {
    struct cp_http1_span name, value;
};

/* Reads the header line at data[*pos..), which ends in CRLF; -1 at a shape that is refused
 * (obs-fold, no colon, space before the colon, a control byte). */
static int header_line(const char *data, size_t *pos, struct header *h)
{
    size_t i = *pos;
    if (data[i] == ' ' || data[i] == '\t')
        return -1; /* obs-fold */
    h->name.off = i;
    while (tchar((unsigned char)data[i]))
        i++;
    h->name.len = i - h->name.off;
    if (h->name.len == 0 || data[i] != ':')
        return -1;
    i++;
    while (data[i] == ' ' || data[i] == '\t')
        i++;
    h->value.off = i;
    while (data[i] != '\r') {
        if (!value_char((unsigned char)data[i]))
            return -1;
        i++;
    }
    if (data[i + 1] != '\n')
        return -1; /* a CR alone inside a line */
    size_t end = i;
    while (end > h->value.off && (data[end - 1] == ' ' || data[end - 1] == '\t'))
        end--;
    h->value.len = end - h->value.off;
    *pos = i + 2;
    return 0;
}

/* 1 to 19 digits, nothing else. */
static int length_value(const char *data, struct cp_http1_span v, uint64_t *out)
{
    uint64_t n = 0;
    if (v.len == 0 || v.len > 19)
        return -1;
    for (size_t i = 0; i < v.len; i++) {
        char c = data[v.off + i];
        if (c < '0' || c > '9')
            return -1;
        n = n * 10 + (uint64_t)(c - '0');
    }
    *out = n;
    return 0;
}

/* Whether a comma-separated header value lists token (case-insensitive). */
static bool lists(const char *data, struct cp_http1_span v, const char *token)
{
    size_t i = v.off, end = v.off + v.len, n = strlen(token);
    while (i < end) {
        while (i < end && (data[i] == ' ' || data[i] == '\t' || data[i] == ','))
            i++;
        size_t start = i;
        while (i < end && data[i] != ',')
            i++;
        size_t stop = i;
        while (stop > start && (data[stop - 1] == ' ' || data[stop - 1] == '\t'))
            stop--;
        if (stop - start == n && strncasecmp(data + start, token, n) == 0)
            return true;
    }
    return false;
}

/* "HTTP/1.0" or "HTTP/1.1" at data; the minor version, or -1. */
static int version(const char *data)
{
    if (strncmp(data, "HTTP/1.", 7) != 0 || (data[7] != '0' && data[7] != '1'))
        return -1;
    return data[7] - '0';
}

static int refuse(struct cp_http1_request *r, enum cp_egress_reason *reason,
                  enum cp_egress_reason why_reason, const char *why)
{
    *reason = why_reason;
    r->why = why;
    return 0;
}

/* METHOD SP request-target SP HTTP/1.x CRLF; the offset after it, or 0. */
static size_t request_line(const char *data, size_t end, struct cp_http1_request *r)
{
    size_t i = 0;
    while (i < end && tchar((unsigned char)data[i]))
        i++;
    if (i == 0 || i > CP_HTTP1_METHOD_MAX || data[i] != ' ')
        return 0;
    r->method = (struct cp_http1_span){0, i};
    size_t t = ++i;
    while (i < end && (unsigned char)data[i] > 0x20 && (unsigned char)data[i] < 0x7f)
        i++;
    if (i == t || data[i] != ' ' || i + 11 > end)
        return 0;
    r->target = (struct cp_http1_span){t, i - t};
    r->minor = version(data + i + 1);
    if (r->minor < 0 || data[i + 9] != '\r' || data[i + 10] != '\n')
        return 0;
    return i + 11;
}

/* Host as the tunnel's name, or that name with :443; nothing else. */
static bool host_matches(const char *data, struct cp_http1_span v, const char *host)
{
    size_t n = strlen(host);
    if (v.len < n || strncasecmp(data + v.off, host, n) != 0)
        return false;
    return v.len == n || (v.len == n + 4 && memcmp(data + v.off + n, ":443", 4) == 0);
}

struct seen {
    int lengths, encodings, hosts;
};

/* One header of a request; -1 with r->why and *reason set when it refuses the request. */
static int request_header(const char *data, const struct header *h, const char *host,
                          struct cp_http1_request *r, struct seen *s, enum cp_egress_reason *reason)
{
    if (span_is(data, h->name, "content-length")) {
        if (s->lengths++ > 0 || length_value(data, h->value, &r->length) < 0)
            return refuse(r, reason, CP_EGRESS_REQUEST, "several or malformed Content-Length"), -1;
    } else if (span_is(data, h->name, "transfer-encoding")) {
        if (s->encodings++ > 0 || !span_is(data, h->value, "chunked"))
            return refuse(r, reason, CP_EGRESS_REQUEST,
                          "a Transfer-Encoding other than one 'chunked'"),
                   -1;
    } else if (span_is(data, h->name, "host")) {
        if (s->hosts++ > 0)
            return refuse(r, reason, CP_EGRESS_REQUEST, "several Host headers"), -1;
        r->host = h->value;
        if (!host_matches(data, h->value, host))
            return refuse(r, reason, CP_EGRESS_HOST_HEADER, "the Host header names another host"),
                   -1;
    } else if (span_is(data, h->name, "upgrade")) {
        return refuse(r, reason, CP_EGRESS_REQUEST, "an Upgrade header"), -1;
    } else if (span_is(data, h->name, "connection")) {
        r->close = r->close || lists(data, h->value, "close");
    } else if (span_is(data, h->name, "expect")) {
        r->expect_continue = span_is(data, h->value, "100-continue");
    }
    return 0;
}

/* RFC 9110 gives these no defined body: a host may answer one without reading what follows
 * its head, and then reads those bytes as the next request ("CL.0"), one this proxy never
 * judged. So a body on them is refused, never dropped: dropping would send the box's request
 * changed, with no word why. */
static bool takes_no_body(const char *data, struct cp_http1_span method)
{
    static const char *const names[] = {"GET", "HEAD", "OPTIONS", "DELETE", "TRACE"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (method.len == strlen(names[i]) &&
            strncasecmp(data + method.off, names[i], method.len) == 0)
            return true;
    return false;
}

/* The framing the headers gave, once all are read. */
static int request_framing(const char *data, struct cp_http1_request *r, const struct seen *s,
                           enum cp_egress_reason *reason)
{
    if (s->lengths > 0 && s->encodings > 0)
        return refuse(r, reason, CP_EGRESS_REQUEST, "both Content-Length and Transfer-Encoding");
    if (s->encodings > 0 && r->minor == 0)
        return refuse(r, reason, CP_EGRESS_REQUEST, "Transfer-Encoding in HTTP/1.0");
    if (s->hosts == 0)
        return refuse(r, reason, CP_EGRESS_REQUEST, "no Host header");
    if ((s->encodings > 0 || r->length > 0) && takes_no_body(data, r->method))
        return refuse(r, reason, CP_EGRESS_HIDDEN_REQUEST,
                      "a body on a method that takes none; send it with POST");
    r->body = s->encodings    ? CP_HTTP1_BODY_CHUNKED
              : r->length > 0 ? CP_HTTP1_BODY_LENGTH
                              : CP_HTTP1_BODY_NONE;
    if (r->minor == 0)
        r->close = true;
    *reason = CP_EGRESS_ALLOWED;
    return 0;
}

static int request_target(const char *data, struct cp_http1_request *r,
                          enum cp_egress_reason *reason)
{
    if (span_is(data, r->method, "CONNECT"))
        return refuse(r, reason, CP_EGRESS_REQUEST, "CONNECT inside a tunnel"), -1;
    /* A fragment is never part of a request-target (RFC 9112 3.2): a host that cuts it would
     * read another path than the one judged here. */
    if (memchr(data + r->target.off, '#', r->target.len) != NULL)
        return refuse(r, reason, CP_EGRESS_REQUEST, "a '#' in the target"), -1;
    bool star = r->target.len == 1 && data[r->target.off] == '*';
    if (data[r->target.off] != '/' && !(star && span_is(data, r->method, "OPTIONS")))
        return refuse(r, reason, CP_EGRESS_REQUEST, "an absolute-form or authority-form target"),
               -1;
    return 0;
}

int cp_http1_parse_request(const char *data, size_t len, const char *host,
                           struct cp_http1_request *out, enum cp_egress_reason *reason)
{
    memset(out, 0, sizeof(*out));
    long end = head_end(data, len);
    if (end < 0)
        return refuse(out, reason, CP_EGRESS_REQUEST, "a bare LF");
    if (end == 0) {
        if (len < CP_HTTP1_HEAD_MAX)
            return 1;
        return refuse(out, reason, CP_EGRESS_HEAD_TOO_BIG, "a request head past 64 KiB");
    }
    if ((size_t)end > CP_HTTP1_HEAD_MAX)
        return refuse(out, reason, CP_EGRESS_HEAD_TOO_BIG, "a request head past 64 KiB");
    out->head_len = (size_t)end;
    size_t pos = request_line(data, out->head_len, out);
    if (pos == 0)
        return refuse(out, reason, CP_EGRESS_REQUEST, "not an HTTP/1.x request line");
    if (request_target(data, out, reason) < 0)
        return 0;
    struct seen s = {0};
    for (int count = 0; pos + 2 < out->head_len; count++) {
        struct header h;
        if (count >= CP_HTTP1_HEADERS_MAX)
            return refuse(out, reason, CP_EGRESS_HEAD_TOO_BIG, "too many headers");
        if (header_line(data, &pos, &h) < 0)
            return refuse(out, reason, CP_EGRESS_REQUEST,
                          "a malformed or folded header line, or a control byte");
        if (request_header(data, &h, host, out, &s, reason) < 0)
            return 0;
    }
    return request_framing(data, out, &s, reason);
}

bool cp_http1_looks_like_request(const char *data, size_t len)
{
    size_t i = 0;
    while (i < len && (data[i] == '\r' || data[i] == '\n' || data[i] == ' ' || data[i] == '\t'))
        i++;
    size_t token = i;
    while (i < len && tchar((unsigned char)data[i]))
        i++;
    if (i == token || i >= len || data[i] != ' ')
        return false;
    const char *t = data + i + 1;
    size_t left = len - i - 1;
    return left == 0 || t[0] == '/' || t[0] == '*' ||
           (left >= 4 && strncasecmp(t, "http", 4) == 0) ||
           (left < 4 && strncasecmp(t, "http", left) == 0);
}

/* Whether the header line at line[0..) is named name: the name, then its colon. */
static bool line_named(const char *line, size_t n, const char *name)
{
    size_t m = strlen(name);
    return n > m && line[m] == ':' && strncasecmp(line, name, m) == 0;
}

size_t cp_http1_drop_header(const char *data, size_t len, const char *name, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t n = nl != NULL ? (size_t)(nl - (data + i)) + 1 : len - i;
        /* The request line (i == 0) never is a header, whatever its first word. */
        if (i == 0 || !line_named(data + i, n, name)) {
            memcpy(out + o, data + i, n);
            o += n;
        }
        i += n;
    }
    return o;
}

char *cp_http1_set_header(const char *data, size_t len, const char *name, const char *value,
                          size_t *len_out)
{
    size_t extra = strlen(name) + 2 + strlen(value) + 2;
    char *out = xmalloc(len + extra + 1);
    size_t n = cp_http1_drop_header(data, len, name, out) - 2; /* the empty line, again below */
    n += (size_t)snprintf(out + n, extra + 1, "%s: %s\r\n", name, value);
    memcpy(out + n, "\r\n", 2);
    *len_out = n + 2;
    return out;
}

/* ---- responses ---- */

/* HTTP/1.x SP 3DIGIT [SP reason] CRLF; the offset after it, or 0. */
static size_t status_line(const char *data, size_t end, struct cp_http1_response *r, int *minor)
{
    if (end < 14 || (*minor = version(data)) < 0 || data[8] != ' ')
        return 0;
    for (int i = 9; i < 12; i++)
        if (data[i] < '0' || data[i] > '9')
            return 0;
    r->status = (data[9] - '0') * 100 + (data[10] - '0') * 10 + (data[11] - '0');
    size_t i = 12;
    if (data[i] == ' ')
        for (i++; data[i] != '\r'; i++)
            if (!value_char((unsigned char)data[i]))
                return 0;
    return data[i] == '\r' && data[i + 1] == '\n' ? i + 2 : 0;
}

struct rseen {
    int lengths, encodings;
    bool chunked;
    uint64_t length;
};

static int response_header(const char *data, const struct header *h, struct cp_http1_response *r,
                           struct rseen *s)
{
    if (span_is(data, h->name, "content-length")) {
        uint64_t n;
        if (length_value(data, h->value, &n) < 0 || (s->lengths++ > 0 && n != s->length))
            return -1;
        s->length = n;
    } else if (span_is(data, h->name, "transfer-encoding")) {
        s->encodings++;
        /* RFC 9112 6.3: chunked must be the final coding, else the body ends at the close. */
        size_t v = h->value.off + h->value.len;
        s->chunked = h->value.len >= 7 && strncasecmp(data + v - 7, "chunked", 7) == 0 &&
                     (h->value.len == 7 || data[v - 8] == ',' || data[v - 8] == ' ');
    } else if (span_is(data, h->name, "connection")) {
        r->close = r->close || lists(data, h->value, "close");
    } else if (span_is(data, h->name, "content-encoding")) {
        r->encoded = r->encoded || !span_is(data, h->value, "identity");
    }
    return 0;
}

static void response_framing(struct cp_http1_response *r, const struct rseen *s, bool head_request)
{
    bool none = head_request || r->status / 100 == 1 || r->status == 204 || r->status == 304;
    if (none)
        r->body = CP_HTTP1_BODY_NONE;
    else if (s->encodings > 0)
        r->body = s->chunked ? CP_HTTP1_BODY_CHUNKED : CP_HTTP1_BODY_CLOSE;
    else if (s->lengths > 0)
        r->body = s->length > 0 ? CP_HTTP1_BODY_LENGTH : CP_HTTP1_BODY_NONE;
    else
        r->body = CP_HTTP1_BODY_CLOSE;
    r->length = s->length;
    /* A response framed by both headers may have been read otherwise on the way: it is the
     * last on its connection (RFC 9112 6.3 point 3). */
    if (r->body == CP_HTTP1_BODY_CLOSE || (s->encodings > 0 && s->lengths > 0))
        r->close = true;
}

int cp_http1_parse_response(const char *data, size_t len, bool head_request,
                            struct cp_http1_response *out)
{
    memset(out, 0, sizeof(*out));
    long end = head_end(data, len);
    if (end < 0)
        return -1;
    if (end == 0)
        return len < CP_HTTP1_HEAD_MAX ? 1 : -1;
    if ((size_t)end > CP_HTTP1_HEAD_MAX)
        return -1;
    out->head_len = (size_t)end;
    int minor = 1;
    size_t pos = status_line(data, out->head_len, out, &minor);
    if (pos == 0 || out->status < 100 || out->status == 101)
        return -1;
    struct rseen s = {0};
    for (int count = 0; pos + 2 < out->head_len; count++) {
        struct header h;
        if (count >= CP_HTTP1_HEADERS_MAX || header_line(data, &pos, &h) < 0 ||
            response_header(data, &h, out, &s) < 0)
            return -1;
    }
    response_framing(out, &s, head_request);
    if (minor == 0)
        out->close = true;
    return 0;
}

/* ---- chunked bodies ---- */

enum {
    CH_SIZE = 0, /* hex digits of a chunk's size */
    CH_EXT,      /* after ';' until CR */
    CH_SIZE_LF,  /* the LF of the size line */
    CH_DATA,     /* the chunk's bytes */
    CH_DATA_CR,  /* the CRLF after them */
    CH_DATA_LF,
    CH_LINE_START, /* after the last chunk: a trailer line, or the final CRLF */
    CH_TRAILER,
    CH_TRAILER_LF,
    CH_END_LF,
};

/* One byte of framing (every state but CH_DATA); -1 when malformed, 1 at the body's end. */
static int chunk_byte(struct cp_http1_chunked *c, char b)
{
    if (++c->line > CHUNK_LINE_MAX)
        return -1;
    switch (c->state) {
    case CH_SIZE:
        if (cp_hex_value(b) >= 0 && c->digits < 15) {
            c->left = c->left * 16 + (uint64_t)cp_hex_value(b);
            c->digits++;
            return 0;
        }
        if (c->digits == 0 || (b != ';' && b != '\r'))
            return -1;
        c->state = b == ';' ? CH_EXT : CH_SIZE_LF;
        return 0;
    case CH_EXT:
        if (b == '\r')
            c->state = CH_SIZE_LF;
        else if (!value_char((unsigned char)b))
            return -1;
        return 0;
    case CH_SIZE_LF:
        if (b != '\n')
            return -1;
        c->line = 0;
        c->last = c->left == 0;
        c->state = c->last ? CH_LINE_START : CH_DATA;
        return 0;
    case CH_DATA_CR:
        c->state = CH_DATA_LF;
        return b == '\r' ? 0 : -1;
    case CH_DATA_LF:
        c->state = CH_SIZE;
        c->line = 0;
        c->digits = 0;
        return b == '\n' ? 0 : -1;
    case CH_LINE_START:
        c->state = b == '\r' ? CH_END_LF : CH_TRAILER;
        return b == '\r' || value_char((unsigned char)b) ? 0 : -1;
    case CH_TRAILER:
        if (b == '\r')
            c->state = CH_TRAILER_LF;
        else if (!value_char((unsigned char)b))
            return -1;
        return 0;
    case CH_TRAILER_LF:
        c->state = CH_LINE_START;
        c->line = 0;
        return b == '\n' ? 0 : -1;
    case CH_END_LF:
        return b == '\n' ? 1 : -1;
    default:
        return -1;
    }
}

uint64_t cp_http1_chunked_data_left(const struct cp_http1_chunked *c)
{
    return c->state == CH_DATA ? c->left : 0;
}

ssize_t cp_http1_chunked_feed(struct cp_http1_chunked *c, const char *data, size_t len, bool *done)
{
    size_t i = 0;
    *done = false;
    while (i < len) {
        if (c->state == CH_DATA) {
            size_t take = c->left < len - i ? (size_t)c->left : len - i;
            i += take;
            c->left -= take;
            if (c->left == 0)
                c->state = CH_DATA_CR;
            continue;
        }
        int r = chunk_byte(c, data[i++]);
        if (r < 0)
            return -1;
        if (r == 1) {
            *done = true;
            break;
        }
    }
    return (ssize_t)i;
}
