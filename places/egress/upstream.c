/* The upstream proxy's URL, NO_PROXY, the CONNECT we send it and the answer we read back. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "places/egress/addr.h"
#include "places/egress/upstream.h"
#include "src/base/digest.h"
#include "src/base/util.h"

#define NO_PROXY_MAX 256

static int hex(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Percent-decodes s[0..n) into out (room for n + 1 bytes); -1 on a bad escape or a NUL. */
static int unescape(const char *s, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int ch = (unsigned char)s[i];
        if (ch == '%') {
            if (n - i < 3 || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
                return -1;
            ch = hex(s[i + 1]) * 16 + hex(s[i + 2]);
            i += 2;
        }
        if (ch == 0)
            return -1;
        out[k++] = (char)ch;
    }
    out[k] = '\0';
    return 0;
}

/* "user:password" (still escaped) into a Basic credential. */
static int take_auth(const char *info, size_t n, struct cp_egress_upstream *out, cp_error_t *err)
{
    cleanup_free char *plain = xmalloc(n + 1);
    if (unescape(info, n, plain) < 0) {
        explicit_bzero(plain, n + 1);
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "the upstream proxy's user or password has a bad %%-escape");
    }
    if (strchr(plain, ':') == NULL) {
        /* "user@host": an empty password, as curl sends it. */
        char *with = xasprintf("%s:", plain);
        explicit_bzero(plain, strlen(plain));
        free(plain);
        plain = with;
    }
    cleanup_free char *b64 = cp_base64_encode(plain, strlen(plain));
    out->auth = xasprintf("Basic %s", b64);
    explicit_bzero(plain, strlen(plain));
    explicit_bzero(b64, strlen(b64));
    return 0;
}

static int take_host_port(const char *s, size_t n, struct cp_egress_upstream *out, cp_error_t *err)
{
    const char *host = s, *colon = NULL;
    size_t hlen = n;
    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (close == NULL)
            return cp_error_make(err, CP_ERR_USAGE, 0, "the upstream proxy's address lacks ']'");
        host = s + 1;
        hlen = (size_t)(close - s - 1);
        if ((size_t)(close - s) + 1 < n) {
            if (close[1] != ':')
                return cp_error_make(err, CP_ERR_USAGE, 0, "the upstream proxy's port is bad");
            colon = close + 1;
        }
    } else if ((colon = memchr(s, ':', n)) != NULL) {
        hlen = (size_t)(colon - s);
    }
    if (hlen == 0 || hlen >= sizeof(out->host))
        return cp_error_make(err, CP_ERR_USAGE, 0, "the upstream proxy's URL names no host");
    memcpy(out->host, host, hlen);
    out->host[hlen] = '\0';
    for (size_t i = 0; i < hlen; i++)
        if (!isalnum((unsigned char)host[i]) && !strchr(".-:", host[i]))
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "the upstream proxy's host '%s' is not a name or an address",
                                 out->host);
    long port = 80;
    if (colon != NULL) {
        char text[8];
        size_t plen = n - (size_t)(colon + 1 - s);
        if (plen == 0 || plen >= sizeof(text))
            return cp_error_make(err, CP_ERR_USAGE, 0, "the upstream proxy's port is bad");
        memcpy(text, colon + 1, plen);
        text[plen] = '\0';
        if (cp_parse_long(text, 1, 65535, &port) < 0)
            return cp_error_make(err, CP_ERR_USAGE, 0, "the upstream proxy's port is bad");
    }
    out->port = (unsigned)port;
    return 0;
}

