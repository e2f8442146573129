/* Private unix sockets and their messages (unix-msg.h): the one copy of what the relay's
 * control socket and the ssh keeper each wrote for themselves. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/unix-msg.h"
#include "src/base/util.h"

int cp_unix_private_dir(const char *dir, cp_error_t *err)
{
    struct stat st;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "%s is not a folder only you can enter", dir);
    return 0;
}

int cp_unix_addr(const char *path, struct sockaddr_un *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(out->sun_path))
        return cp_error_make(err, CP_ERR_USAGE, 0, "the socket path %s is too long", path);
    memcpy(out->sun_path, path, strlen(path) + 1);
    return 0;
}

int cp_unix_listen(const char *path, mode_t mode, int backlog, cp_error_t *err)
{
    struct sockaddr_un a;
    if (cp_unix_addr(path, &a, err) < 0)
        return cp_error_code(err);
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    unlink(path);
    mode_t old = umask(077);
    int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&a, sizeof(a));
    umask(old);
    if (r < 0 || chmod(path, mode) < 0 || listen(fd, backlog) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot listen on %s", path);
    return steal_fd(&fd);
}

int cp_unix_connect(const char *path, cp_error_t *err)
{
    struct sockaddr_un a;
    if (cp_unix_addr(path, &a, err) < 0)
        return cp_error_code(err);
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
        return cp_error_make(err, CP_ERR_UNREACHABLE, errno, "nothing answers at %s", path);
    return steal_fd(&fd);
}

int cp_unix_peer_uid(int fd, uid_t *out)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return -1;
    *out = cred.uid;
    return 0;
}

bool cp_unix_peer_is_us(int fd)
{
    uid_t uid;
    return cp_unix_peer_uid(fd, &uid) == 0 && uid == geteuid();
}

int cp_unix_msg_put(struct cp_buf *b, const char *s)
{
    return cp_buf_append(b, s, strlen(s) + 1);
}

ssize_t cp_unix_msg_split(const struct cp_buf *b, const char ***out)
{
    if (b->len > 0 && b->data[b->len - 1] != '\0')
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->data[i] == '\0';
    const char **v = xcalloc(n + 1, sizeof(char *));
    for (size_t k = 0, off = 0; off < b->len; k++) {
        v[k] = b->data + off;
        off += strlen(v[k]) + 1;
    }
    *out = v;
    return (ssize_t)n;
}

/* The length, with the descriptors riding on it; MSG_NOSIGNAL where fd is a socket. */
static int send_head(int fd, uint32_t len, const int *fds, size_t nfds)
{
    struct iovec iov = {.iov_base = &len, .iov_len = sizeof(len)};
    char control[CMSG_SPACE(CP_UNIX_MSG_FDS_MAX * sizeof(int))] = {0};
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
    ssize_t n;
    do
        n = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == ENOTSOCK && nfds == 0)
        return cp_write_all(fd, &len, sizeof(len)); /* a pipe */
    if (n < 0)
        return -1;
    return cp_write_all(fd, (const char *)&len + n, sizeof(len) - (size_t)n);
}

int cp_unix_msg_send(int fd, const struct cp_buf *b, const int *fds, size_t nfds)
{
    if (nfds > CP_UNIX_MSG_FDS_MAX || b->len > UINT32_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (send_head(fd, (uint32_t)b->len, fds, nfds) < 0)
        return -1;
    return cp_write_all(fd, b->data, b->len);
}

static int wait_of(int ms)
{
    return ms > 0 ? ms : -1;
}

static void take_fds(struct msghdr *m, struct cp_unix_recv *how)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int got;
            memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (how->nfds < how->fds_cap)
                how->fds[how->nfds++] = got;
            else
                close(got);
        }
    }
}

/* The length, by recvmsg so descriptors riding on it are taken. */
static int recv_head_fds(int fd, uint32_t *len, struct cp_unix_recv *how)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (wait_of(how->first_wait_ms) >= 0 && poll(&p, 1, how->first_wait_ms) <= 0)
        return -1;
    struct iovec iov = {.iov_base = len, .iov_len = sizeof(*len)};
    char control[CMSG_SPACE(CP_UNIX_MSG_FDS_MAX * sizeof(int))];
    size_t cap = how->fds_cap < CP_UNIX_MSG_FDS_MAX ? how->fds_cap : CP_UNIX_MSG_FDS_MAX;
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control,
                       .msg_controllen = CMSG_SPACE(cap * sizeof(int))};
    ssize_t n;
    do
        n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        take_fds(&m, how);
    if (n <= 0)
        return -1;
    return cp_read_full(fd, (char *)len + n, sizeof(*len) - (size_t)n, wait_of(how->rest_wait_ms));
}

static int recv_body(int fd, uint32_t len, struct cp_buf *out, const struct cp_unix_recv *how)
{
    size_t room = out->max - out->len, max = how->max > 0 ? how->max : room;
    if (len > max || len > room) {
        errno = EMSGSIZE;
        return -1;
    }
    char *data = xmalloc((size_t)len + 1);
    int r = cp_read_full(fd, data, len, wait_of(how->rest_wait_ms));
    if (r == 0)
        r = cp_buf_append(out, data, len);
    explicit_bzero(data, len);
    free(data);
    return r;
}

int cp_unix_msg_recv(int fd, struct cp_buf *out, struct cp_unix_recv *how)
{
    how->nfds = 0;
    uint32_t len = 0;
    int r = how->fds != NULL && how->fds_cap > 0
                ? recv_head_fds(fd, &len, how)
                : cp_read_full(fd, &len, sizeof(len), wait_of(how->first_wait_ms));
    if (r == 0)
        r = recv_body(fd, len, out, how);
    if (r < 0) {
        int saved = errno;
        for (size_t i = 0; i < how->nfds; i++)
            close(how->fds[i]);
        how->nfds = 0;
        errno = saved;
    }
    return r;
}
