/* HTTP/1.1 over a unix socket (the engines), without libcurl: loading libcurl and the 30
 * libraries it needs cost each run ~9 ms of CPU before main (measured: 14.8 ms for an empty
 * program linked with it against 6.4 without), and an engine's socket needs none of it: no TLS,
 * no proxy, no redirect, no name to resolve. The answer is parsed by http-parser (Node's, as
 * Debian ships it), which knows chunked and counted bodies; one request per connection. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <http_parser.h>

#include "src/base/clock.h"
#include "src/base/http-unix.h"
#include "src/base/signals.h"
#include "src/base/util.h"

/* A request's head (its line and headers) is ours and small; an answer's headers are bounded by
 * resp.headers' maximum. */
#define HEAD_MAX   (64 * 1024)
#define CHUNK_MAX  (64 * 1024)
#define CHUNK_HEAD 16 /* "%lx\r\n" of a size up to CHUNK_MAX */
#define SLICE_MS   250

struct conn {
    int fd;
    const struct cp_http_req *req;
    int64_t deadline; /* -1: none */
};

static void cleanup_conn(struct conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
}

/* Waits for fd to be ready for events: 0, or an error (time-out, a signal's grace gone). */
static int wait_ready(const struct conn *c, short events, cp_error_t *err)
{
    for (;;) {
        if (c->req->signal_grace_ms > 0 && cp_signals_since_ms() > c->req->signal_grace_ms)
            return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "%s %s: interrupted", c->req->method,
                                 c->req->url);
        int left = cp_deadline_left_ms(c->deadline);
        if (left == 0)
            return cp_error_make(err, CP_ERR_TIMEOUT, 0, "%s %s: no answer within %ld ms",
                                 c->req->method, c->req->url, c->req->timeout_ms);
        struct pollfd p = {.fd = c->fd, .events = events};
        int r = poll(&p, 1, left < 0 || left > SLICE_MS ? SLICE_MS : left);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "%s %s", c->req->method, c->req->url);
    }
}

/* All of data, or an error; a peer that closed early gives EPIPE (no SIGPIPE). */
static int send_all(const struct conn *c, const char *data, size_t len, cp_error_t *err)
{
    while (len > 0) {
        ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_ready(c, POLLOUT, err) < 0)
                return cp_error_code(err);
            continue;
        }
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "%s %s: sending", c->req->method,
                                 c->req->url);
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static int connect_socket(struct conn *c, cp_error_t *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(c->req->unix_socket) >= sizeof(sa.sun_path))
        return cp_error_make(err, CP_ERR_UNREACHABLE, 0, "the socket path %s is too long",
                             c->req->unix_socket);
    memcpy(sa.sun_path, c->req->unix_socket, strlen(c->req->unix_socket) + 1);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c->fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "socket");
    /* A unix socket connects at once or not at all: EAGAIN is a full backlog. */
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int e = errno;
        close(c->fd);
        c->fd = -1;
        return cp_error_make(err, CP_ERR_UNREACHABLE, e, "%s %s: cannot connect to %s",
                             c->req->method, c->req->url, c->req->unix_socket);
    }
    return 0;
}

/* The path of a URL ("http://localhost/v1.41/x" gives "/v1.41/x"): the host is the socket. */
static const char *url_path(const char *url)
{
    const char *p = strstr(url, "://");
    p = p != NULL ? strchr(p + 3, '/') : NULL;
    return p != NULL ? p : "/";
}

static bool plain_line(const char *s)
{
    return strpbrk(s, "\r\n") == NULL;
}

/* The request line and headers, checked before anything is sent. */
static int build_head(const struct cp_http_req *req, struct cp_buf *head, cp_error_t *err)
{
    const char *path = url_path(req->url);
    if (!plain_line(req->method) || !plain_line(path) ||
        (req->content_type != NULL && !plain_line(req->content_type)))
        return cp_error_make(err, CP_ERR_USAGE, 0, "a request line or header holds a line break");
    cp_buf_init(head, HEAD_MAX);
    cleanup_free char *line =
        xasprintf("%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n", req->method, path);
    int bad = cp_buf_append(head, line, strlen(line));
    if (req->content_type != NULL) {
        cleanup_free char *ct = xasprintf("Content-Type: %s\r\n", req->content_type);
        bad |= cp_buf_append(head, ct, strlen(ct));
    }
    for (size_t i = 0; req->headers != NULL && req->headers[i] != NULL; i++) {
        if (!plain_line(req->headers[i]))
            return cp_error_make(err, CP_ERR_USAGE, 0, "a request header holds a line break");
        bad |= cp_buf_append(head, req->headers[i], strlen(req->headers[i]));
        bad |= cp_buf_append(head, "\r\n", 2);
    }
    /* Docker's start refuses unknown-length bodies: a fixed length, even 0, but for GET and
     * HEAD; a streamed body goes in chunks. */
    cleanup_free char *len = NULL;
    if (req->reader != NULL)
        len = xstrdup("Transfer-Encoding: chunked\r\n");
    else if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0)
        len = xasprintf("Content-Length: %zu\r\n", req->body != NULL ? req->body_len : 0);
    if (len != NULL)
        bad |= cp_buf_append(head, len, strlen(len));
    bad |= cp_buf_append(head, "\r\n", 2);
    if (bad)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the request's headers are too long");
    return 0;
}

