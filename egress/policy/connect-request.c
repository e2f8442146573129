/* The CONNECT request parser. Strict on purpose: every leniency in a proxy parser has been a
 * smuggling or bypass bug somewhere (research/abuse-cases.md, cases 68 to 81). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "egress/policy/connect-request.h"
#include "src/base/hostname.h"

struct span {
    const char *p;
    size_t n;
};

static bool span_is(struct span s, const char *text)
{
    return s.n == strlen(text) && memcmp(s.p, text, s.n) == 0;
}

static bool span_has(struct span s, const char *needle)
{
    size_t nl = strlen(needle);
    for (size_t i = 0; i + nl <= s.n; i++)
        if (memcmp(s.p + i, needle, nl) == 0)
            return true;
    return false;
}

/* RFC 9110 tchar. */
static bool is_tchar(unsigned char c)
{
    return isalnum(c) || (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static void copy_printable(char *out, size_t size, struct span s)
{
    size_t n = s.n < size - 1 ? s.n : size - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        out[i] = (c > 0x20 && c < 0x7f && c != '"' && c != '\\') ? (char)c : '?';
    }
    out[n] = '\0';
}

/* Anything inet_aton takes ("127.1", "0x7f.1", "2130706433") or a name whose last label is
 * all digits: a resolver would treat it as an address, so it is one. */
static bool looks_numeric(const char *host)
{
    struct in_addr a;
    const char *dot = strrchr(host, '.');
    const char *last = dot ? dot + 1 : host;
    return inet_aton(host, &a) != 0 ||
           (*last != '\0' && strspn(last, "0123456789") == strlen(last));
}

static enum cp_egress_reason parse_host(struct span h, struct cp_egress_request *out)
{
    if (h.n == 0 || h.n > 254)
        return h.n == 0 ? CP_EGRESS_MALFORMED : CP_EGRESS_BAD_HOST;
    char host[256];
    for (size_t i = 0; i < h.n; i++) {
        unsigned char c = (unsigned char)h.p[i];
        host[i] = c == '\0' ? '?' : (char)tolower(c);
    }
    host[h.n] = '\0';
    struct in6_addr a6;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return CP_EGRESS_IP_LITERAL; /* "::1:443" without brackets */
    if (strspn(host, "abcdefghijklmnopqrstuvwxyz0123456789.-_") != h.n)
        return CP_EGRESS_BAD_HOST;
    size_t n = h.n;
    if (host[n - 1] == '.')
        host[--n] = '\0'; /* "name." is the same name, fully qualified */
    if (n == 0)
        return CP_EGRESS_BAD_HOST;
    if (looks_numeric(host))
        return CP_EGRESS_IP_LITERAL;
    if (!cp_hostname_valid(host) || host[n - 1] == '.')
        return CP_EGRESS_BAD_HOST;
    memcpy(out->host, host, n + 1);
    return CP_EGRESS_ALLOWED;
}

static enum cp_egress_reason parse_authority(struct span t, struct cp_egress_request *out)
{
    if (t.n > 0 && t.p[0] == '[')
        return CP_EGRESS_IP_LITERAL;
    const char *colon = NULL;
    for (size_t i = 0; i < t.n; i++)
        if (t.p[i] == ':')
            colon = t.p + i;
    if (colon == NULL)
        return CP_EGRESS_MALFORMED; /* CONNECT needs host:port */
    struct span host = {t.p, (size_t)(colon - t.p)};
    struct span port = {colon + 1, t.n - host.n - 1};
    enum cp_egress_reason r = parse_host(host, out);
    if (r == CP_EGRESS_IP_LITERAL || r == CP_EGRESS_MALFORMED)
        return r;
    /* Exactly the digits 443: no "0443", "+443", "443.0" or 443 + 2^32. */
    if (!span_is(port, "443"))
        return CP_EGRESS_PORT;
    out->port = 443;
    return r;
}

static enum cp_egress_reason parse_request_line(struct span line, struct cp_egress_request *out)
{
    const char *sp1 = memchr(line.p, ' ', line.n);
    if (sp1 == NULL)
        return CP_EGRESS_MALFORMED;
    struct span method = {line.p, (size_t)(sp1 - line.p)};
    struct span rest = {sp1 + 1, line.n - method.n - 1};
    const char *sp2 = memchr(rest.p, ' ', rest.n);
    if (sp2 == NULL)
        return CP_EGRESS_MALFORMED;
    struct span target = {rest.p, (size_t)(sp2 - rest.p)};
    struct span version = {sp2 + 1, rest.n - target.n - 1};
    copy_printable(out->target, sizeof(out->target), target);
    if (method.n == 0 || target.n == 0)
        return CP_EGRESS_MALFORMED;
    for (size_t i = 0; i < method.n; i++)
        if (!is_tchar((unsigned char)method.p[i]))
            return CP_EGRESS_MALFORMED;
    if (span_has(target, "://"))
        return CP_EGRESS_ABSOLUTE_FORM;
    if (!span_is(method, "CONNECT"))
        return CP_EGRESS_NOT_CONNECT;
    if (!span_is(version, "HTTP/1.1") && !span_is(version, "HTTP/1.0"))
        return CP_EGRESS_MALFORMED;
    return parse_authority(target, out);
}

static bool header_name_is(struct span name, const char *want)
{
    return name.n == strlen(want) && strncasecmp(name.p, want, name.n) == 0;
}

static enum cp_egress_reason parse_header(struct span line, struct cp_egress_request *out)
{
    if (line.p[0] == ' ' || line.p[0] == '\t')
        return CP_EGRESS_MALFORMED; /* obs-fold: a continuation some parsers join, some not */
    size_t i = 0;
    while (i < line.n && is_tchar((unsigned char)line.p[i]))
        i++;
    if (i == 0 || i == line.n || line.p[i] != ':')
        return CP_EGRESS_MALFORMED; /* includes "Name : value" */
    struct span name = {line.p, i};
    struct span value = {line.p + i + 1, line.n - i - 1};
    while (value.n > 0 && (value.p[0] == ' ' || value.p[0] == '\t'))
        value.p++, value.n--;
    while (value.n > 0 && (value.p[value.n - 1] == ' ' || value.p[value.n - 1] == '\t'))
        value.n--;
    for (size_t k = 0; k < value.n; k++) {
        unsigned char c = (unsigned char)value.p[k];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return CP_EGRESS_MALFORMED;
    }
    if (header_name_is(name, "Content-Length") || header_name_is(name, "Transfer-Encoding"))
        return CP_EGRESS_BODY;
    if (!header_name_is(name, "Proxy-Authorization"))
        return CP_EGRESS_ALLOWED; /* read, never forwarded: nothing else to check */
    if (out->auth[0] != '\0' || value.n == 0 || value.n >= sizeof(out->auth))
        return CP_EGRESS_MALFORMED;
    memcpy(out->auth, value.p, value.n);
    out->auth[value.n] = '\0';
    return CP_EGRESS_ALLOWED;
}

/* Finds the end of the head; a CR or LF that is not part of a CRLF is malformed at once. */
static int find_head_end(const char *data, size_t len, size_t *end, enum cp_egress_reason *reason)
{
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r')) {
            *reason = CP_EGRESS_MALFORMED;
            return 0;
        }
        if (data[i] == '\r' && i + 1 < len && data[i + 1] != '\n') {
            *reason = CP_EGRESS_MALFORMED;
            return 0;
        }
        if (data[i] == '\n' && i >= 3 && data[i - 2] == '\n') {
            *end = i + 1;
            return i + 1 > CP_EGRESS_HEAD_MAX ? (*reason = CP_EGRESS_HEAD_TOO_BIG, 0) : 2;
        }
        if (data[i] == '\n' && i == 1) {
            *reason = CP_EGRESS_MALFORMED; /* an empty request line */
            return 0;
        }
    }
    if (len >= CP_EGRESS_HEAD_MAX) {
        *reason = CP_EGRESS_HEAD_TOO_BIG;
        return 0;
    }
    return 1;
}

