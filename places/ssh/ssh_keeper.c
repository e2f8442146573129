/* The keeper: a background conch-place that holds one authenticated session to an ssh:HOST
 * and does later runs over it, so a run pays neither the connection nor the far shells'
 * start (it keeps warm channels, places/ssh/ssh_warm.c). A run reaches it over a unix socket
 * in a folder only its user can enter (0700, checked), the socket 0600, and each side checks
 * the other's uid with SO_PEERCRED. The run hands over its standard streams (SCM_RIGHTS) and
 * the request; the keeper does push, command and pull as the run would, checking the host key
 * against known_hosts again each time, and answers with the status or the error. One run at
 * a time: a run that finds it busy, gone or broken goes alone (never locally). It exits when
 * idle for CONCH_SSH_KEEPER_IDLE seconds (300), and at once when its connection breaks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/ssh/place-ssh-int.h"
#include "places/ssh/ssh_keeper.h"
#include "places/ssh/ssh_request.h"
#include "places/ssh/ssh_session_int.h"
#include "src/base/buf.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define KEEPER_MAX_MSG (1024 * 1024)
#define ACK_WAIT_MS    300 /* a keeper busy with another run longer than this: go alone */
#define DEFAULT_IDLE   300

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
static char *keeper_path(const struct cp_ssh_host *h, const char *suffix)
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

static bool peer_is_us(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == geteuid();
}

static struct sockaddr_un unix_addr(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    return a;
}

/* Starts `conch-place ssh-keeper ALIAS`, detached, its streams on /dev/null. */
void cp_ssh_keeper_spawn(const char *alias)
{
    pid_t pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        closefrom(3);
        execl("/proc/self/exe", "conch-place", "ssh-keeper", alias, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
}

int cp_ssh_keeper_reach(const struct cp_ssh_host *h, int *fd_out)
{
    *fd_out = -1;
    const char *use = getenv("CONCH_SSH_KEEPER");
    if (use != NULL && strcmp(use, "0") == 0)
        return -1;
    cleanup_free char *path = keeper_path(h, ".sock");
    if (path == NULL)
        return -1;
    struct sockaddr_un a = unix_addr(path);
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        cp_debug("ssh:%s: no keeper (%s); going alone", h->alias, strerror(errno));
        return 1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char ack = 0;
    if (!peer_is_us(fd) || poll(&p, 1, ACK_WAIT_MS) <= 0 || read(fd, &ack, 1) != 1 || ack != 'K') {
        cp_debug("ssh:%s: the keeper is busy or gone; going alone", h->alias);
        return -1;
    }
    cp_debug("ssh:%s: the keeper serves this run", h->alias);
    *fd_out = steal_fd(&fd);
    return 0;
}

static void put_str(struct cp_buf *b, const char *s)
{
    cp_buf_append(b, s, strlen(s) + 1);
}

/* One message: a 4-byte length, then the bytes; fds ride on the length when given. */
static int send_msg(int fd, const struct cp_buf *b, const int *fds, size_t nfds)
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
static int recv_msg(int fd, struct cp_buf *out, int *fds, size_t *nfds)
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
static size_t split(const struct cp_buf *b, const char **v, size_t max)
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

int cp_ssh_keeper_run(int fd, const struct cp_run_request *req, int *status_out, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, KEEPER_MAX_MSG - 1);
    if (cp_ssh_request_encode(req, cp_log_verbose > 0, &b, err) < 0)
        return cp_error_code(err);
    int fds[3] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
    if (send_msg(fd, &b, fds, 3) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot hand the run to the ssh keeper");
    int stop_fd = cp_signals_install();
    for (bool asked = false;;) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
        if (poll(p, asked ? 1 : 2, -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents != 0)
            break;
        if (!asked && p[1].revents != 0) {
            char sig = (char)cp_signals_caught();
            asked = write(fd, &sig, 1) == 1;
        }
    }
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, KEEPER_MAX_MSG);
    const char *v[6] = {0};
    if (recv_msg(fd, &r, NULL, NULL) < 0 || split(&r, v, 6) != 6)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the ssh keeper ended during the run");
    long rc = 0, status = 0, code = 0, sys = 0;
    if (cp_parse_long(v[0], -1000, 0, &rc) < 0 || cp_parse_long(v[1], 0, 255, &status) < 0 ||
        cp_parse_long(v[2], -1000, 1000, &code) < 0 || cp_parse_long(v[3], 0, 4096, &sys) < 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the ssh keeper answered nonsense");
    if (rc == 0) {
        *status_out = (int)status;
        return 0;
    }
    cp_error_make(err, (int)code, (int)sys, "%s", v[4]);
    if (v[5][0] != '\0')
        cp_error_hint(err, "%s", v[5]);
    return cp_error_code(err);
}

int cp_ssh_keeper_signal(int fd)
{
    unsigned char sig = 0;
    return read(fd, &sig, 1) == 1 && sig > 0 && sig < 65 ? sig : SIGHUP;
}

/* ---- the keeper's side ---- */

static void answer(int fd, int rc, int status, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, KEEPER_MAX_MSG);
    char num[64];
    snprintf(num, sizeof(num), "%d", rc < 0 ? rc : 0);
    put_str(&b, num);
    snprintf(num, sizeof(num), "%d", status & 255);
    put_str(&b, num);
    snprintf(num, sizeof(num), "%d", rc < 0 ? cp_error_code(err) : 0);
    put_str(&b, num);
    snprintf(num, sizeof(num), "%d", rc < 0 && *err != NULL ? (*err)->sys_errno : 0);
    put_str(&b, num);
    put_str(&b, rc < 0 && *err != NULL && (*err)->msg != NULL ? (*err)->msg : "");
    put_str(&b, rc < 0 && *err != NULL && (*err)->hint != NULL ? (*err)->hint : "");
    (void)send_msg(fd, &b, NULL, 0);
}

