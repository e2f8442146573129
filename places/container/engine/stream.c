/* Output arrives as produced: no buffering beyond one read, stdout and stderr kept apart. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "places/container/engine/stream.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define HEADER_MAX     (16 * 1024)
#define ANSWER_WAIT_MS 60000

void cp_demux_init(struct cp_demux *d, int out_fd, int err_fd)
{
    memset(d, 0, sizeof(*d));
    d->out_fd = out_fd;
    d->err_fd = err_fd;
    d->stop_fd = -1;
    d->end_fd = -1;
}

void cp_demux_set_stop(struct cp_demux *d, int stop_fd)
{
    d->stop_fd = stop_fd;
}

/* A reader that stops reading our output must not hold the run past a signal: each write waits
 * in poll beside the stop fd, and is small enough not to block once the fd is writable. */
static int put(const struct cp_demux *d, int fd, const void *data, size_t len)
{
    if (d->stop_fd < 0)
        return cp_write_all(fd, data, len);
    const char *p = data;
    while (len > 0) {
        struct pollfd w[2] = {{fd, POLLOUT, 0}, {d->stop_fd, POLLIN, 0}};
        int ready = poll(w, 2, -1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return -1;
        if (w[1].revents != 0) {
            errno = EINTR;
            return -1;
        }
        if (w[0].revents == 0)
            continue;
        ssize_t n = write(fd, p, len < PIPE_BUF ? len : PIPE_BUF);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* tini (Docker's init) and catatonit (Podman's) say so when exec fails. */
static const char *const init_prefixes[] = {"[FATAL tini (", "ERROR (catatonit:"};

static int flush_held(struct cp_demux *d)
{
    d->sniff_done = true;
    size_t n = d->held_len;
    d->held_len = 0;
    return n ? put(d, d->err_fd, d->held, n) : 0;
}

/* A stdin-exec warm box's shell says so when its exec fails (dash: "sh: 1: exec: NAME: not
 * found", busybox: "sh: exec: line 0: NAME: not found"). */
#define SHELL_PREFIX "sh: "

static bool held_starts(const struct cp_demux *d, const char *prefix)
{
    size_t pl = strlen(prefix);
    size_t n = d->held_len < pl ? d->held_len : pl;
    return memcmp(d->held, prefix, n) == 0;
}

/* 1: the held bytes could still be an init's report; 0: they cannot. */
static int held_could_be_report(const struct cp_demux *d)
{
    for (size_t i = 0; i < ARRAY_SIZE(init_prefixes); i++)
        if (held_starts(d, init_prefixes[i]))
            return 1;
    return d->launch_name != NULL && held_starts(d, SHELL_PREFIX);
}

/* The shell's words count only when they name the command itself: a command that is a shell
 * failing its own exec keeps its own words. */
static bool names_launch(const struct cp_demux *d, const char *text)
{
    if (strncmp(text, SHELL_PREFIX, strlen(SHELL_PREFIX)) != 0)
        return true;
    if (d->launch_name == NULL)
        return false;
    cleanup_free char *needle = xasprintf(": %s: ", d->launch_name);
    return strstr(text, needle) != NULL;
}

static int judge_report(struct cp_demux *d, const char *eol)
{
    size_t line = (size_t)(eol - d->held);
    char text[sizeof(d->held) + 1];
    memcpy(text, d->held, line);
    text[line] = '\0';
    if (strstr(text, "exec") == NULL || !names_launch(d, text))
        return flush_held(d);
    if (strstr(text, "No such file or directory") != NULL || strstr(text, "not found") != NULL)
        d->launch_status = 127;
    else if (strstr(text, "Permission denied") != NULL || strstr(text, "Exec format error") != NULL)
        d->launch_status = 126;
    else
        return flush_held(d);
    /* Our own words replace the init's; the rest of the held bytes go on. */
    d->held_len -= line + 1;
    memmove(d->held, eol + 1, d->held_len);
    return flush_held(d);
}

static int sniff(struct cp_demux *d, const uint8_t *data, size_t len)
{
    size_t room = sizeof(d->held) - d->held_len;
    size_t take = len < room ? len : room;
    memcpy(d->held + d->held_len, data, take);
    d->held_len += take;
    if (!held_could_be_report(d))
        return flush_held(d) < 0 ? -1 : put(d, d->err_fd, data + take, len - take);
    const char *eol = memchr(d->held, '\n', d->held_len);
    if (eol == NULL && d->held_len < sizeof(d->held))
        return 0;
    int r = eol ? judge_report(d, eol) : flush_held(d);
    return r < 0 ? -1 : put(d, d->err_fd, data + take, len - take);
}

static int emit_to(struct cp_demux *d, bool to_err, const uint8_t *data, size_t len)
{
    if (!d->sniff_done && to_err)
        return sniff(d, data, len);
    if (!d->sniff_done && flush_held(d) < 0)
        return -1;
    return put(d, to_err ? d->err_fd : d->out_fd, data, len);
}

static int emit_out(void *d, const uint8_t *data, size_t len)
{
    return emit_to(d, false, data, len);
}

static int emit_err(void *d, const uint8_t *data, size_t len)
{
    return emit_to(d, true, data, len);
}

static int emit(struct cp_demux *d, const uint8_t *data, size_t len)
{
    bool to_err = d->header[0] == 2 || d->header[0] == 3;
    if (d->marks == NULL)
        return emit_to(d, to_err, data, len);
    return cp_end_mark_scan(&d->marks[to_err], data, len, to_err ? emit_err : emit_out, d);
}

static bool marks_seen(const struct cp_demux *d)
{
    return d->marks != NULL && d->marks[0].seen && d->marks[1].seen;
}

int cp_demux_finish(struct cp_demux *d)
{
    if (d->marks != NULL && (cp_end_mark_finish(&d->marks[0], emit_out, d) < 0 ||
                             cp_end_mark_finish(&d->marks[1], emit_err, d) < 0))
        return -1;
    return d->sniff_done ? 0 : flush_held(d);
}

int cp_demux_feed(struct cp_demux *d, const uint8_t *data, size_t len)
{
    while (len > 0) {
        if (d->left == 0) {
            size_t take = sizeof(d->header) - d->have;
            if (take > len)
                take = len;
            memcpy(d->header + d->have, data, take);
            d->have += take;
            data += take;
            len -= take;
            if (d->have < sizeof(d->header))
                return 0;
            d->have = 0;
            d->left = (uint32_t)d->header[4] << 24 | (uint32_t)d->header[5] << 16 |
                      (uint32_t)d->header[6] << 8 | d->header[7];
            continue;
        }
        size_t take = len < d->left ? len : d->left;
        if (emit(d, data, take) < 0)
            return -1;
        d->left -= (uint32_t)take;
        data += take;
        len -= take;
    }
    return 0;
}

static int connect_unix(const char *path, cp_error_t *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path))
        return cp_error_make(err, CP_ERR_FAILED, 0, "socket path %s is too long", path);
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "socket");
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int e = errno;
        close(fd);
        return cp_error_make(err, CP_ERR_UNREACHABLE, e, "cannot reach the engine on %s", path);
    }
    return fd;
}

