/* The upstream proxy's URL (read by libcurl's URL parser), NO_PROXY, the CONNECT we send it and
 * the answer we read back. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "egress/policy/policy.h"
#include "egress/proxy/upstream.h"
#include "src/base/digest.h"
#include "src/base/http.h"
#include "src/base/util.h"

#define NO_PROXY_MAX 256

#define URL_SCHEME_WORDS                                                                           \
    "the upstream proxy (HTTPS_PROXY) must be an http:// URL: the sidecar speaks plain HTTP "      \
    "CONNECT to it"
#define URL_PORT_WORDS "the upstream proxy's port is bad"
#define URL_HOST_WORDS "the upstream proxy's URL names no host"

/* A part curl handed back, wiped first: it may be the password. */
static void cleanup_curl_part(char **s)
{
    if (*s == NULL)
        return;
    explicit_bzero(*s, strlen(*s));
    curl_free(*s);
}

#define cleanup_curl_part __attribute__((cleanup(cleanup_curl_part)))

/* The URL's parts as written, for what curl reads otherwise: the user-info (up to the last '@',
 * since a password may hold one unescaped, where curl splits at the first) and the host and
 * port after it. */
struct url_text {
    const char *info; /* NULL without a '@' */
    size_t info_len;
    const char *host_port;
    size_t host_port_len;
};

/* No scheme reads as http:// (as curl reads a proxy); another is refused. Then nothing but
 * slashes after the host. Both are looked for in the text, since curl takes "http:/h" for a URL
 * and a '/', '?' or '#' in a password for the end of the host, and drops an empty '#'. */
static int split_url(const char *url, struct url_text *out, cp_error_t *err)
{
    const char *rest = url;
    if (strstr(url, "://") != NULL) {
        if (strncasecmp(url, "http://", 7) != 0)
            return cp_error_make(err, CP_ERR_USAGE, 0, URL_SCHEME_WORDS);
        rest = url + 7;
    }
    size_t n = strcspn(rest, "/?#");
    if (rest[n + strspn(rest + n, "/")] != '\0')
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "the upstream proxy's URL must hold no path or query");
    const char *at = NULL;
    for (size_t i = 0; i < n; i++)
        if (rest[i] == '@')
            at = rest + i;
    *out = (struct url_text){.info = at ? rest : NULL,
                             .info_len = at ? (size_t)(at - rest) : 0,
                             .host_port = at ? at + 1 : rest,
                             .host_port_len = at ? n - (size_t)(at + 1 - rest) : n};
    return 0;
}

/* The user-info as curl is to read it: each %-escape checked (curl passes a bad one on, and %00
 * would end the password early), every other byte but letters, digits and the first ':'
 * escaped, so that what curl decodes is what was written, '@' and spaces included. */
static char *escape_info(const char *s, size_t n)
{
    char *out = xcalloc(3 * n + 1, 1), *o = out; /* zeroed: wiped by strlen on an early end */
    bool colon = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '%') {
            if (n - i < 3 || cp_hex_value(s[i + 1]) < 0 || cp_hex_value(s[i + 2]) < 0 ||
                (s[i + 1] == '0' && s[i + 2] == '0')) {
                cp_free_secret(out);
                return NULL;
            }
            *o++ = '%';
        } else if (isalnum(ch) || (ch == ':' && !colon)) {
            colon = colon || ch == ':';
            *o++ = (char)ch;
        } else {
            o += snprintf(o, 4, "%%%02X", ch);
        }
    }
    *o = '\0';
    return out;
}

/* The host as written (within brackets, or up to the port), for a message about it. */
static void host_words(const struct url_text *t, char *out, size_t size)
{
    const char *h = t->host_port;
    size_t n = t->host_port_len;
    if (n > 0 && h[0] == '[') {
        const char *close = memchr(h, ']', n);
        n = close ? (size_t)(close - h - 1) : n - 1;
        h++;
    } else {
        const char *colon = memchr(h, ':', n);
        n = colon ? (size_t)(colon - h) : n;
    }
    snprintf(out, size, "%.*s", (int)n, h);
}

/* A name or an address holds only these (curl takes more). */
static bool host_chars_ok(const char *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && !strchr(".-:", h[i]))
            return false;
    return true;
}

static int bad_host(const char *host, cp_error_t *err)
{
    return cp_error_make(err, CP_ERR_USAGE, 0,
                         "the upstream proxy's host '%s' is not a name or an address", host);
}

/* curl's refusal of the URL in our words, which never repeat it (it may hold the password).
 * The host is judged before the port, as the words have always said. */
static int url_refused(CURLUcode rc, const struct url_text *t, cp_error_t *err)
{
    const char *hp = t->host_port, *end = hp + t->host_port_len;
    bool bracket = hp < end && hp[0] == '[';
    const char *close = bracket ? memchr(hp, ']', t->host_port_len) : NULL;
    if (bracket && close == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the upstream proxy's address lacks ']'");
    if (close != NULL && close + 1 < end && close[1] != ':')
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_PORT_WORDS);
    char host[256];
    host_words(t, host, sizeof(host));
    if (rc == CURLUE_NO_HOST || host[0] == '\0')
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_HOST_WORDS);
    if (rc == CURLUE_BAD_PORT_NUMBER && host_chars_ok(host, strlen(host)))
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_PORT_WORDS);
    return bad_host(host, err);
}

