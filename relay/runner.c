/* The runner. Its request asks for frames (Accept: application/x-conch-relay); a door that
 * is busy (503) is asked again for a while, since a busy answer leaves the ticket good. On
 * SIGINT or SIGTERM it sends the door the signal's number as one byte and half-closes: the door
 * passes the signal to the run, which removes its box, and the status that comes back (130,
 * 143) is the one this exits with. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relay/frames.h"
#include "relay/relay.h"
#include "relay/runner.h"
#include "src/base/buf.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define BUSY_WAIT_S 120 /* how long a busy door is asked again */
#define HEAD_WAIT_S 30  /* the door answers a run's head at once; a silent one is broken */
#define REASON_MAX  1024

int cp_relay_parse_url(const char *url, unsigned *port, char ticket[CP_RELAY_TICKET_HEX + 1])
{
    const char *p;
    if (strncmp(url, "http://127.0.0.1:", 17) == 0)
        p = url + 17;
    else if (strncmp(url, "http://localhost:", 17) == 0)
        p = url + 17;
    else
        return -1;
    const char *slash = strchr(p, '/');
    if (slash == NULL || slash == p || slash - p > 5)
        return -1;
    char num[8] = {0};
    memcpy(num, p, (size_t)(slash - p));
    long v = 0;
    if (num[0] == '0' || cp_parse_long(num, 1, 65535, &v) < 0)
        return -1;
    if (strncmp(slash, "/run/", 5) != 0 || strlen(slash + 5) != CP_RELAY_TICKET_HEX)
        return -1;
    for (const char *h = slash + 5; *h; h++)
        if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')))
            return -1;
    *port = (unsigned)v;
    memcpy(ticket, slash + 5, CP_RELAY_TICKET_HEX + 1);
    return 0;
}

static int connect_door(unsigned port, cp_error_t *err)
{
    cleanup_close int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        cp_error_make(err, CP_ERR_UNREACHABLE, errno, "no relay door answers on 127.0.0.1:%u",
                      port);
        cp_error_hint(err, "The door closes with its turn: mint a new ticket from an open door.");
        return CP_ERR_UNREACHABLE;
    }
    return steal_fd(&fd);
}

static int send_request(int fd, unsigned port, const char *ticket)
{
    char req[512];
    int n = snprintf(req, sizeof(req),
                     "GET /run/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAccept: %s\r\n"
                     "User-Agent: conch-place-relay\r\nConnection: close\r\n\r\n",
                     ticket, port, CP_RELAY_FRAMES_TYPE);
    int r = cp_write_all(fd, req, (size_t)n);
    explicit_bzero(req, sizeof(req));
    return r;
}

/* Reads the answer's head (and whatever came with it) into b; the status code, or -1. */
static int read_head(int fd, struct cp_buf *b, size_t *head_len)
{
    for (;;) {
        const char *end = b->len > 0 ? memmem(b->data, b->len, "\r\n\r\n", 4) : NULL;
        if (end != NULL) {
            *head_len = (size_t)(end - b->data) + 4;
            int code = 0;
            if (sscanf(b->data, "HTTP/1.%*1[01] %3d ", &code) != 1)
                return -1;
            return code;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char chunk[4096];
        if (poll(&p, 1, HEAD_WAIT_S * 1000) <= 0)
            return -1;
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || cp_buf_append(b, chunk, (size_t)n) < 0)
            return -1;
    }
}

static bool head_has_frames(const char *head, size_t len)
{
    const char *t = memmem(head, len, "\r\nContent-Type: " CP_RELAY_FRAMES_TYPE "\r\n",
                           strlen("\r\nContent-Type: " CP_RELAY_FRAMES_TYPE "\r\n"));
    return t != NULL;
}

