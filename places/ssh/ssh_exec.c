/* A remote command with its streams: stdout and stderr passed on separately as they arrive,
 * stdin fed from a descriptor, keepalives sent while it runs, its status or signal returned. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "places/ssh/ssh_session_int.h"
#include "src/base/buf.h"
#include "src/base/util.h"

#define EXEC_BUF 32768

int cp_ssh_sink_stdout(void *ctx, const void *buf, size_t len)
{
    return cp_write_all(STDOUT_FILENO, buf, len);
}

int cp_ssh_sink_stderr(void *ctx, const void *buf, size_t len)
{
    return cp_write_all(STDERR_FILENO, buf, len);
}

char *cp_ssh_quote_argv(char *const *argv)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, (size_t)16 * 1024 * 1024);
    for (size_t i = 0; argv[i] != NULL; i++) {
        if (i > 0)
            cp_buf_append(&b, " ", 1);
        cp_buf_append(&b, "'", 1);
        for (const char *c = argv[i]; *c != '\0'; c++) {
            if (*c == '\'')
                cp_buf_append(&b, "'\\''", 4);
            else
                cp_buf_append(&b, c, 1);
        }
        cp_buf_append(&b, "'", 1);
    }
    return cp_buf_steal(&b);
}

int cp_ssh_signal_number(const char *name)
{
    static const struct {
        const char *name;
        int number;
    } table[] = {{"ABRT", SIGABRT}, {"ALRM", SIGALRM}, {"BUS", SIGBUS},   {"FPE", SIGFPE},
                 {"HUP", SIGHUP},   {"ILL", SIGILL},   {"INT", SIGINT},   {"KILL", SIGKILL},
                 {"PIPE", SIGPIPE}, {"QUIT", SIGQUIT}, {"SEGV", SIGSEGV}, {"TERM", SIGTERM},
                 {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TRAP", SIGTRAP}, {"XCPU", SIGXCPU}};
    for (size_t i = 0; i < ARRAY_SIZE(table); i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].number;
    return 127; /* a signal with no name we know: still reported as a signal */
}

struct exec_state {
    LIBSSH2_CHANNEL *ch;
    const struct cp_ssh_io *io;
    char in[EXEC_BUF];
    size_t in_len, in_off;
    bool in_eof;
};

/* Passes on what stream (0 stdout, 1 stderr) has; 1 progress, 0 none, -1 failed. */
static int drain(struct exec_state *x, int stream)
{
    char buf[EXEC_BUF];
    ssize_t n = libssh2_channel_read_ex(x->ch, stream, buf, sizeof(buf));
    if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
        return 0;
    if (n < 0)
        return -1;
    int (*sink)(void *, const void *, size_t) = stream == 0 ? x->io->out : x->io->err;
    return sink(x->io->ctx, buf, (size_t)n) < 0 ? -1 : 1;
}

static int feed(struct exec_state *x)
{
    if (x->in_eof || x->in_off < x->in_len) {
        if (x->in_off >= x->in_len)
            return 0;
        ssize_t w = libssh2_channel_write(x->ch, x->in + x->in_off, x->in_len - x->in_off);
        if (w == LIBSSH2_ERROR_EAGAIN)
            return 0;
        if (w < 0)
            return -1;
        x->in_off += (size_t)w;
        return 1;
    }
    struct pollfd p = {.fd = x->io->in_fd, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0)
        return 0;
    ssize_t n = read(x->io->in_fd, x->in, sizeof(x->in));
    if (n < 0 && errno != EINTR && errno != EAGAIN)
        return -1;
    if (n == 0) {
        x->in_eof = true;
        while (libssh2_channel_send_eof(x->ch) == LIBSSH2_ERROR_EAGAIN)
            ;
    }
    x->in_len = n > 0 ? (size_t)n : 0;
    x->in_off = 0;
    return n > 0;
}

static void wait_socket(struct cp_ssh_session *s, const struct exec_state *x)
{
    int dirs = libssh2_session_block_directions(s->lib);
    struct pollfd fds[3] = {
        {.fd = s->fd, .events = POLLIN},
        {.fd = -1, .events = POLLIN},
        {.fd = x->io->stop_fd != NULL ? *x->io->stop_fd : -1, .events = POLLIN},
    };
    if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
        fds[0].events |= POLLOUT;
    if (x->io->in_fd >= 0 && !x->in_eof && x->in_off >= x->in_len)
        fds[1].fd = x->io->in_fd;
    int next = 1;
    if (s->alive_interval > 0)
        libssh2_keepalive_send(s->lib, &next);
    /* libssh2 may hold a whole packet it has read (the exit status, the end) without the
     * socket showing more: a short wait keeps that from costing a second. */
    (void)next;
    poll(fds, 3, 50);
}

static bool stop_asked(const struct cp_ssh_io *io)
{
    if (io->stop_fd == NULL || *io->stop_fd < 0)
        return false;
    struct pollfd p = {.fd = *io->stop_fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

static int pump_streams(struct cp_ssh_session *s, struct exec_state *x, cp_error_t *err)
{
    libssh2_session_set_blocking(s->lib, 0);
    while (!libssh2_channel_eof(x->ch)) {
        if (stop_asked(x->io)) {
            libssh2_session_set_blocking(s->lib, 1);
            if (x->io->on_stop != NULL)
                x->io->on_stop(x->io->stop_ctx);
            /* The far side closes once its command has ended; not waited for past this. */
            libssh2_session_set_timeout(s->lib, 5000);
            return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "stopped");
        }
        int a = drain(x, 0), b = drain(x, SSH_EXTENDED_DATA_STDERR);
        int c = x->io->in_fd >= 0 ? feed(x) : 0;
        if (a < 0 || b < 0 || c < 0)
            return cp_ssh_lib_error(s->lib, CP_ERR_UNREACHABLE, err,
                                    "the connection broke while the command ran");
        if (a == 0 && b == 0 && c == 0)
            wait_socket(s, x);
    }
    while (drain(x, 0) > 0 || drain(x, SSH_EXTENDED_DATA_STDERR) > 0)
        ;
    libssh2_session_set_blocking(s->lib, 1);
    return 0;
}

int cp_ssh_channel_status(LIBSSH2_CHANNEL *ch)
{
    char *sig = NULL;
    size_t sig_len = 0;
    libssh2_channel_get_exit_signal(ch, &sig, &sig_len, NULL, NULL, NULL, NULL);
    if (sig != NULL) {
        int number = cp_ssh_signal_number(sig);
        free(sig);
        return 128 + number;
    }
    return libssh2_channel_get_exit_status(ch);
}

int cp_ssh_exec(struct cp_ssh_session *s, const char *command, const struct cp_ssh_io *io,
                int *status_out, cp_error_t *err)
{
    cleanup_libssh2_channel LIBSSH2_CHANNEL *ch = cp_ssh_channel_exec(s, command, err);
    if (ch == NULL)
        return cp_error_code(err);
    if (io->in_fd < 0 && !io->hold_stdin)
        libssh2_channel_send_eof(ch);
    struct exec_state *x = xcalloc(1, sizeof(*x));
    x->ch = ch;
    x->io = io;
    int r = pump_streams(s, x, err);
    free(x);
    if (r < 0)
        return r;
    libssh2_channel_close(ch);
    libssh2_channel_wait_closed(ch);
    *status_out = cp_ssh_channel_status(ch);
    return 0;
}