static int send_chunks(const struct conn *c, cp_error_t *err)
{
    /* Room for the size line before the data and its line end after it. */
    cleanup_free char *buf = xmalloc(CHUNK_HEAD + CHUNK_MAX + 2);
    for (;;) {
        long got = c->req->reader(c->req->reader_ctx, buf + CHUNK_HEAD, CHUNK_MAX);
        if (got < 0 || got > CHUNK_MAX)
            return cp_error_make(err, CP_ERR_FAILED, 0, "%s %s: the body could not be read",
                                 c->req->method, c->req->url);
        /* The size line right before the data, so that a chunk is one send. */
        char size[16];
        int n = snprintf(size, sizeof(size), "%lx\r\n", got);
        memcpy(buf + CHUNK_HEAD - n, size, (size_t)n);
        memcpy(buf + CHUNK_HEAD + got, "\r\n", 2);
        if (send_all(c, buf + CHUNK_HEAD - n, (size_t)n + (size_t)got + 2, err) < 0)
            return cp_error_code(err);
        if (got == 0)
            return 0;
    }
}

static int send_request(const struct conn *c, const struct cp_buf *head, cp_error_t *err)
{
    if (send_all(c, head->data, head->len, err) < 0)
        return cp_error_code(err);
    if (c->req->reader != NULL)
        return send_chunks(c, err);
    if (c->req->body != NULL && c->req->body_len > 0)
        return send_all(c, c->req->body, c->req->body_len, err);
    return 0;
}

/* The parser's state: where the answer goes, and why it stopped. */
struct answer {
    struct cp_http_resp *resp;
    const struct cp_http_req *req;
    enum { STATUS, FIELD, VALUE } last; /* what the last piece was: a field starts a line */
    bool complete;
    bool too_big;
    bool writer_failed;
};

/* Appends to the headers as libcurl kept them: the status line, then "Name: value" lines. */
static int keep(struct answer *a, const char *at, size_t len)
{
    if (cp_buf_append(&a->resp->headers, at, len) < 0)
        return a->too_big = true, -1;
    return 0;
}

static int on_status(http_parser *p, const char *at, size_t len)
{
    struct answer *a = p->data;
    char line[32];
    snprintf(line, sizeof(line), "HTTP/%u.%u %u ", p->http_major, p->http_minor, p->status_code);
    if (a->resp->headers.len == 0 && keep(a, line, strlen(line)) < 0)
        return -1;
    return keep(a, at, len);
}

/* http-parser may hand a field or a value over in pieces. */
static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct answer *a = p->data;
    if (a->last != FIELD && keep(a, "\r\n", 2) < 0)
        return -1;
    a->last = FIELD;
    return keep(a, at, len);
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct answer *a = p->data;
    if (a->last != VALUE && keep(a, ": ", 2) < 0)
        return -1;
    a->last = VALUE;
    return keep(a, at, len);
}

static int on_headers_complete(http_parser *p)
{
    struct answer *a = p->data;
    a->resp->status = p->status_code;
    if (keep(a, "\r\n\r\n", 4) < 0)
        return -1;
    return strcmp(a->req->method, "HEAD") == 0 ? 1 : 0; /* 1: no body follows */
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    struct answer *a = p->data;
    long st = a->resp->status;
    if (a->req->writer != NULL && st >= 200 && st < 300) {
        if (a->req->writer(a->req->writer_ctx, at, len) < 0)
            return a->writer_failed = true, -1;
        return 0;
    }
    if (cp_buf_append(&a->resp->body, at, len) < 0)
        return a->too_big = true, -1;
    return 0;
}

static int on_message_complete(http_parser *p)
{
    ((struct answer *)p->data)->complete = true;
    return 0;
}

static int parse_failed(const struct answer *a, const http_parser *p, cp_error_t *err)
{
    const struct cp_http_req *req = a->req;
    if (a->writer_failed)
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s %s: the body could not be kept",
                             req->method, req->url);
    if (a->too_big)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the answer to %s %s is larger than %zu bytes",
                             req->method, req->url, a->resp->body.max);
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s %s: the engine's answer is not HTTP: %s",
                         req->method, req->url, http_errno_description(HTTP_PARSER_ERRNO(p)));
}