static enum cp_egress_reason parse_lines(const char *data, size_t end,
                                         struct cp_egress_request *out)
{
    size_t start = 0, count = 0;
    enum cp_egress_reason first = CP_EGRESS_ALLOWED;
    while (start + 2 < end) {
        const char *lf = memchr(data + start, '\n', end - start);
        struct span line = {data + start, (size_t)(lf - data - start) - 1};
        for (size_t k = 0; k < line.n; k++)
            if (line.p[k] == '\0')
                return CP_EGRESS_MALFORMED;
        enum cp_egress_reason r;
        if (start == 0)
            r = parse_request_line(line, out);
        else if (++count > CP_EGRESS_HEADERS_MAX)
            return CP_EGRESS_HEAD_TOO_BIG;
        else
            r = parse_header(line, out);
        if (r == CP_EGRESS_MALFORMED || r == CP_EGRESS_BODY)
            return r; /* a broken or bodied head is broken whatever its target */
        if (first == CP_EGRESS_ALLOWED)
            first = r;
        start = (size_t)(lf - data) + 1;
    }
    return first;
}

int cp_egress_parse_head(const char *data, size_t len, struct cp_egress_request *out,
                         enum cp_egress_reason *reason)
{
    memset(out, 0, sizeof(*out));
    size_t end = 0;
    int found = find_head_end(data, len, &end, reason);
    if (found != 2)
        return found;
    out->head_len = end;
    *reason = parse_lines(data, end, out);
    if (*reason == CP_EGRESS_ALLOWED && len > end)
        *reason = CP_EGRESS_EARLY_DATA;
    return 0;
}
