/* The Daytona client: URL checks before any byte is sent, the key in one header, the retry
 * policy of DESIGN.md (429 with Retry-After, 409, 5xx; bounded), Daytona's words on errors. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "places/cloud/daytona.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/http.h"
#include "src/base/util.h"

#define MESSAGE_MAX        300
#define RETRY_AFTER_CAP_MS 60000L
#define BACKOFF_CAP_MS     8000L

static void cleanup_curl_str(char **s)
{
    if (*s != NULL)
        curl_free(*s);
}

#define cleanup_curl_free __attribute__((cleanup(cleanup_curl_str)))

/* A part that must be absent; curl says CURLUE_NO_* when it is. */
static bool has_part(CURLU *u, CURLUPart part)
{
    char *v = NULL;
    CURLUcode rc = curl_url_get(u, part, &v, 0);
    if (v != NULL)
        curl_free(v);
    return rc == CURLUE_OK;
}

static int normal_host(CURLU *u, char **out, cp_error_t *err)
{
    cleanup_curl_free char *host = NULL;
    if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || host[0] == '\0')
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "no host in the URL");
    char *h = xstrdup(host);
    for (char *p = h; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    size_t n = strlen(h);
    if (n > 1 && h[n - 1] == '.')
        h[n - 1] = '\0';
    if (strchr(h, '%') != NULL || strchr(h, '\\') != NULL) {
        free(h);
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "the URL's host holds an escape");
    }
    *out = h;
    return 0;
}

int cp_daytona_origin(const char *url, char **origin_out, char **url_out, cp_error_t *err)
{
    cleanup_curlu CURLU *u = curl_url();
    if (u == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "out of memory");
    if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "'%s' is not a URL", url);
    cleanup_curl_free char *scheme = NULL;
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        strcasecmp(scheme, "https") != 0)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "'%s' is not an https:// URL", url);
    if (has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD) ||
        has_part(u, CURLUPART_OPTIONS) || has_part(u, CURLUPART_FRAGMENT))
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "'%s' carries a user, password or fragment; refused", url);
    cleanup_free char *host = NULL;
    if (normal_host(u, &host, err) < 0)
        return cp_error_wrap(err, "'%s'", url);
    cleanup_curl_free char *port = NULL;
    if (curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "'%s' has no port", url);
    bool v6 = strchr(host, ':') != NULL && host[0] != '[';
    *origin_out = xasprintf(v6 ? "https://[%s]:%s" : "https://%s:%s", host, port);
    if (url_out != NULL) {
        cleanup_curl_free char *full = NULL;
        if (curl_url_get(u, CURLUPART_URL, &full, 0) != CURLUE_OK)
            return cp_error_make(err, CP_ERR_UNSAFE, 0, "'%s' cannot be rebuilt", url);
        *url_out = xstrdup(full);
    }
    return 0;
}

int cp_daytona_open(const struct cp_config *cfg, const char *key, struct cp_daytona **out,
                    cp_error_t *err)
{
    const char *api = cfg ? cp_config_get(cfg, "cloud.api_url") : NULL;
    if (api == NULL)
        api = CP_DAYTONA_API;
    struct cp_daytona *d = xcalloc(1, sizeof(*d));
    *out = d;
    d->max_attempts = 6;
    d->backoff_ms = 250;
    d->wait_ms = 120000;
    /* A test knob for the start bound, so a stuck sandbox is found out in seconds. */
    long w = 0;
    const char *ws = getenv("CONCH_CLOUD_WAIT_SECONDS");
    if (ws != NULL && cp_parse_long(ws, 1, 3600, &w) == 0)
        d->wait_ms = w * 1000;
    const char *ca = cfg ? cp_config_get(cfg, "cloud.ca_file") : NULL;
    d->ca_file = ca ? xstrdup(ca) : NULL;
    if (cp_daytona_origin(api, &d->api_origin, &d->api, err) < 0)
        return cp_error_wrap(err, "cloud.api_url");
    size_t n = strlen(d->api);
    while (n > 0 && d->api[n - 1] == '/')
        d->api[--n] = '\0';
    if (key != NULL)
        d->auth = xasprintf("Authorization: Bearer %s", key);
    return 0;
}

void cp_daytona_free(struct cp_daytona *d)
{
    if (d == NULL)
        return;
    if (d->curl != NULL)
        curl_easy_cleanup(d->curl);
    free(d->api);
    free(d->api_origin);
    free(d->toolbox_origin);
    cp_free_secret(d->auth);
    free(d->ca_file);
    free(d);
}

void cp_cleanup_daytonap(struct cp_daytona **d)
{
    cp_daytona_free(*d);
    *d = NULL;
}