int cp_http_unix_parse(const struct cp_http_req *req, struct cp_http_resp *out, const char *data,
                       size_t len, bool eof, void **state, cp_error_t *err)
{
    static const http_parser_settings settings = {
        .on_status = on_status,
        .on_header_field = on_header_field,
        .on_header_value = on_header_value,
        .on_headers_complete = on_headers_complete,
        .on_body = on_body,
        .on_message_complete = on_message_complete,
    };
    struct parse_state {
        http_parser p;
        struct answer a;
    } *s = *state;
    if (s == NULL) {
        s = *state = xcalloc(1, sizeof(*s));
        http_parser_init(&s->p, HTTP_RESPONSE);
        s->p.data = &s->a;
        s->a = (struct answer){.resp = out, .req = req};
    }
    if (s->a.complete)
        return 1;
    size_t done = http_parser_execute(&s->p, &settings, data, eof ? 0 : len);
    if (s->a.complete)
        return 1;
    if (eof &&
        (HTTP_PARSER_ERRNO(&s->p) == HPE_OK || HTTP_PARSER_ERRNO(&s->p) == HPE_INVALID_EOF_STATE))
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "%s %s: the engine closed before its answer's end", req->method,
                             req->url);
    if (HTTP_PARSER_ERRNO(&s->p) != HPE_OK || done != len)
        return parse_failed(&s->a, &s->p, err);
    return 0;
}

static int read_answer(const struct conn *c, struct cp_http_resp *out, cp_error_t *err)
{
    cleanup_free void *state = NULL;
    char buf[16 * 1024];
    for (;;) {
        ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_ready(c, POLLIN, err) < 0)
                return cp_error_code(err);
            continue;
        }
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "%s %s: receiving", c->req->method,
                                 c->req->url);
        int r = cp_http_unix_parse(c->req, out, buf, (size_t)n, n == 0, &state, err);
        if (r != 0)
            return r < 0 ? r : 0;
    }
}

/* The request made, checked and sent on a new connection: c->fd. */
static int send_on_new(struct conn *c, cp_error_t *err)
{
    cleanup_buf struct cp_buf head = {0};
    if (build_head(c->req, &head, err) < 0 || connect_socket(c, err) < 0)
        return cp_error_code(err);
    return send_request(c, &head, err);
}

static void answer_init(const struct cp_http_req *req, struct cp_http_resp *out)
{
    cp_buf_init(&out->body, req->max_body);
    cp_buf_init(&out->headers, HEAD_MAX);
    out->status = 0;
}

int cp_http_unix_perform(const struct cp_http_req *req, struct cp_http_resp *out, cp_error_t *err)
{
    __attribute__((cleanup(cleanup_conn))) struct conn c = {.fd = -1, .req = req, .deadline = -1};
    if (req->timeout_ms > 0)
        c.deadline = cp_now_ms() + req->timeout_ms;
    answer_init(req, out);
    cleanup_error cp_error_t sent = NULL;
    int sent_rc = send_on_new(&c, &sent);
    if (sent_rc < 0 && c.fd < 0) { /* nothing was sent: nothing to read */
        *err = steal_pointer(&sent);
        return cp_error_code(err);
    }
    /* An engine that answers before it read all of a body (a refusal) closes; its words count. */
    if (read_answer(&c, out, err) < 0) {
        if (sent_rc < 0) {
            cp_error_free(err);
            *err = steal_pointer(&sent);
        }
        return cp_error_code(err);
    }
    return 0;
}

int cp_http_unix_send(const struct cp_http_req *req, int *fd_out, cp_error_t *err)
{
    __attribute__((cleanup(cleanup_conn))) struct conn c = {.fd = -1, .req = req, .deadline = -1};
    if (req->reader != NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "a streamed body is sent whole, not ahead");
    if (req->timeout_ms > 0)
        c.deadline = cp_now_ms() + req->timeout_ms;
    if (send_on_new(&c, err) < 0)
        return cp_error_code(err);
    *fd_out = c.fd;
    c.fd = -1;
    return 0;
}

int cp_http_unix_receive(int fd, const struct cp_http_req *req, struct cp_http_resp *out,
                         cp_error_t *err)
{
    __attribute__((cleanup(cleanup_conn))) struct conn c = {.fd = fd, .req = req, .deadline = -1};
    if (req->timeout_ms > 0)
        c.deadline = cp_now_ms() + req->timeout_ms;
    answer_init(req, out);
    return read_answer(&c, out, err);
}
