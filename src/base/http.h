/* HTTP, bodies bounded: over a unix socket (the engines) through http-unix.c, HTTPS (Daytona)
 * through libcurl, which is loaded then (lazy-load.h). */
#ifndef CONCH_HTTP_H
#define CONCH_HTTP_H

#include <stddef.h>
#include <stdbool.h>

#include <curl/curl.h>

#include "src/base/buf.h"
#include "src/base/error.h"

void cp_cleanup_curlp(CURL **c);
void cp_cleanup_slistp(struct curl_slist **l);
/* A parsed URL (curl_url), for the places that read one with libcurl's own parser. */
void cp_cleanup_curlup(CURLU **u);
#define cleanup_curl  __attribute__((cleanup(cp_cleanup_curlp)))
#define cleanup_slist __attribute__((cleanup(cp_cleanup_slistp)))
#define cleanup_curlu __attribute__((cleanup(cp_cleanup_curlup)))

/* Feeds an upload body; returns bytes written into buf, 0 at the end, or -1 on failure. */
typedef long (*cp_http_reader)(void *ctx, char *buf, size_t len);
/* Takes a 2xx response body as it arrives; returns 0, or -1 to stop the transfer. */
typedef int (*cp_http_writer)(void *ctx, const char *data, size_t len);

struct cp_http_req {
    const char *method;       /* GET, POST, DELETE, HEAD */
    const char *url;          /* full URL; over a unix socket the host is ignored */
    const char *unix_socket;  /* NULL for TCP/TLS */
    const char *content_type; /* NULL: no Content-Type header at all */
    const char *body;         /* a fixed body, or NULL */
    size_t body_len;
    cp_http_reader reader; /* a streamed body instead (chunked), or NULL */
    void *reader_ctx;
    curl_mime *mime;            /* a multipart body (libcurl's own boundary), or NULL */
    const char *const *headers; /* extra "Name: value" lines, NULL-terminated, or NULL */
    long timeout_ms;            /* 0: none */
    size_t max_body;            /* the response body's maximum */
    const char *ca_file;        /* HTTPS: a private CA, or NULL */
    cp_http_writer writer;      /* a 2xx body goes here instead of resp.body (downloads) */
    void *writer_ctx;
    /* After SIGINT/SIGTERM/SIGHUP (src/base/signals.h) the request may finish for this many
     * ms, so a box being made is known and can be removed, then it is abandoned with
     * CP_ERR_INTERRUPTED. 0: signals do not stop it. */
    long signal_grace_ms;
};

struct cp_http_resp {
    long status;
    const struct cp_http_req *req; /* while performing: where a streamed body goes */
    int writer_failed;
    struct cp_buf body;
    struct cp_buf headers; /* raw header lines of the final response */
};

void cp_http_resp_dispose(struct cp_http_resp *r);
#define cleanup_http_resp __attribute__((cleanup(cp_http_resp_dispose)))

/* Performs one request with a reusable handle (*handle is created when NULL; the caller
 * owns it). Redirects are never followed. Transport failures are errors; any status is not. */
int cp_http_perform(CURL **handle, const struct cp_http_req *req, struct cp_http_resp *out,
                    cp_error_t *err);

/* A response header's value (case-insensitive name), copied into out; 0 or -1 if absent. */
int cp_http_header(const struct cp_http_resp *r, const char *name, char *out, size_t outlen);

#endif
