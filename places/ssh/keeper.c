/* The keeper: a background conch-place that holds one authenticated session to an ssh:HOST
 * and does later runs over it, so a run pays neither the connection nor the far shells'
 * start (it keeps warm channels, exec.c). A run reaches it over a unix socket
 * in a folder only its user can enter (0700, checked), the socket 0600, and each side checks
 * the other's uid with SO_PEERCRED. The run hands over its standard streams (SCM_RIGHTS) and
 * the request; the keeper runs it through the run step (src/run/run.h) like any run, with its
 * kept session in the request (the place then checks the host key against known_hosts again
 * and runs far-side.c over that session), and answers with the status or the error. One run at a
 * time: a run that finds it busy, gone or broken goes alone (never locally). It exits when idle for
 * CONCH_SSH_KEEPER_IDLE seconds (300), and at once when its connection breaks.
 */
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
#include <sys/wait.h>
#include <unistd.h>

#include "places/ssh/config-text.h"
#include "places/ssh/exec.h"
#include "places/ssh/far-side.h"
#include "places/ssh/keeper-request.h"
#include "places/ssh/keeper-wire.h"
#include "places/ssh/session.h"
#include "places/ssh/ssh.h"
#include "src/base/buf.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/signals.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

#define DEFAULT_IDLE 300

static void answer(int fd, int rc, int status, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, KEEPER_MAX_MSG);
    char num[64];
    snprintf(num, sizeof(num), "%d", rc < 0 ? rc : 0);
    cp_unix_msg_put(&b, num);
    snprintf(num, sizeof(num), "%d", status & 255);
    cp_unix_msg_put(&b, num);
    snprintf(num, sizeof(num), "%d", rc < 0 ? cp_error_code(err) : 0);
    cp_unix_msg_put(&b, num);
    snprintf(num, sizeof(num), "%d", rc < 0 && *err != NULL ? (*err)->sys_errno : 0);
    cp_unix_msg_put(&b, num);
    cp_unix_msg_put(&b, rc < 0 && *err != NULL && (*err)->msg != NULL ? (*err)->msg : "");
    cp_unix_msg_put(&b, rc < 0 && *err != NULL && (*err)->hint != NULL ? (*err)->hint : "");
    (void)cp_unix_msg_send(fd, &b, NULL, 0);
}

/* The run over the kept session, through the run step like any other: the place resolves the
 * host as the run asked and checks the session's key against known_hosts again; a stop comes
 * from the client, on fd. */
static int serve_run(const struct cp_run_request *asked, struct cp_ssh_session *session, int fd,
                     cp_ssh_keeper_run_fn run, int *status_out, cp_error_t *err)
{
    const struct cp_run_kept kept = {.session = session, .stop_fd = fd};
    struct cp_run_request req = *asked;
    req.kept = &kept;
    int r = run(&req, err);
    *status_out = r < 0 ? 0 : r;
    return r < 0 ? r : 0;
}

/* One run asked on fd, its streams put in place of ours for the while; the run's code. */
static int serve(int fd, const char *alias, struct cp_ssh_session *session,
                 cp_ssh_keeper_run_fn run)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, KEEPER_MAX_MSG + 1);
    int fds[3] = {-1, -1, -1};
    struct cp_unix_recv how = {.max = KEEPER_MAX_MSG, .fds = fds, .fds_cap = 3};
    int rc = cp_unix_msg_recv(fd, &b, &how);
    size_t nfds = how.nfds;
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
        rc = serve_run(&req, session, fd, run, &status, &err);
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

int cp_ssh_keeper_main(const char *alias, cp_ssh_keeper_run_fn run, cp_error_t *err)
{
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    cleanup_ssh_host struct cp_ssh_host h = {0};
    if (cp_ssh_alias_check(alias, err) < 0 || cp_ssh_fs_init_default(&fs, err) < 0 ||
        cp_ssh_place_resolve(&fs, alias, &h, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = cp_ssh_keeper_path(&h, ".sock");
    cleanup_free char *lock_path = cp_ssh_keeper_path(&h, ".lock");
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
    s->defer_closes = true;
    cp_ssh_warm(s, CP_SSH_MAX_WARM);
    /* What is at path is a dead keeper's socket: its lock was free, so nobody listens there. */
    cleanup_close int lfd = cp_unix_listen(path, 0600, 8, err);
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
        if (c < 0 || !cp_unix_peer_is_us(c) || write(c, "K", 1) != 1)
            continue;
        if (serve(c, alias, s, run) < 0)
            break;
        cp_ssh_closes_finish(s);         /* the run answered: its lock's close is waited for now */
        cp_ssh_warm(s, CP_SSH_MAX_WARM); /* restocked between runs, not during one */
    }
    unlink(path);
    return 0;
}
