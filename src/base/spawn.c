/* Child processes (spawn.h): the one fork and exec, with its streams, and the reaping that
 * the cleanup attribute makes certain. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/base/spawn.h"
#include "src/base/util.h"

extern char **environ;

/* One stream as set up before the fork: the child's end (put on 0, 1 or 2) and ours. */
struct end {
    int child;        /* -1: keep the stream as it is */
    int ours;         /* -1: nothing for us */
    bool close_child; /* the child's end is ours to close after the fork (not a caller's fd) */
};

static void close_end(struct end *e)
{
    if (e->close_child && e->child >= 0)
        close(e->child);
    if (e->ours >= 0)
        close(e->ours);
    *e = (struct end){-1, -1, false};
}

static const char *what_of(const struct cp_spawn_opts *o, char *const *argv)
{
    return o->what != NULL ? o->what : o->file != NULL ? o->file : argv[0];
}

/* reading: the child reads the stream (standard input). */
static int make_end(const struct cp_stdio *s, bool reading, struct end *e, const char *what,
                    cp_error_t *err)
{
    *e = (struct end){-1, -1, false};
    int two[2];
    switch (s->how) {
    case CP_STDIO_KEEP:
        return 0;
    case CP_STDIO_FD:
        e->child = s->fd;
        return 0;
    case CP_STDIO_NULL:
        e->child = open("/dev/null", O_RDWR | O_CLOEXEC);
        e->close_child = true;
        return e->child >= 0 ? 0
                             : cp_error_make(err, CP_ERR_FAILED, errno, "cannot open /dev/null");
    case CP_STDIO_PIPE:
        if (pipe2(two, O_CLOEXEC) < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a pipe for %s", what);
        *e = (struct end){reading ? two[0] : two[1], reading ? two[1] : two[0], true};
        return 0;
    case CP_STDIO_SOCKET:
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, two) < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a socket pair for %s",
                                 what);
        *e = (struct end){two[1], two[0], true};
        return 0;
    }
    return cp_error_make(err, CP_ERR_FAILED, EINVAL, "no such stream setting for %s", what);
}

