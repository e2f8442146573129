/* The local transport: the far side is a folder on this machine and /bin/sh runs its scripts.
 * Standard input is a socket so a far side that stops reading gives EPIPE, never SIGPIPE. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mirror/transport.h"
#include "src/base/util.h"

struct local_proc {
    struct cp_far_proc base; /* first, so the handle converts both ways */
    pid_t pid;
    int in, out, errfd;
    int status;
    int reaped;
};

static const struct cp_transport_ops local_ops;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* In the child: wire the three streams and become /bin/sh; only async-signal-safe calls. */
static void exec_child(int in, int out, int errfd, const char *script, const char *const *argv)
{
    const char *args[64];
    size_t n = 0;
    args[n++] = "/bin/sh";
    args[n++] = "-c";
    args[n++] = script;
    args[n++] = "conch-mirror";
    for (size_t i = 0; argv != NULL && argv[i] != NULL && n < ARRAY_SIZE(args) - 1; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
        _exit(125);
    execv("/bin/sh", (char *const *)args);
    _exit(127);
}

static int make_streams(int sv[2], int po[2], int pe[2], cp_error_t *err)
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a socket pair");
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot make a pipe");
    }
    return 0;
}

static int local_start(struct cp_transport *t, const char *script, const char *const *argv,
                       struct cp_far_proc **out, cp_error_t *err)
{
    int sv[2], po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (make_streams(sv, po, pe, err) < 0)
        return cp_error_code(err);
    pid_t pid = fork();
    if (pid == 0)
        exec_child(sv[1], po[1], pe[1], script, argv);
    int e = errno;
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
        close(sv[0]);
        close(po[0]);
        close(pe[0]);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot start /bin/sh");
    }
    struct local_proc *r = xcalloc(1, sizeof(*r));
    r->base.ops = &local_ops;
    r->pid = pid;
    r->in = sv[0];
    r->out = po[0];
    r->errfd = pe[0];
    *out = &r->base;
    return 0;
}

static int local_write(struct cp_far_proc *base, const void *buf, size_t len, cp_error_t *err)
{
    struct local_proc *r = (struct local_proc *)base;
    const char *p = buf;
    while (len > 0) {
        ssize_t n = r->in < 0 ? -1 : send(r->in, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, r->in < 0 ? EBADF : errno,
                                 "cannot write to the far side");
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int local_close_stdin(struct cp_far_proc *base, cp_error_t *err)
{
    struct local_proc *r = (struct local_proc *)base;
    close_fd(&r->in);
    return 0;
}

static ssize_t read_fd(int fd, void *buf, size_t len, cp_error_t *err)
{
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0)
            return n;
        if (errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read from the far side");
    }
}

static ssize_t local_read_stdout(struct cp_far_proc *base, void *buf, size_t len, cp_error_t *err)
{
    return read_fd(((struct local_proc *)base)->out, buf, len, err);
}

static ssize_t local_read_stderr(struct cp_far_proc *base, void *buf, size_t len, cp_error_t *err)
{
    return read_fd(((struct local_proc *)base)->errfd, buf, len, err);
}

static int local_wait(struct cp_far_proc *base, int *status_out, cp_error_t *err)
{
    struct local_proc *r = (struct local_proc *)base;
    close_fd(&r->in);
    while (!r->reaped) {
        int st = 0;
        if (waitpid(r->pid, &st, 0) < 0) {
            if (errno == EINTR)
                continue;
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot wait for the far side");
        }
        r->reaped = 1;
        r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    *status_out = r->status;
    return 0;
}

static void local_proc_free(struct cp_far_proc *base)
{
    struct local_proc *r = (struct local_proc *)base;
    close_fd(&r->in);
    close_fd(&r->out);
    close_fd(&r->errfd);
    if (!r->reaped) {
        kill(-r->pid, SIGKILL);
        kill(r->pid, SIGKILL);
        while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    free(r);
}

static void local_free(struct cp_transport *t)
{
    free(t);
}

static const struct cp_transport_ops local_ops = {
    .start = local_start,
    .write_stdin = local_write,
    .close_stdin = local_close_stdin,
    .read_stdout = local_read_stdout,
    .read_stderr = local_read_stderr,
    .wait = local_wait,
    .proc_free = local_proc_free,
    .free = local_free,
};

int cp_transport_local_new(struct cp_transport **out, cp_error_t *err)
{
    struct cp_transport *t = xcalloc(1, sizeof(*t));
    t->ops = &local_ops;
    *out = t;
    return 0;
}