char *cp_daytona_escape(struct cp_daytona *d, const char *s)
{
    if (d->curl == NULL)
        d->curl = curl_easy_init();
    char *e = curl_easy_escape(d->curl, s, 0);
    char *r = xstrdup(e ? e : "");
    curl_free(e);
    return r;
}

/* Keeps only printable text, bounded, so a hostile body cannot paint the terminal. */
static char *clean_text(const char *s, size_t len)
{
    size_t n = len < MESSAGE_MAX ? len : MESSAGE_MAX;
    char *o = xmalloc(n + 4);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        o[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : ' ';
    if (len > n) {
        memcpy(o + j, "...", 3);
        j += 3;
    }
    o[j] = '\0';
    return o;
}

static char *join_messages(json_object *arr)
{
    char out[MESSAGE_MAX + 1] = "";
    size_t used = 0;
    for (size_t i = 0; i < json_object_array_length(arr) && used < MESSAGE_MAX; i++) {
        const char *m = json_object_get_string(json_object_array_get_idx(arr, i));
        int w = snprintf(out + used, sizeof(out) - used, "%s%s", i ? ", " : "", m ? m : "");
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return clean_text(out, strlen(out));
}

char *cp_daytona_message(const char *body, size_t len)
{
    cleanup_error cp_error_t perr = NULL;
    cleanup_json json_object *o = NULL;
    if (len == 0)
        return xstrdup("(no message)");
    if (cp_json_parse(body, len, "error", &o, &perr) < 0 ||
        !json_object_is_type(o, json_type_object))
        return xasprintf("(an answer that is not Daytona's JSON, %zu bytes)", len);
    json_object *m = NULL;
    if (json_object_object_get_ex(o, "message", &m) && json_object_is_type(m, json_type_array))
        return join_messages(m);
    if (m != NULL && json_object_is_type(m, json_type_string))
        return clean_text(json_object_get_string(m), (size_t)json_object_get_string_len(m));
    const char *e = cp_json_str(o, "error");
    return e ? clean_text(e, strlen(e)) : xstrdup("(no message)");
}

/* Retry-After and Retry-After-<throttler>, in seconds, case-insensitive; the longest wins. */
long cp_daytona_retry_after_ms(const char *headers)
{
    long best = -1;
    const char *p = headers;
    while (p != NULL && *p != '\0') {
        const char *eol = strstr(p, "\r\n");
        size_t linelen = eol ? (size_t)(eol - p) : strlen(p);
        const char *colon = memchr(p, ':', linelen);
        if (colon != NULL && strncasecmp(p, "retry-after", 11) == 0 &&
            (p + 11 == colon || p[11] == '-')) {
            char v[32] = "";
            size_t vl = linelen - (size_t)(colon + 1 - p);
            const char *s = colon + 1;
            while (vl > 0 && (*s == ' ' || *s == '\t'))
                s++, vl--;
            while (vl > 0 && (s[vl - 1] == ' ' || s[vl - 1] == '\t'))
                vl--;
            long secs = 0;
            if (vl < sizeof(v)) {
                memcpy(v, s, vl);
                if (cp_parse_long(v, 0, 86400, &secs) == 0 && secs * 1000 > best)
                    best = secs * 1000;
            }
        }
        p = eol ? eol + 2 : NULL;
    }
    return best;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The key goes only to the API's origin and the toolbox origin /api/config named. */
static int check_destination(struct cp_daytona *d, const char *url, char **sent_url,
                             cp_error_t *err)
{
    cleanup_free char *origin = NULL;
    if (cp_daytona_origin(url, &origin, sent_url, err) < 0)
        return cp_error_code(err);
    if (strcmp(origin, d->api_origin) == 0 ||
        (d->toolbox_origin != NULL && strcmp(origin, d->toolbox_origin) == 0))
        return 0;
    free(*sent_url);
    *sent_url = NULL;
    return cp_error_make(err, CP_ERR_UNSAFE, 0,
                         "%s is neither the Daytona API (%s) nor the toolbox host it names (%s); "
                         "nothing was sent there",
                         origin, d->api_origin, d->toolbox_origin ? d->toolbox_origin : "none");
}

static bool retryable(const struct cp_daytona_call *c, long st)
{
    return st == 429 || st == 409 || (c->retry_5xx && st >= 500 && st <= 599);
}

static int status_error(const struct cp_daytona_call *c, const struct cp_http_resp *r,
                        cp_error_t *err)
{
    cleanup_free char *msg = cp_daytona_message(r->body.data, r->body.len);
    long st = r->status;
    if (st >= 300 && st < 400) {
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "%s %s answered with a redirect (%ld); conch-place never follows one",
                      c->method, c->url, st);
        cp_error_hint(err, "Check cloud.api_url: it must name the API itself.");
        return CP_ERR_UNSAFE;
    }
    if (st == 401) {
        cp_error_make(err, CP_ERR_DENIED, 0, "Daytona refused the API key (401: %s)", msg);
        cp_error_hint(err, "Set a new key: conch-place key set daytona");
        return CP_ERR_DENIED;
    }
    int code = st == 404 ? CP_ERR_NOT_FOUND : st == 403 ? CP_ERR_DENIED : CP_ERR_FAILED;
    return cp_error_make(err, code, 0, "%s %s: Daytona answered %ld: %s", c->method, c->url, st,
                         msg);
}

static long next_wait(struct cp_daytona *d, const struct cp_http_resp *r, int attempt)
{
    long wait = d->backoff_ms << (attempt < 6 ? attempt : 6);
    if (wait > BACKOFF_CAP_MS)
        wait = BACKOFF_CAP_MS;
    if (r->status == 429) {
        long ra = cp_daytona_retry_after_ms(r->headers.data);
        if (ra >= 0)
            wait = ra < RETRY_AFTER_CAP_MS ? ra : RETRY_AFTER_CAP_MS;
    }
    return wait;
}

static int perform_once(struct cp_daytona *d, const struct cp_daytona_call *c, const char *url,
                        struct cp_http_resp *resp, cp_error_t *err)
{
    const char *headers[10];
    size_t n = 0;
    if (!c->no_key && d->auth != NULL)
        headers[n++] = d->auth;
    headers[n++] = "X-Daytona-Source: conch-place";
    for (size_t i = 0; c->headers != NULL && c->headers[i] != NULL && n < 9; i++)
        headers[n++] = c->headers[i];
    headers[n] = NULL;
    struct cp_http_req req = {
        .method = c->method,
        .url = url,
        .content_type = c->content_type ? c->content_type : (c->body ? "application/json" : NULL),
        .body = c->body,
        .body_len = c->body ? strlen(c->body) : 0,
        .reader = c->reader,
        .reader_ctx = c->reader_ctx,
        .mime = c->mime,
        .writer = c->writer,
        .writer_ctx = c->writer_ctx,
        .headers = headers,
        .timeout_ms = c->timeout_ms ? c->timeout_ms : 60000,
        .max_body = c->max_body ? c->max_body : 4 * 1024 * 1024,
        .ca_file = d->ca_file,
    };
    return cp_http_perform(&d->curl, &req, resp, err);
}

int cp_daytona_request(struct cp_daytona *d, const struct cp_daytona_call *c, json_object **out,
                       cp_error_t *err)
{
    cleanup_free char *url = NULL;
    if (check_destination(d, c->url, &url, err) < 0)
        return cp_error_code(err);
    for (int attempt = 0;; attempt++) {
        cleanup_http_resp struct cp_http_resp resp = {0};
        if (perform_once(d, c, url, &resp, err) < 0)
            return cp_error_code(err);
        if (c->status_out != NULL)
            *c->status_out = resp.status;
        if (resp.status >= 200 && resp.status < 300) {
            if (out == NULL || c->writer != NULL)
                return 0;
            if (resp.body.len == 0) {
                *out = NULL;
                return 0;
            }
            return cp_json_parse(resp.body.data, resp.body.len, "Daytona's answer", out, err) < 0
                       ? cp_error_wrap(err, "%s %s", c->method, c->url)
                       : 0;
        }
        if (!retryable(c, resp.status) || attempt + 1 >= d->max_attempts || c->reader != NULL ||
            c->mime != NULL)
            return status_error(c, &resp, err);
        long wait = next_wait(d, &resp, attempt);
        cp_debug("Daytona answered %ld to %s; trying again in %ld ms", resp.status, c->method,
                 wait);
        sleep_ms(wait);
    }
}

int cp_daytona_discover(struct cp_daytona *d, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/config", d->api);
    cleanup_json json_object *cfg = NULL;
    struct cp_daytona_call c = {.method = "GET", .url = url, .no_key = true, .retry_5xx = true};
    if (cp_daytona_request(d, &c, &cfg, err) < 0)
        return cp_error_wrap(err, "asking the Daytona API where its toolbox is");
    const char *tb = cp_json_str(cfg, "proxyToolboxUrl");
    if (tb == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "%s names no proxyToolboxUrl; is cloud.api_url a Daytona API?", url);
    if (cp_daytona_origin(tb, &d->toolbox_origin, NULL, err) < 0)
        return cp_error_wrap(err, "the toolbox URL that %s names", url);
    return 0;
}
