/* The owner of a loopback TCP peer. The accepted socket knows both ends' addresses; the peer's
 * own socket is the one whose local end is our far end and whose far end is our local end, and
 * the kernel keeps the uid that made it. Asked of NETLINK_SOCK_DIAG by exact address (one
 * answer, no dump); /proc/net/tcp is read only when netlink cannot answer (a kernel without
 * inet_diag, a sandbox that forbids netlink). */
#include "config.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay/peer.h"
#include "src/base/util.h"

/* Both ends of the accepted connection, as the peer sees them: its own end is our far end. */
static int ends(int fd, struct sockaddr_in *peer_own, struct sockaddr_in *peer_far, cp_error_t *err)
{
    socklen_t a = sizeof(*peer_own), b = sizeof(*peer_far);
    if (getpeername(fd, (struct sockaddr *)peer_own, &a) < 0 ||
        getsockname(fd, (struct sockaddr *)peer_far, &b) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read the connection's addresses");
    if (peer_own->sin_family != AF_INET || peer_far->sin_family != AF_INET)
        return cp_error_make(err, CP_ERR_DENIED, 0, "not an IPv4 loopback connection");
    return 0;
}

static int diag_ask(int nl, const struct sockaddr_in *own, const struct sockaddr_in *far)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 r;
    } req = {
        .nlh = {.nlmsg_len = sizeof(req),
                .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                .nlmsg_flags = NLM_F_REQUEST,
                .nlmsg_seq = 1},
        .r = {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP, .idiag_states = ~0U},
    };
    req.r.id.idiag_sport = own->sin_port;
    req.r.id.idiag_dport = far->sin_port;
    req.r.id.idiag_src[0] = own->sin_addr.s_addr;
    req.r.id.idiag_dst[0] = far->sin_addr.s_addr;
    req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    return sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) ==
                   (ssize_t)sizeof(req)
               ? 0
               : -1;
}

/* A record's address is a's: IPv4, or IPv4-mapped in a dual-stack socket's IPv6 record. */
static bool diag_addr_is(const struct inet_diag_msg *m, const __be32 addr[4],
                         const struct sockaddr_in *a)
{
    if (m->idiag_family == AF_INET)
        return addr[0] == a->sin_addr.s_addr;
    return m->idiag_family == AF_INET6 && addr[0] == 0 && addr[1] == 0 &&
           addr[2] == htonl(0xffff) && addr[3] == a->sin_addr.s_addr;
}

/* The one answer: the socket's record (its ends checked again), or the kernel's error. */
static int diag_read(int nl, const struct sockaddr_in *own, const struct sockaddr_in *far,
                     uid_t *out)
{
    long buf[8192 / sizeof(long)];
    struct sockaddr_nl from;
    socklen_t flen = sizeof(from);
    ssize_t n = recvfrom(nl, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
    if (n < 0)
        return -errno;
    if (from.nl_pid != 0)
        return -EPERM; /* only the kernel answers this */
    for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
         h = NLMSG_NEXT(h, n)) {
        if (h->nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *e = NLMSG_DATA(h);
            return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error < 0 ? e->error : -EPROTO;
        }
        if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
            h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
            continue;
        const struct inet_diag_msg *m = NLMSG_DATA(h);
        if (m->id.idiag_sport == own->sin_port && m->id.idiag_dport == far->sin_port &&
            diag_addr_is(m, m->id.idiag_src, own) && diag_addr_is(m, m->id.idiag_dst, far)) {
            *out = (uid_t)m->idiag_uid;
            return 0;
        }
    }
    return -ENOENT;
}

static int diag_uid(const struct sockaddr_in *own, const struct sockaddr_in *far, uid_t *out)
{
    cleanup_close int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return -errno;
    struct timeval tv = {.tv_sec = 1};
    setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)); /* the kernel answers at once */
    if (diag_ask(nl, own, far) < 0)
        return -errno;
    return diag_read(nl, own, far, out);
}

/* A /proc address field: 8 hex digits (IPv4) or 32 (IPv6), each 8 the kernel's own word
 * printed in this machine's byte order, so copying the words back gives the address bytes. */
static int proc_addr(const char *hex, uint8_t out[16], size_t *len)
{
    size_t n = strlen(hex);
    if (n != 8 && n != 32)
        return -1;
    for (size_t i = 0; i < n / 8; i++) {
        char word[9];
        memcpy(word, hex + 8 * i, 8);
        word[8] = '\0';
        uint32_t w = (uint32_t)strtoul(word, NULL, 16);
        memcpy(out + 4 * i, &w, 4);
    }
    *len = n / 2;
    return 0;
}

static bool same_end(const char *hex, unsigned port, const struct sockaddr_in *a)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    uint8_t b[16];
    size_t len = 0;
    if (proc_addr(hex, b, &len) < 0 || port != ntohs(a->sin_port))
        return false;
    if (len == 4)
        return memcmp(b, &a->sin_addr, 4) == 0;
    return memcmp(b, mapped, 12) == 0 && memcmp(b + 12, &a->sin_addr, 4) == 0;
}

int cp_relay_proc_tcp_row(const char *line, const struct sockaddr_in *own,
                          const struct sockaddr_in *far, uid_t *out)
{
    char la[33], ra[33];
    unsigned lp = 0, rp = 0, uid = 0;
    /* sl local rem st tx:rx tr:when retrnsmt uid ... */
    if (sscanf(line, " %*s %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %*x %*s %*s %*s %u", la, &lp, ra,
               &rp, &uid) != 5)
        return -1;
    if (!same_end(la, lp, own) || !same_end(ra, rp, far))
        return -1;
    *out = (uid_t)uid;
    return 0;
}

static int proc_find(const char *path, const struct sockaddr_in *own, const struct sockaddr_in *far,
                     uid_t *out)
{
    cleanup_fclose FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL)
        if (cp_relay_proc_tcp_row(line, own, far, out) == 0)
            return 0;
    return -1;
}

int cp_relay_tcp_peer_uid_proc(int fd, uid_t *out, cp_error_t *err)
{
    struct sockaddr_in own, far;
    if (ends(fd, &own, &far, err) < 0)
        return cp_error_code(err);
    if (proc_find("/proc/net/tcp", &own, &far, out) == 0 ||
        proc_find("/proc/net/tcp6", &own, &far, out) == 0)
        return 0;
    return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "the peer's socket is not in /proc/net/tcp");
}

int cp_relay_tcp_peer_uid(int fd, uid_t *out, cp_error_t *err)
{
    struct sockaddr_in own, far;
    if (ends(fd, &own, &far, err) < 0)
        return cp_error_code(err);
    int r = diag_uid(&own, &far, out);
    if (r == 0)
        return 0;
    if (cp_relay_tcp_peer_uid_proc(fd, out, err) == 0)
        return 0;
    return cp_error_wrap(err, "the kernel's socket diagnostics said: %s; then", strerror(-r));
}