/* Hands the URL to curl's parser (CURLU), its user-info escaped (escape_info). */
static int parse_url(const struct url_text *t, CURLU *u, cp_error_t *err)
{
    cleanup_free char *info = NULL;
    if (t->info != NULL && (info = escape_info(t->info, t->info_len)) == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "the upstream proxy's user or password has a bad %%-escape");
    char *url = xasprintf("http://%s%s%.*s", info ? info : "", info ? "@" : "",
                          (int)t->host_port_len, t->host_port);
    CURLUcode rc = curl_url_set(u, CURLUPART_URL, url, 0);
    cp_free_secret(url);
    if (info != NULL)
        explicit_bzero(info, strlen(info));
    return rc == CURLUE_OK ? 0 : url_refused(rc, t, err);
}

/* One part of the user-info, decoded by curl. curl_url_get's own decoding refuses control
 * characters, which a password may hold; escape_info has refused %00. */
static char *info_part(CURLU *u, CURLUPart part)
{
    cleanup_curl_part char *raw = NULL;
    if (curl_url_get(u, part, &raw, 0) != CURLUE_OK)
        return NULL;
    int len = 0;
    char *plain = curl_easy_unescape(NULL, raw, 0, &len);
    if (plain == NULL)
        abort(); /* out of memory, as xmalloc */
    char *out = xstrdup(plain);
    explicit_bzero(plain, (size_t)len);
    curl_free(plain);
    return out;
}

/* The user and password as one Basic credential: "user@host" has an empty password, as curl
 * sends it. */
static void take_auth(CURLU *u, struct cp_egress_upstream *out)
{
    char *user = info_part(u, CURLUPART_USER);
    if (user == NULL)
        return;
    char *password = info_part(u, CURLUPART_PASSWORD);
    char *plain = xasprintf("%s:%s", user, password ? password : "");
    if (password == NULL && strchr(user, ':') != NULL)
        plain[strlen(plain) - 1] = '\0'; /* "a%3Ab@host": the user holds the ':' */
    cp_free_secret(user);
    cp_free_secret(password);
    cleanup_free char *b64 = cp_base64_encode(plain, strlen(plain));
    out->auth = xasprintf("Basic %s", b64);
    cp_free_secret(plain);
    explicit_bzero(b64, strlen(b64));
}

/* The host curl read, without brackets: a name or an address in the characters they may hold
 * (curl takes more), no %-escape (curl decodes one, and reads one in brackets as a zone). */
static int take_host(CURLU *u, const struct url_text *t, struct cp_egress_upstream *out,
                     cp_error_t *err)
{
    cleanup_curl_part char *host = NULL;
    if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_HOST_WORDS);
    const char *h = host;
    size_t n = strlen(h);
    if (n >= 2 && h[0] == '[') {
        h++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof(out->host))
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_HOST_WORDS);
    char words[256];
    host_words(t, words, sizeof(words));
    if (!host_chars_ok(h, n) || memchr(t->host_port, '%', t->host_port_len) != NULL)
        return bad_host(words, err);
    memcpy(out->host, h, n);
    out->host[n] = '\0';
    return 0;
}

/* The port curl read, 80 without one; 0 and an empty one after ':' (both taken by curl) are
 * refused. */
static int take_port(CURLU *u, const struct url_text *t, struct cp_egress_upstream *out,
                     cp_error_t *err)
{
    cleanup_curl_part char *port = NULL;
    long value = 80;
    if (t->host_port_len > 0 && t->host_port[t->host_port_len - 1] == ':')
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_PORT_WORDS);
    if (curl_url_get(u, CURLUPART_PORT, &port, 0) == CURLUE_OK &&
        cp_parse_long(port, 1, 65535, &value) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, URL_PORT_WORDS);
    out->port = (unsigned)value;
    return 0;
}

static void add_no_proxy(struct cp_egress_upstream *u, const char *list)
{
    cleanup_free char *copy = xstrdup(list);
    char *save = NULL;
    for (char *t = strtok_r(copy, ", \t", &save); t != NULL && u->no_proxy.n < NO_PROXY_MAX;
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
        cp_strvec_push(&u->no_proxy, t);
    }
}

static int read_url(const char *url, struct cp_egress_upstream *out, cp_error_t *err)
{
    struct url_text t = {0};
    cleanup_curlu CURLU *u = curl_url();
    if (u == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "out of memory");
    int r = split_url(url, &t, err);
    if (r == 0)
        r = parse_url(&t, u, err);
    if (r == 0)
        r = take_host(u, &t, out, err);
    if (r == 0)
        r = take_port(u, &t, out, err);
    if (r == 0)
        take_auth(u, out);
    return r;
}

int cp_egress_upstream_parse(const char *url, const char *no_proxy, struct cp_egress_upstream *out,
                             cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    int r = read_url(url, out, err);
    if (r < 0) {
        cp_egress_upstream_dispose(out);
        return r;
    }
    if (no_proxy != NULL)
        add_no_proxy(out, no_proxy);
    return 0;
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
    for (size_t i = 0; i < u->no_proxy.n; i++) {
        const char *e = u->no_proxy.v[i];
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
    cp_strvec_dispose(&u->no_proxy);
    memset(u, 0, sizeof(*u));
}
