/* The keeper's wire (keeper-wire.h): where its socket is, and its messages. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "places/ssh/keeper-wire.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static void fnv(uint64_t *h, const char *s)
{
    for (const char *p = s != NULL ? s : "-"; *p; p++)
        *h = (*h ^ (unsigned char)*p) * 1099511628211ULL;
    *h = (*h ^ 0xff) * 1099511628211ULL;
}

/* The folder, made 0700 and checked to be ours and closed to others. */
static char *keeper_dir(void)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char *dir = NULL;
    if (xdg != NULL && xdg[0] == '/') {
        dir = xasprintf("%s/conch-place", xdg);
    } else {
        cleanup_free char *home = NULL;
        cleanup_error cp_error_t err = NULL;
        if (cp_conch_home(1, &home, &err) < 0)
            return NULL;
        cleanup_free char *wp = xasprintf("%s/workplaces", home);
        if (mkdir(wp, 0700) < 0 && errno != EEXIST)
            return NULL;
        dir = xasprintf("%s/keepers", wp);
    }
    struct stat st;
    if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* The socket's path: one keeper per host as resolved now, per home and conch home. */
char *cp_ssh_keeper_path(const struct cp_ssh_host *h, const char *suffix)
{
    cleanup_free char *dir = keeper_dir();
    if (dir == NULL)
        return NULL;
    uint64_t k = 1469598103934665603ULL;
    fnv(&k, h->alias);
    fnv(&k, h->hostname);
    fnv(&k, h->user);
    fnv(&k, h->proxy_jump);
    fnv(&k, h->proxy_command);
    fnv(&k, getenv("HOME"));
    fnv(&k, getenv("CONCH_HOME"));
    char port[32];
    snprintf(port, sizeof(port), "%ld", h->port);
    fnv(&k, port);
    char *p = xasprintf("%s/ssh-%016llx%s", dir, (unsigned long long)k, suffix);
    if (strlen(p) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        free(p);
        return NULL;
    }
    return p;
}

bool cp_ssh_keeper_peer_ok(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == geteuid();
}

struct sockaddr_un cp_ssh_keeper_addr(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    return a;
}

void cp_ssh_keeper_put(struct cp_buf *b, const char *s)
{
    cp_buf_append(b, s, strlen(s) + 1);
}

/* One message: a 4-byte length, then the bytes; fds ride on the length when given. */
int cp_ssh_keeper_send(int fd, const struct cp_buf *b, const int *fds, size_t nfds)
{
    uint32_t len = (uint32_t)b->len;
    struct iovec iov = {.iov_base = &len, .iov_len = sizeof(len)};
    char control[CMSG_SPACE(3 * sizeof(int))] = {0};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        m.msg_control = control;
        m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
    }
    if (sendmsg(fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(len))
        return -1;
    return cp_write_all(fd, b->data, b->len);
}

/* Reads one message (and up to 3 fds) into *out, NUL-separated strings. */
int cp_ssh_keeper_recv(int fd, struct cp_buf *out, int *fds, size_t *nfds)
{
    uint32_t len = 0;
    struct iovec iov = {.iov_base = &len, .iov_len = sizeof(len)};
    char control[CMSG_SPACE(3 * sizeof(int))];
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fds != NULL) {
        m.msg_control = control;
        m.msg_controllen = sizeof(control);
    }
    ssize_t n;
    do
        n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    for (struct cmsghdr *c = fds != NULL ? CMSG_FIRSTHDR(&m) : NULL; c != NULL;
         c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            memcpy(fds, CMSG_DATA(c), (k > 3 ? 3 : k) * sizeof(int));
            *nfds = k > 3 ? 3 : k;
        }
    if (n != (ssize_t)sizeof(len) || len > KEEPER_MAX_MSG)
        return -1;
    char *data = xmalloc(len + 1);
    int r = cp_read_full(fd, data, len, -1);
    data[len] = '\0';
    if (r == 0)
        cp_buf_append(out, data, len);
    free(data);
    return r;
}

/* The strings of a message, at most max of them; how many there were. */
size_t cp_ssh_keeper_split(const struct cp_buf *b, const char **v, size_t max)
{
    size_t n = 0;
    for (size_t off = 0; off < b->len && n < max; n++) {
        v[n] = b->data + off;
        const char *end = memchr(v[n], '\0', b->len - off);
        if (end == NULL)
            break;
        off = (size_t)(end - b->data) + 1;
    }
    return n;
}