/* One run asked on fd, its streams put in place of ours for the while; the run's code. */
static int serve(int fd, const char *alias, struct cp_ssh_session *session)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, KEEPER_MAX_MSG + 1);
    int fds[3] = {-1, -1, -1};
    size_t nfds = 0;
    int rc = recv_msg(fd, &b, fds, &nfds);
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *place = xasprintf("ssh:%s", alias);
    int status = 0;
    struct cp_ssh_request r __attribute__((cleanup(cp_ssh_request_dispose))) = {0};
    if (rc < 0 || nfds != 3 || cp_ssh_request_decode(b.data, b.len, &r, &err) < 0 ||
        strcmp(r.req.place, place) != 0) {
        rc = cp_error_make(&err, CP_ERR_FAILED, 0, "the ssh keeper did not understand the run");
    } else {
        const struct cp_run_request req = r.req;
        int saved[3];
        for (int i = 0; i < 3; i++) {
            saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
            dup2(fds[i], i);
        }
        cp_log_verbose = r.verbose;
        rc = cp_ssh_place_serve(&req, session, fd, &status, &err);
        for (int i = 0; i < 3; i++) {
            dup2(saved[i], i);
            close(saved[i]);
        }
        cp_log_verbose = 0;
    }
    for (size_t i = 0; i < nfds; i++)
        close(fds[i]);
    answer(fd, rc, status, &err);
    if (rc < 0 && (cp_error_code(&err) == CP_ERR_UNREACHABLE ||
                   cp_error_code(&err) == CP_ERR_TIMEOUT || cp_error_code(&err) == CP_ERR_DENIED))
        return -1; /* a broken connection or a host key in doubt: this keeper is done */
    return 0;
}

/* Reads what the far side sent while idle (window changes, a warm shell's end); -1 when the
 * connection is gone. */
static int idle_service(struct cp_ssh_session *s)
{
    char buf[256];
    libssh2_session_set_blocking(s->lib, 0);
    for (size_t i = 0; i < s->nwarm; i++) {
        ssize_t r = libssh2_channel_read(s->warm[i], buf, sizeof(buf));
        if ((r < 0 && r != LIBSSH2_ERROR_EAGAIN) || libssh2_channel_eof(s->warm[i])) {
            libssh2_session_set_blocking(s->lib, 1);
            return -1;
        }
    }
    int next = 0;
    int k = libssh2_keepalive_send(s->lib, &next);
    libssh2_session_set_blocking(s->lib, 1);
    char peek;
    ssize_t p = recv(s->fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT);
    return k < 0 && k != LIBSSH2_ERROR_EAGAIN ? -1 : p == 0 ? -1 : 0;
}

static long idle_seconds(void)
{
    const char *e = getenv("CONCH_SSH_KEEPER_IDLE");
    long v = DEFAULT_IDLE;
    if (e != NULL && cp_parse_long(e, 1, 86400, &v) < 0)
        v = DEFAULT_IDLE;
    return v;
}

static int listen_on(const char *path, cp_error_t *err)
{
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = unix_addr(path);
    unlink(path); /* a dead keeper's: its lock was free, so nobody listens there */
    mode_t old = umask(077);
    int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&a, sizeof(a));
    umask(old);
    if (r < 0 || chmod(path, 0600) < 0 || listen(fd, 8) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot listen on %s", path);
    return steal_fd(&fd);
}

int cp_ssh_keeper_main(const char *alias, cp_error_t *err)
{
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    cleanup_ssh_host struct cp_ssh_host h = {0};
    if (cp_ssh_alias_check(alias, err) < 0 || cp_ssh_fs_init_default(&fs, err) < 0 ||
        cp_ssh_place_resolve(&fs, alias, &h, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = keeper_path(&h, ".sock");
    cleanup_free char *lock_path = keeper_path(&h, ".lock");
    if (path == NULL || lock_path == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "no private folder for the ssh keeper");
    cleanup_close int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0)
        return 0; /* another keeper holds this host */
    char pid[32];
    int plen = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(lock, 0) < 0 || cp_write_all(lock, pid, (size_t)plen) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write %s", lock_path);
    signal(SIGPIPE, SIG_IGN);
    cleanup_ssh_session struct cp_ssh_session *s = NULL;
    if (cp_ssh_connect(&fs, &h, &s, err) < 0)
        return cp_error_code(err);
    cp_ssh_warm(s, 3);
    cleanup_close int lfd = listen_on(path, err);
    if (lfd < 0)
        return cp_error_code(err);
    long idle_ms = idle_seconds() * 1000;
    for (;;) {
        struct pollfd p[2] = {{.fd = lfd, .events = POLLIN}, {.fd = s->fd, .events = POLLIN}};
        int r = poll(p, 2, (int)idle_ms);
        if (r == 0 || (r < 0 && errno != EINTR))
            break;
        if (p[1].revents != 0 && idle_service(s) < 0)
            break;
        if (p[0].revents == 0)
            continue;
        cleanup_close int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0 || !peer_is_us(c) || write(c, "K", 1) != 1)
            continue;
        if (serve(c, alias, s) < 0)
            break;
        cp_ssh_warm(s, 3);
    }
    unlink(path);
    return 0;
}