static void add_no_proxy(struct cp_egress_upstream *u, const char *list)
{
    cleanup_free char *copy = xstrdup(list);
    char *save = NULL;
    for (char *t = strtok_r(copy, ", \t", &save); t != NULL && u->nno_proxy < NO_PROXY_MAX;
         t = strtok_r(NULL, ", \t", &save)) {
        if (strcmp(t, "*") == 0) {
            u->no_proxy_all = true;
            continue;
        }
        while (*t == '.' || *t == '*') /* ".example.org" and "*.example.org" mean the same */
            t++;
        char *colon = strrchr(t, ':');
        if (colon != NULL && strchr(t, ']') == NULL && strchr(colon, '.') == NULL &&
            colon == strchr(t, ':')) {
            if (strcmp(colon + 1, "443") != 0)
                continue; /* another port: never ours */
            *colon = '\0';
        }
        size_t len = strlen(t);
        if (len > 0 && t[len - 1] == '.')
            t[--len] = '\0';
        if (len == 0)
            continue;
        for (char *c = t; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        u->no_proxy = xrealloc(u->no_proxy, (u->nno_proxy + 1) * sizeof(char *));
        u->no_proxy[u->nno_proxy++] = xstrdup(t);
    }
}

int cp_egress_upstream_parse(const char *url, const char *no_proxy, struct cp_egress_upstream *out,
                             cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    const char *rest = url, *sep = strstr(url, "://");
    if (sep != NULL) {
        if ((size_t)(sep - url) != 4 || strncasecmp(url, "http", 4) != 0)
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "the upstream proxy (HTTPS_PROXY) must be an http:// URL: the "
                                 "sidecar speaks plain HTTP CONNECT to it");
        rest = sep + 3;
    }
    size_t n = strcspn(rest, "/?#");
    for (size_t i = n; rest[i] != '\0'; i++)
        if (rest[i] != '/')
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "the upstream proxy's URL must hold no path or query");
    const char *at = NULL;
    for (size_t i = 0; i < n; i++)
        if (rest[i] == '@')
            at = rest + i; /* the last '@': a password may hold one unescaped */
    int r = 0;
    if (at != NULL)
        r = take_auth(rest, (size_t)(at - rest), out, err);
    if (r == 0)
        r = take_host_port(at ? at + 1 : rest, at ? n - (size_t)(at + 1 - rest) : n, out, err);
    if (r == 0 && no_proxy != NULL)
        add_no_proxy(out, no_proxy);
    if (r < 0)
        cp_egress_upstream_dispose(out);
    return r;
}

static const char *env_either(const char *lower, const char *upper)
{
    const char *v = getenv(lower);
    if (v == NULL || v[0] == '\0')
        v = getenv(upper);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

int cp_egress_upstream_from_env(struct cp_egress_upstream *out, cp_error_t *err)
{
    const char *url = env_either("https_proxy", "HTTPS_PROXY");
    memset(out, 0, sizeof(*out));
    if (url == NULL)
        return 0;
    if (cp_egress_upstream_parse(url, env_either("no_proxy", "NO_PROXY"), out, err) < 0)
        return cp_error_wrap(err, "HTTPS_PROXY");
    return 0;
}

bool cp_egress_upstream_applies(const struct cp_egress_upstream *u, const char *host)
{
    if (u == NULL || u->host[0] == '\0' || u->no_proxy_all)
        return false;
    size_t hlen = strlen(host);
    for (size_t i = 0; i < u->nno_proxy; i++) {
        const char *e = u->no_proxy[i];
        size_t elen = strlen(e);
        if (strcmp(host, e) == 0 ||
            (hlen > elen && host[hlen - elen - 1] == '.' && strcmp(host + hlen - elen, e) == 0))
            return false;
    }
    return true;
}

size_t cp_egress_upstream_request(const struct cp_egress_upstream *u, const char *host, char *out,
                                  size_t size)
{
    int n = snprintf(out, size, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n%s%s%s\r\n", host, host,
                     u->auth ? "Proxy-Authorization: " : "", u->auth ? u->auth : "",
                     u->auth ? "\r\n" : "");
    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

int cp_egress_upstream_answer(const char *data, size_t len, int *status, size_t *head_len)
{
    static const char prefix[] = "HTTP/1.";
    size_t cmp = len < sizeof(prefix) - 1 ? len : sizeof(prefix) - 1;
    if (memcmp(data, prefix, cmp) != 0)
        return -1;
    const char *end = NULL;
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(data + i, "\r\n\r\n", 4) == 0) {
            end = data + i + 4;
            break;
        }
    if (end == NULL)
        return len >= CP_EGRESS_UPSTREAM_ANSWER_MAX ? -1 : 1;
    /* "HTTP/1.x SSS" */
    if (end - data < 13 || !isdigit((unsigned char)data[7]) || data[8] != ' ' ||
        !isdigit((unsigned char)data[9]) || !isdigit((unsigned char)data[10]) ||
        !isdigit((unsigned char)data[11]))
        return -1;
    *status = (data[9] - '0') * 100 + (data[10] - '0') * 10 + (data[11] - '0');
    *head_len = (size_t)(end - data);
    return 0;
}

void cp_egress_upstream_dispose(struct cp_egress_upstream *u)
{
    if (u->auth != NULL) {
        explicit_bzero(u->auth, strlen(u->auth));
        free(u->auth);
    }
    for (size_t i = 0; i < u->nno_proxy; i++)
        free(u->no_proxy[i]);
    free(u->no_proxy);
    memset(u, 0, sizeof(*u));
}