/* Reads until the blank line; whatever follows it is already stream. */
static int read_answer(int fd, struct cp_buf *head, struct cp_buf *early, cp_error_t *err)
{
    char chunk[4096];
    for (;;) {
        char *end = head->data ? strstr(head->data, "\r\n\r\n") : NULL;
        if (end != NULL) {
            size_t hlen = (size_t)(end - head->data) + 4;
            if (cp_buf_append(early, head->data + hlen, head->len - hlen) < 0)
                return cp_error_make(err, CP_ERR_TOO_BIG, 0, "attach: too much early output");
            head->len = hlen;
            head->data[hlen] = '\0';
            return 0;
        }
        /* The engine answers at once; a signal meanwhile ends the wait. */
        struct pollfd p[2] = {{fd, POLLIN, 0}, {cp_signals_install(), POLLIN, 0}};
        int ready = poll(p, 2, ANSWER_WAIT_MS);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return cp_error_make(err, CP_ERR_TIMEOUT, ready < 0 ? errno : 0,
                                 "the engine did not answer the attach");
        if (p[1].revents != 0)
            return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "interrupted");
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return cp_error_make(err, CP_ERR_FAILED, n < 0 ? errno : 0,
                                 "the engine closed the attach connection before answering");
        if (cp_buf_append(head, chunk, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "attach: the engine's answer is too long");
    }
}

static int check_status(const struct cp_buf *head, const char *path, cp_error_t *err)
{
    int status = 0;
    if (sscanf(head->data, "HTTP/1.%*d %d", &status) != 1)
        return cp_error_make(err, CP_ERR_FAILED, 0, "attach: the engine's answer is not HTTP");
    if (status == 101 || status == 200)
        return 0;
    const char *body = strstr(head->data, "\r\n\r\n");
    return cp_error_make(err, status == 404 ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, 0,
                         "the engine refused %s (HTTP %d)%s", path, status, body ? body + 4 : "");
}

