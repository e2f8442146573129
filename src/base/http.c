/* One request at a time: over a unix socket by http-unix.c, else through libcurl; explicit
 * Content-Type, no Expect, no redirects, bounded bodies. */
#include "config.h"

#include <strings.h>

#include "src/base/http.h"
#include "src/base/http-unix.h"
#include "src/base/signals.h"
#include "src/base/util.h"

void cp_cleanup_curlp(CURL **c)
{
    if (*c != NULL)
        curl_easy_cleanup(*c);
}

void cp_cleanup_slistp(struct curl_slist **l)
{
    if (*l != NULL)
        curl_slist_free_all(*l);
}

void cp_cleanup_curlup(CURLU **u)
{
    if (*u != NULL)
        curl_url_cleanup(*u);
}

void cp_http_resp_dispose(struct cp_http_resp *r)
{
    cp_buf_dispose(&r->body);
    cp_buf_dispose(&r->headers);
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    struct cp_http_resp *r = ctx;
    if (r->req != NULL && r->req->writer != NULL && r->status >= 200 && r->status < 300) {
        if (r->req->writer(r->req->writer_ctx, data, size * n) < 0) {
            r->writer_failed = 1;
            return 0;
        }
        return size * n;
    }
    if (cp_buf_append(&r->body, data, size * n) < 0)
        return 0; /* libcurl fails the transfer with CURLE_WRITE_ERROR */
    return size * n;
}

static int cp_parse_status(const char *p, long *out)
{
    long v = 0;
    for (int i = 0; i < 3; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
    struct cp_http_resp *r = ctx;
    /* A new status line (after 100 Continue, say) starts the final response's headers afresh. */
    if (size * n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        cp_buf_consume(&r->headers, r->headers.len);
        /* The status, known before the body, decides where a streamed body goes. */
        long st = 0;
        if (size * n >= 12 && cp_parse_status(data + 9, &st) == 0)
            r->status = st;
    }
    if (cp_buf_append(&r->headers, data, size * n) < 0)
        return 0;
    return size * n;
}

static size_t on_read(char *buf, size_t size, size_t n, void *ctx)
{
    const struct cp_http_req *req = ctx;
    long got = req->reader(req->reader_ctx, buf, size * n);
    return got < 0 ? CURL_READFUNC_ABORT : (size_t)got;
}

/* libcurl calls this at least once a second while a transfer waits. */
static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    const struct cp_http_req *req = ctx;
    return cp_signals_since_ms() > req->signal_grace_ms;
}

static struct curl_slist *build_headers(const struct cp_http_req *req)
{
    struct curl_slist *h = NULL;
    /* libcurl's default form Content-Type would make the engines parse the body as a form. */
    if (req->content_type != NULL) {
        cleanup_free char *ct = xasprintf("Content-Type: %s", req->content_type);
        h = curl_slist_append(h, ct);
    } else if (req->mime == NULL) { /* a multipart body's type names its boundary: curl's */
        h = curl_slist_append(h, "Content-Type:");
    }
    h = curl_slist_append(h, "Expect:");
    for (size_t i = 0; req->headers != NULL && req->headers[i] != NULL; i++)
        h = curl_slist_append(h, req->headers[i]);
    return h;
}

static void set_body(CURL *c, const struct cp_http_req *req)
{
    if (req->mime != NULL) {
        curl_easy_setopt(c, CURLOPT_MIMEPOST, req->mime);
        return;
    }
    if (req->reader != NULL) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(c, CURLOPT_READDATA, (void *)req);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
        return;
    }
    if (strcmp(req->method, "GET") == 0) {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        return;
    }
    if (strcmp(req->method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        return;
    }
    /* Docker's start refuses unknown-length bodies: always a fixed length, even 0. */
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body ? req->body : "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->body ? req->body_len : 0));
    if (strcmp(req->method, "POST") != 0)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
}

static void set_transport(CURL *c, const struct cp_http_req *req, char *errbuf)
{
    curl_easy_setopt(c, CURLOPT_URL, req->url);
    curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, req->unix_socket);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, req->unix_socket ? "http" : "https");
    curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    /* A proxy's CONNECT never carries our Authorization header (abuse case 117). */
    curl_easy_setopt(c, CURLOPT_HEADEROPT, CURLHEADER_SEPARATE);
    if (req->signal_grace_ms > 0) {
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)req);
    }
}

int cp_http_perform(CURL **handle, const struct cp_http_req *req, struct cp_http_resp *out,
                    cp_error_t *err)
{
    if (req->unix_socket != NULL)
        return cp_http_unix_perform(req, out, err);
    if (*handle == NULL && (*handle = curl_easy_init()) == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot start libcurl");
    CURL *c = *handle;
    curl_easy_reset(c);
    cp_buf_init(&out->body, req->max_body);
    cp_buf_init(&out->headers, 64 * 1024);
    out->req = req;
    out->writer_failed = 0;
    out->status = 0;
    char errbuf[CURL_ERROR_SIZE] = "";
    cleanup_slist struct curl_slist *h = build_headers(req);
    set_transport(c, req, errbuf);
    set_body(c, req);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    out->req = NULL;
    if (rc == CURLE_WRITE_ERROR && out->writer_failed)
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s %s: the body could not be kept",
                             req->method, req->url);
    if (rc == CURLE_WRITE_ERROR && out->body.len + 1 > out->body.max)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the answer to %s %s is larger than %zu bytes",
                             req->method, req->url, req->max_body);
    if (rc == CURLE_ABORTED_BY_CALLBACK)
        return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "%s %s: interrupted", req->method,
                             req->url);
    if (rc != CURLE_OK) {
        int code = rc == CURLE_OPERATION_TIMEDOUT ? CP_ERR_TIMEOUT
                   : (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
                       ? CP_ERR_UNREACHABLE
                       : CP_ERR_FAILED;
        return cp_error_make(err, code, 0, "%s %s: %s", req->method, req->url,
                             errbuf[0] ? errbuf : curl_easy_strerror(rc));
    }
    return 0;
}

int cp_http_header(const struct cp_http_resp *r, const char *name, char *out, size_t outlen)
{
    size_t nl = strlen(name);
    const char *p = r->headers.data;
    while (p != NULL && *p != '\0') {
        const char *eol = strstr(p, "\r\n");
        size_t linelen = eol ? (size_t)(eol - p) : strlen(p);
        if (linelen > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vl = linelen - (size_t)(v - p);
            if (vl >= outlen)
                vl = outlen - 1;
            memcpy(out, v, vl);
            out[vl] = '\0';
            return 0;
        }
        p = eol ? eol + 2 : NULL;
    }
    return -1;
}