/* A refusal's body: the door's one line, cut and made printable. */
static void refusal(int fd, struct cp_buf *b, size_t head_len, int code, cp_error_t *err)
{
    char chunk[1024];
    ssize_t n;
    while (b->len - head_len < REASON_MAX && (n = read(fd, chunk, sizeof(chunk))) > 0)
        if (cp_buf_append(b, chunk, (size_t)n) < 0)
            break;
    char reason[REASON_MAX];
    size_t k = 0;
    static const char prefix[] = "conch-place relay: ";
    if (b->len - head_len >= sizeof(prefix) - 1 &&
        memcmp(b->data + head_len, prefix, sizeof(prefix) - 1) == 0)
        head_len += sizeof(prefix) - 1;
    for (size_t i = head_len; i < b->len && k + 1 < sizeof(reason); i++) {
        unsigned char c = (unsigned char)b->data[i];
        if (c == '\n')
            break;
        reason[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    reason[k] = '\0';
    cp_error_make(err, CP_ERR_DENIED, 0, "the relay door refused the run (HTTP %d): %s", code,
                  k > 0 ? reason : "no reason given");
}

static void sink(enum cp_frame_type type, const char *data, size_t len, void *ctx)
{
    (void)ctx;
    (void)cp_write_all(type == CP_FRAME_OUT ? STDOUT_FILENO : STDERR_FILENO, data, len);
}

/* Reads frames until the door closes; passes a signal on once. */
static int read_frames(int fd, const char *first, size_t first_len, int *status_out,
                       cp_error_t *err)
{
    struct cp_frame_reader *r = xmalloc(sizeof(*r));
    cp_frame_reader_init(r);
    int stop = cp_signals_install();
    int sent = 0, bad = cp_frame_feed(r, first, first_len, sink, NULL);
    char *buf = xmalloc(CP_FRAME_MAX);
    while (bad == 0) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = stop, .events = POLLIN}};
        if (poll(p, sent ? 1 : 2, -1) < 0 && errno != EINTR)
            break;
        if (!sent && cp_signals_caught() != 0) {
            char sig = (char)cp_signals_caught();
            sent = sig;
            (void)!write(fd, &sig, 1);
            shutdown(fd, SHUT_WR);
        }
        if (p[0].revents == 0)
            continue;
        ssize_t n = read(fd, buf, CP_FRAME_MAX);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        bad = cp_frame_feed(r, buf, (size_t)n, sink, NULL);
    }
    free(buf);
    if (r->failed)
        fprintf(stderr, "conch-place: %s", r->fail);
    int status = r->status;
    free(r);
    if (bad != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the relay door's answer is malformed");
    if (status >= 0) {
        *status_out = status;
        return 0;
    }
    if (sent != 0) {
        *status_out = 128 + sent;
        return 0;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0,
                         "the relay door closed before the command's status came");
}

static void busy_pause(int attempt)
{
    uint32_t jitter = 0;
    (void)!getrandom(&jitter, sizeof(jitter), 0);
    long ms = 100L << (attempt < 3 ? attempt : 3);
    ms += jitter % 200;
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

int cp_relay_runner(const char *url, int *status_out, cp_error_t *err)
{
    unsigned port = 0;
    char ticket[CP_RELAY_TICKET_HEX + 1];
    if (cp_relay_parse_url(url, &port, ticket) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "not a relay URL (http://127.0.0.1:PORT/run/TICKET)");
    (void)cp_signals_install(); /* from here on, Ctrl-C goes to the door, not straight to us */
    time_t start = time(NULL);
    for (int attempt = 0;; attempt++) {
        cleanup_close int fd = connect_door(port, err);
        if (fd < 0 || send_request(fd, port, ticket) < 0) {
            explicit_bzero(ticket, sizeof(ticket));
            return fd < 0 ? cp_error_code(err)
                          : cp_error_make(err, CP_ERR_FAILED, errno, "cannot ask the relay door");
        }
        cleanup_buf struct cp_buf b;
        cp_buf_init(&b, CP_RELAY_HEAD_MAX + REASON_MAX + CP_FRAME_MAX);
        size_t head_len = 0;
        int code = read_head(fd, &b, &head_len);
        if (code == 503 && time(NULL) - start < BUSY_WAIT_S) {
            cp_debug("relay: the door is busy; asking again");
            busy_pause(attempt);
            continue;
        }
        explicit_bzero(ticket, sizeof(ticket));
        if (code < 0)
            return cp_error_make(err, CP_ERR_FAILED, 0, "the relay door's answer is malformed");
        if (code != 200) {
            refusal(fd, &b, head_len, code, err);
            return cp_error_code(err);
        }
        if (!head_has_frames(b.data, head_len))
            return cp_error_make(err, CP_ERR_FAILED, 0, "the relay door did not answer in frames");
        return read_frames(fd, b.data + head_len, b.len - head_len, status_out, err);
    }
}