/* Sends req on a connection of its own and reads the answer's head. */
static int stream_open(struct cp_engine *e, const char *req, const char *path, int *fd_out,
                       struct cp_buf *early, cp_error_t *err)
{
    cleanup_close int fd = connect_unix(e->socket, err);
    if (fd < 0)
        return cp_error_code(err);
    if (cp_write_all(fd, req, strlen(req)) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot send to the engine");
    cleanup_buf struct cp_buf head;
    cp_buf_init(&head, HEADER_MAX);
    if (read_answer(fd, &head, early, err) < 0 || check_status(&head, path, err) < 0)
        return cp_error_code(err);
    *fd_out = steal_fd(&fd);
    return 0;
}

int cp_stream_hijack(struct cp_engine *e, const char *method, const char *path, json_object *body,
                     int *fd_out, struct cp_buf *early, cp_error_t *err)
{
    const char *text = body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : "";
    cleanup_free char *req = xasprintf(
        "%s /v%s%s HTTP/1.1\r\nHost: localhost\r\n"
        "Connection: Upgrade\r\nUpgrade: tcp\r\n"
        "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n%s",
        method, e->version, path, body ? "application/json" : "text/plain", strlen(text), text);
    return stream_open(e, req, path, fd_out, early, err);
}

int cp_stream_get(struct cp_engine *e, const char *path, int *fd_out, struct cp_buf *early,
                  cp_error_t *err)
{
    /* HTTP/1.0: the body comes as it is, not chunked, and ends when the connection does. */
    cleanup_free char *req =
        xasprintf("GET /v%s%s HTTP/1.0\r\nHost: localhost\r\n\r\n", e->version, path);
    return stream_open(e, req, path, fd_out, early, err);
}

/* Standard input on its way to the box: one chunk held at a time, so memory stays bounded and
 * the box's output is read while the box is slow to take its input. */
struct relay {
    int in_fd; /* -1 once it ended */
    int sock;
    char buf[65536];
    size_t off, len;
    bool closed; /* the box's stdin was half-closed (or the box stopped reading it) */
};

static void relay_close(struct relay *r)
{
    r->in_fd = -1;
    r->off = r->len = 0;
    if (!r->closed)
        shutdown(r->sock, SHUT_WR); /* the box's stdin ends here; its output keeps coming */
    r->closed = true;
}

static int relay_read(struct relay *r, cp_error_t *err)
{
    ssize_t n = read(r->in_fd, r->buf, sizeof(r->buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "reading standard input");
    if (n == 0)
        relay_close(r);
    r->off = 0;
    r->len = (size_t)n;
    return 0;
}

static int relay_write(struct relay *r, cp_error_t *err)
{
    ssize_t n = send(r->sock, r->buf + r->off, r->len - r->off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
        relay_close(r); /* the box stopped reading; its output and status still count */
        return 0;
    }
    if (n < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "standard input to the box");
    r->off += (size_t)n;
    if (r->off == r->len)
        r->off = r->len = 0;
    return 0;
}

/* 1 when the stream ended, 0 to go on. */
static int take_output(int fd, struct cp_demux *d, cp_error_t *err)
{
    uint8_t buf[65536];
    ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "reading from the box");
    if (n == 0)
        return cp_demux_finish(d) < 0 ? cp_error_make(err, CP_ERR_FAILED, errno, "output") : 1;
    if (cp_demux_feed(d, buf, (size_t)n) < 0)
        return errno == EINTR
                   ? cp_error_make(err, CP_ERR_INTERRUPTED, 0, "interrupted")
                   : cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the command's output");
    return 0;
}

/* The box has ended after its marks: what is already on its way is output, then the stream
 * ends without waiting for the engine's teardown. */
static int end_by_mark(int fd, struct cp_demux *d, cp_error_t *err)
{
    int r = 0;
    while (r == 0) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0)
            break;
        r = take_output(fd, d, err);
    }
    if (r < 0)
        return r;
    if (r == 0 && cp_demux_finish(d) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the command's output");
    d->ended_by_mark = true;
    return 1;
}

static int pump_once(int fd, struct cp_demux *d, struct relay *r, int stop_fd, cp_error_t *err)
{
    bool want_in = r->in_fd >= 0 && r->len == 0, want_out = r->len > 0;
    struct pollfd p[4] = {{fd, (short)(POLLIN | (want_out ? POLLOUT : 0)), 0},
                          {stop_fd, POLLIN, 0},
                          {want_in ? r->in_fd : -1, POLLIN, 0},
                          {marks_seen(d) ? d->end_fd : -1, POLLIN, 0}};
    if (poll(p, 4, -1) < 0)
        return errno == EINTR ? 0 : cp_error_make(err, CP_ERR_FAILED, errno, "poll");
    if (p[1].revents != 0)
        return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "interrupted");
    if (p[3].revents != 0)
        return end_by_mark(fd, d, err);
    if (p[2].revents != 0 && relay_read(r, err) < 0)
        return cp_error_code(err);
    if ((p[0].revents & (POLLOUT | POLLERR)) && r->len > 0 && relay_write(r, err) < 0)
        return cp_error_code(err);
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
        return take_output(fd, d, err);
    return 0;
}

int cp_stream_pump(int fd, struct cp_demux *d, struct cp_buf *early, int stdin_fd, int stop_fd,
                   cp_error_t *err)
{
    cp_demux_set_stop(d, stop_fd);
    if (early->len > 0 && cp_demux_feed(d, (uint8_t *)early->data, early->len) < 0)
        return errno == EINTR
                   ? cp_error_make(err, CP_ERR_INTERRUPTED, 0, "interrupted")
                   : cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the command's output");
    cleanup_free struct relay *r = xcalloc(1, sizeof(*r));
    r->in_fd = stdin_fd;
    r->sock = fd;
    r->closed = stdin_fd < 0;
    for (;;) {
        int done = pump_once(fd, d, r, stop_fd, err);
        if (done != 0)
            return done < 0 ? done : 0;
    }
}