static void signals_to_default(void)
{
    static const int stops[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < ARRAY_SIZE(stops); i++)
        sigaction(stops[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child: async-signal-safe calls only, then the program, or 127. */
static void become(char *const *argv, const struct cp_spawn_opts *o, const struct end ends[3])
{
    if (o->new_session)
        (void)setsid();
    else if (o->new_group)
        (void)setpgid(0, 0);
    if (o->default_signals)
        signals_to_default();
    int moved[3];
    /* Above 2 first, so putting one in place never overwrites another's source. */
    for (int i = 0; i < 3; i++) {
        moved[i] = ends[i].child >= 0 ? fcntl(ends[i].child, F_DUPFD_CLOEXEC, 3) : -1;
        if (ends[i].child >= 0 && moved[i] < 0)
            _exit(127);
    }
    for (int i = 0; i < 3; i++)
        if (moved[i] >= 0 && dup2(moved[i], i) < 0)
            _exit(127);
    if (o->cwd != NULL && chdir(o->cwd) < 0)
        _exit(127);
    if (o->close_others)
        close_range(3, ~0U, 0);
    const char *file = o->file != NULL ? o->file : argv[0];
    char *const *env = o->env != NULL ? o->env : environ;
    if (o->path_search)
        execvpe(file, argv, env);
    else
        execve(file, argv, env);
    _exit(127);
}

int cp_spawn(char *const *argv, const struct cp_spawn_opts *opts, struct cp_child *out,
             cp_error_t *err)
{
    static const struct cp_spawn_opts none = {0};
    const struct cp_spawn_opts *o = opts != NULL ? opts : &none;
    const char *what = what_of(o, argv);
    *out = CP_CHILD_INIT;
    struct end ends[3];
    const struct cp_stdio *how[3] = {&o->in, &o->out, &o->err};
    for (int i = 0; i < 3; i++)
        if (make_end(how[i], i == 0, &ends[i], what, err) < 0) {
            for (int k = 0; k < i; k++)
                close_end(&ends[k]);
            return cp_error_code(err);
        }
    pid_t pid = fork();
    if (pid == 0)
        become(argv, o, ends);
    int saved = errno;
    for (int i = 0; i < 3; i++)
        if (ends[i].close_child)
            close(ends[i].child);
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            if (ends[i].ours >= 0)
                close(ends[i].ours);
        return cp_error_make(err, CP_ERR_FAILED, saved, "cannot start %s", what);
    }
    *out = (struct cp_child){.pid = pid,
                             .in = ends[0].ours,
                             .out = ends[1].ours,
                             .err = ends[2].ours,
                             .stop_signal = o->stop_signal,
                             .own_group = o->new_session || o->new_group};
    return 0;
}

static int behind_actions(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, int in_fd)
{
    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    int r = posix_spawn_file_actions_adddup2(fa, in_fd, STDIN_FILENO);
    if (r == 0)
        r = posix_spawn_file_actions_addopen(fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (r == 0)
        r = posix_spawn_file_actions_adddup2(fa, STDOUT_FILENO, STDERR_FILENO);
    if (r == 0)
        r = posix_spawn_file_actions_addclosefrom_np(fa, 3);
    if (r == 0)
        r = posix_spawnattr_setflags(at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                             POSIX_SPAWN_SETSIGDEF);
    if (r == 0)
        r = posix_spawnattr_setsigmask(at, &none);
    if (r == 0)
        r = posix_spawnattr_setsigdefault(at, &all);
    return r;
}

int cp_spawn_self_behind(const char *sub, const void *input, size_t len, cp_error_t *err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot start conch-place %s", sub);
    cleanup_close int rd = p[0];
    cleanup_close int wr = p[1];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    char *argv[] = {"conch-place", (char *)sub, NULL};
    pid_t pid = 0;
    int r = behind_actions(&fa, &at, rd);
    if (r == 0)
        r = posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (r != 0)
        return cp_error_make(err, CP_ERR_FAILED, r, "cannot start conch-place %s", sub);
    close(steal_fd(&rd));
    /* A pipe holds 64 KiB; more waits for the child to read it, a moment after its start. */
    if (cp_write_all(wr, input, len) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot hand conch-place %s its work", sub);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int wait_for(struct cp_child *c, int flags, cp_error_t *err)
{
    for (;;) {
        int ws = 0;
        pid_t w = waitpid(c->pid, &ws, flags);
        if (w == c->pid) {
            c->reaped = true;
            c->wait_status = ws;
            return 1;
        }
        if (w == 0)
            return 0;
        if (errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot wait for process %ld",
                                 (long)c->pid);
    }
}

int cp_child_wait(struct cp_child *c, int *status_out, cp_error_t *err)
{
    close_fd(&c->in);
    if (!c->reaped && wait_for(c, 0, err) < 0)
        return cp_error_code(err);
    if (status_out != NULL)
        *status_out = c->wait_status;
    return 0;
}

int cp_child_try_wait(struct cp_child *c, int *status_out, cp_error_t *err)
{
    int r = c->reaped ? 1 : wait_for(c, WNOHANG, err);
    if (r == 1 && status_out != NULL)
        *status_out = c->wait_status;
    return r;
}

void cp_child_kill(struct cp_child *c, int sig)
{
    if (c->pid <= 0 || c->reaped)
        return;
    if (c->own_group)
        kill(-c->pid, sig); /* its helpers too */
    kill(c->pid, sig);
}

void cp_child_dispose(struct cp_child *c)
{
    if (c->pid == 0)
        return; /* left {0}: never started */
    int saved = errno;
    close_fd(&c->in);
    close_fd(&c->out);
    close_fd(&c->err);
    if (c->pid > 0 && !c->reaped) {
        if (c->stop_signal != 0)
            cp_child_kill(c, c->stop_signal);
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    *c = CP_CHILD_INIT;
    errno = saved;
}

int cp_wait_status_code(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    return 128 + WTERMSIG(wait_status);
}

static bool dropped(const char *entry, const char *const *drop)
{
    for (size_t i = 0; drop != NULL && drop[i] != NULL; i++)
        if (strncmp(entry, drop[i], strlen(drop[i])) == 0)
            return true;
    return false;
}

void cp_spawn_env(struct cp_strvec *out, const char *const *drop, const char *const *add)
{
    for (size_t i = 0; environ[i] != NULL; i++)
        if (!dropped(environ[i], drop))
            cp_strvec_push(out, environ[i]);
    cp_strvec_push_all(out, add);
}
