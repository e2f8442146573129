/* The door's judge: one request head, read with explicit lengths, refused at the first thing
 * a runner or curl would not send. The order of the checks is the order of the dangers: a web
 * page (Origin, Sec-Fetch-*) and another name (Host, DNS rebinding) are refused before the
 * method, the path or the ticket are even looked at. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "relay/request.h"

struct span {
    const char *p;
    size_t n;
};

struct head {
    struct span method, target, version;
    struct span host, accept;
    int hosts;
    bool origin, fetch_meta, body;
};

static bool span_is(struct span s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static bool span_is_nocase(struct span s, const char *lit)
{
    return s.n == strlen(lit) && strncasecmp(s.p, lit, s.n) == 0;
}

static int refuse(struct cp_relay_verdict *out, int status, const char *reason)
{
    out->status = status;
    out->reason = reason;
    return 0;
}

/* RFC 9110 tchar */
static bool is_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool is_vchar(unsigned char c)
{
    return c > 0x20 && c < 0x7f;
}

/* METHOD SP TARGET SP HTTP/1.x, nothing else. */
static bool parse_request_line(struct span line, struct head *h)
{
    const char *sp1 = memchr(line.p, ' ', line.n);
    if (sp1 == NULL)
        return false;
    const char *rest = sp1 + 1;
    size_t rest_n = line.n - (size_t)(rest - line.p);
    const char *sp2 = memchr(rest, ' ', rest_n);
    if (sp2 == NULL)
        return false;
    h->method = (struct span){line.p, (size_t)(sp1 - line.p)};
    h->target = (struct span){rest, (size_t)(sp2 - rest)};
    h->version = (struct span){sp2 + 1, rest_n - h->target.n - 1};
    if (h->method.n == 0 || h->target.n == 0)
        return false;
    for (size_t i = 0; i < h->method.n; i++)
        if (!is_tchar((unsigned char)h->method.p[i]))
            return false;
    for (size_t i = 0; i < h->target.n; i++)
        if (!is_vchar((unsigned char)h->target.p[i]))
            return false;
    return span_is(h->version, "HTTP/1.1") || span_is(h->version, "HTTP/1.0");
}

