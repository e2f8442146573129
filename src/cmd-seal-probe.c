/* `seal-probe` (internal): what a sealed box can open, tried from inside one. The container
 * place runs it in a small box made from the egress image on a folder's internal network
 * (places/container/seal/seal-probe.c): each --must target has to accept a TCP connection (the
 * sidecar's proxy port: a host whose firewall drops box-to-sidecar traffic fails here), each
 * --try target is only attempted, for a listener outside the box to count. Prints one line a
 * target; exits 0 when every --must target opened, 1 otherwise. */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/util.h"
#include "src/command.h"

#define PROBE_TIMEOUT_MS 3000
#define PROBE_MAX        256
#define RETRY_MS         50

extern const struct cp_command cp_cmd_seal_probe;

static const struct cp_option options[] = {
    {"must", 0, "ADDR:PORT", "must accept a connection (repeatable)"},
    {"try", 0, "ADDR:PORT", "only tried, for a listener elsewhere to count (repeatable)"},
    {0},
};

struct target {
    const char *spec;
    bool must;
    int fd;
    int refused;        /* the last try met ECONNREFUSED */
    const char *result; /* "open", or why not */
};

/* "ADDR:PORT", "[ADDR]:PORT" or "[fe80::1%eth0]:PORT": a numeric address, never a lookup. */
static const char *split(const char *spec, char *host, size_t size)
{
    const char *colon = strrchr(spec, ':');
    const char *h = spec[0] == '[' ? spec + 1 : spec;
    size_t hl = colon != NULL && colon > h ? (size_t)(colon - h) : 0;
    if (hl > 0 && h[hl - 1] == ']')
        hl--;
    if (hl == 0 || hl >= size)
        return NULL;
    memcpy(host, h, hl);
    host[hl] = '\0';
    return colon + 1;
}

static void start_connect(struct target *t)
{
    char host[128];
    const char *port = split(t->spec, host, sizeof(host));
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    if (port == NULL || getaddrinfo(host, port, &hints, &ai) != 0) {
        t->result = "not a numeric ADDR:PORT";
        return;
    }
    t->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int r = t->fd < 0 ? -1 : connect(t->fd, ai->ai_addr, ai->ai_addrlen);
    int saved = errno;
    freeaddrinfo(ai);
    t->refused = r < 0 && saved == ECONNREFUSED;
    if (r == 0)
        t->result = "open";
    else if (t->fd < 0 || saved != EINPROGRESS)
        t->result = strerror(saved);
}

static void finish(struct target *t)
{
    int so = 0;
    socklen_t len = sizeof(so);
    if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &so, &len) < 0)
        so = errno;
    t->refused = so == ECONNREFUSED;
    t->result = so == 0 ? "open" : strerror(so);
}

/* A sidecar that was just started may not listen yet, and refuses: a --must target is dialled
 * again until the time-out. A firewall's drop never refuses, so it still times out. */
static bool redial(struct target *t, long left)
{
    if (!t->must || !t->refused || left <= RETRY_MS)
        return false;
    close(t->fd);
    t->fd = -1;
    t->result = NULL;
    poll(NULL, 0, RETRY_MS);
    start_connect(t);
    return true;
}

/* All targets at once, so a dropped one costs the time-out once, not once each. */
static void wait_all(struct target *t, size_t n)
{
    int64_t deadline = cp_now_ms() + PROBE_TIMEOUT_MS;
    for (;;) {
        struct pollfd p[PROBE_MAX];
        size_t idx[PROBE_MAX], np = 0;
        for (size_t i = 0; i < n; i++)
            if (t[i].result == NULL) {
                p[np] = (struct pollfd){.fd = t[i].fd, .events = POLLOUT};
                idx[np++] = i;
            }
        long left = cp_deadline_left_ms(deadline);
        bool again = false;
        for (size_t i = 0; i < n; i++)
            if (t[i].result != NULL && redial(&t[i], left))
                again = true;
        if (again)
            continue;
        if (np == 0 || left <= 0 || poll(p, np, (int)left) <= 0)
            break;
        for (size_t k = 0; k < np; k++)
            if (p[k].revents != 0)
                finish(&t[idx[k]]);
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].result == NULL)
            t[i].result = "no answer (timed out)";
}

/* A box's IPv6 addresses are tentative for a moment after it starts (duplicate address
 * detection) and cannot be dialled from; an attacker would wait, so the probe does too. */
static void wait_for_ipv6(void)
{
    for (int i = 0; i < 30; i++) {
        cleanup_fclose FILE *f = fopen("/proc/net/if_inet6", "re");
        char line[256];
        bool tentative = false;
        unsigned flags = 0;
        while (f != NULL && fgets(line, sizeof(line), f) != NULL)
            if (sscanf(line, "%*s %*x %*x %*x %x", &flags) == 1 && (flags & 0x40) != 0)
                tentative = true; /* IFA_F_TENTATIVE */
        if (!tentative)
            return;
        poll(NULL, 0, 100);
    }
}

static size_t collect(const struct cp_parsed *args, const char *option, bool must, struct target *t,
                      size_t n)
{
    int pos = 0;
    for (const char *v;
         n < PROBE_MAX && (v = cp_arg_next(args, &cp_cmd_seal_probe, option, &pos)) != NULL;)
        t[n++] = (struct target){.spec = v, .must = must, .fd = -1};
    return n;
}

static int probe_handler(const struct cp_parsed *args, cp_error_t *err)
{
    struct target t[PROBE_MAX];
    size_t n = collect(args, "try", false, t, collect(args, "must", true, t, 0));
    if (n == 0 || args->nrest != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "seal-probe takes --must/--try ADDR:PORT");
    wait_for_ipv6();
    for (size_t i = 0; i < n; i++)
        start_connect(&t[i]);
    wait_all(t, n);
    int status = 0;
    for (size_t i = 0; i < n; i++) {
        printf("%s %s: %s\n", t[i].must ? "must" : "try", t[i].spec, t[i].result);
        if (t[i].must && strcmp(t[i].result, "open") != 0)
            status = 1;
        if (t[i].fd >= 0)
            close(t[i].fd);
    }
    fflush(stdout);
    return status;
}

const struct cp_command cp_cmd_seal_probe = {
    .name = "seal-probe",
    .synopsis = "[--must ADDR:PORT]... [--try ADDR:PORT]...",
    .summary = "(internal) run in a probe box: which addresses a sealed box can open",
    .options = options,
    .handler = probe_handler,
    .failure_status = 1,
};