static struct span trim(const char *p, size_t n)
{
    while (n > 0 && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    return (struct span){p, n};
}

/* name ":" OWS value OWS; a name that is not a token (or a folded line) is malformed. */
static bool parse_header(struct span line, struct head *h)
{
    const char *colon = memchr(line.p, ':', line.n);
    if (colon == NULL || colon == line.p)
        return false;
    struct span name = {line.p, (size_t)(colon - line.p)};
    for (size_t i = 0; i < name.n; i++)
        if (!is_tchar((unsigned char)name.p[i]))
            return false;
    struct span value = trim(colon + 1, line.n - name.n - 1);
    for (size_t i = 0; i < value.n; i++) {
        unsigned char c = (unsigned char)value.p[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    }
    if (span_is_nocase(name, "Origin"))
        h->origin = true;
    else if (name.n > 10 && strncasecmp(name.p, "Sec-Fetch-", 10) == 0)
        h->fetch_meta = true;
    else if (span_is_nocase(name, "Host"))
        h->host = value, h->hosts++;
    else if (span_is_nocase(name, "Accept"))
        h->accept = value;
    else if (span_is_nocase(name, "Transfer-Encoding") ||
             (span_is_nocase(name, "Content-Length") && !span_is(value, "0")))
        h->body = true;
    return true;
}

/* Splits the head into lines ending in CRLF; a bare CR or LF is malformed. */
static int parse_lines(const char *data, size_t head_len, struct head *h,
                       struct cp_relay_verdict *out)
{
    size_t off = 0;
    for (int n = 0;; n++) {
        const char *lf = memchr(data + off, '\n', head_len - off);
        size_t end = (size_t)(lf - data);
        if (end == off + 1 && data[off] == '\r')
            return n == 0 ? refuse(out, 400, "malformed request: no request line") : 1;
        if (end == off || data[end - 1] != '\r')
            return refuse(out, 400, "malformed request: lines end in CRLF");
        struct span line = {data + off, end - 1 - off};
        if (memchr(line.p, '\r', line.n) != NULL || memchr(line.p, '\0', line.n) != NULL)
            return refuse(out, 400, "malformed request: a stray CR or NUL");
        if (n > CP_RELAY_HEADERS_MAX)
            return refuse(out, 431, "too many header lines");
        bool good = n == 0 ? parse_request_line(line, h) : parse_header(line, h);
        if (!good)
            return refuse(out, 400, n == 0 ? "malformed request line" : "malformed header line");
        off = end + 1;
    }
}

static bool host_is_door(struct span host, unsigned port)
{
    char a[32], b[32];
    snprintf(a, sizeof(a), "127.0.0.1:%u", port);
    snprintf(b, sizeof(b), "localhost:%u", port);
    return span_is(host, a) || span_is_nocase(host, b);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* "/run/" and 64 lower-case hex digits, nothing after (no query, no fragment). The decoded
 * bytes are hashed and wiped here. */
static bool ticket_hash(struct span target, uint8_t hash[CP_SHA256_LEN])
{
    static const char prefix[] = "/run/";
    if (target.n != sizeof(prefix) - 1 + CP_RELAY_TICKET_HEX ||
        memcmp(target.p, prefix, sizeof(prefix) - 1) != 0)
        return false;
    const char *hex = target.p + sizeof(prefix) - 1;
    uint8_t raw[CP_RELAY_TICKET_LEN];
    bool good = true;
    for (size_t i = 0; i < CP_RELAY_TICKET_LEN; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        good = good && hi >= 0 && lo >= 0;
        raw[i] = (uint8_t)((hi & 15) << 4 | (lo & 15));
    }
    if (good)
        cp_sha256(raw, sizeof(raw), hash);
    explicit_bzero(raw, sizeof(raw));
    return good;
}

/* An Accept naming the framed type (alone or in a list) asks for frames. */
static bool wants_frames(struct span accept)
{
    size_t tn = strlen(CP_RELAY_FRAMES_TYPE);
    for (size_t i = 0; i + tn <= accept.n; i++)
        if (strncasecmp(accept.p + i, CP_RELAY_FRAMES_TYPE, tn) == 0 &&
            (i == 0 || accept.p[i - 1] == ' ' || accept.p[i - 1] == ',') &&
            (i + tn == accept.n || strchr(" ,;", accept.p[i + tn]) != NULL))
            return true;
    return false;
}

static int judge_head(const struct head *h, unsigned port, struct cp_relay_verdict *out)
{
    if (h->origin)
        return refuse(out, 403, "a request with an Origin header (a web page's) is refused");
    if (h->fetch_meta)
        return refuse(out, 403, "a browser's request (Sec-Fetch-*) is refused");
    if (h->hosts != 1)
        return refuse(out, 400, h->hosts == 0 ? "no Host header" : "more than one Host header");
    if (!host_is_door(h->host, port))
        return refuse(out, 421, "the Host is not this door (127.0.0.1:PORT or localhost:PORT)");
    if (!span_is(h->method, "GET"))
        return refuse(out, 405, "only GET /run/TICKET is served here");
    if (h->body)
        return refuse(out, 400, "a run takes no request body");
    if (!ticket_hash(h->target, out->ticket_hash))
        return refuse(out, 404, "no such path: only /run/TICKET (64 hex digits) is served");
    out->form = wants_frames(h->accept) ? CP_RELAY_FRAMES : CP_RELAY_PLAIN;
    out->status = 0;
    out->reason = "a run";
    return 0;
}

int cp_relay_judge(const char *data, size_t len, unsigned port, struct cp_relay_verdict *out)
{
    memset(out, 0, sizeof(*out));
    const char *end = memmem(data, len, "\r\n\r\n", 4);
    if (end == NULL) {
        if (len >= CP_RELAY_HEAD_MAX)
            return refuse(out, 431, "the request head is too large");
        /* A bare LF ending the head would never be found: refuse it now, not at the bound. */
        if (memmem(data, len, "\n\n", 2) != NULL || memmem(data, len, "\n\r\n", 3) != NULL)
            return refuse(out, 400, "malformed request: lines end in CRLF");
        return 1;
    }
    out->head_len = (size_t)(end - data) + 4;
    if (out->head_len > CP_RELAY_HEAD_MAX)
        return refuse(out, 431, "the request head is too large");
    struct head h = {0};
    if (parse_lines(data, out->head_len, &h, out) == 0)
        return 0;
    return judge_head(&h, port, out);
}

const char *cp_relay_status_text(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 410:
        return "Gone";
    case 421:
        return "Misdirected Request";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}
