/* The mirror's transport over an SSH session (mirror-transport.h): each far script runs on its
 * own channel. libssh2 counts standard error against the same window as standard output, so error
 * output is drained into a bounded buffer while output is read: a far side that fills standard
 * error cannot stall the stream the mirror is reading. A far side that stops answering is
 * given up after an idle time, never waited for without end. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "mirror/mirror.h"
#include "places/ssh/exec.h"
#include "places/ssh/mirror-transport.h"
#include "places/ssh/pump.h"
#include "places/ssh/session.h"
#include "src/base/buf.h"
#include "src/base/shell.h"
#include "src/base/util.h"

#define ERR_KEEP (64 * 1024)

struct ssh_transport {
    struct cp_transport base; /* first, so the handle converts both ways */
    struct cp_ssh_session *s; /* borrowed */
};

struct ssh_proc {
    struct cp_far_proc base;
    struct cp_ssh_session *s;
    LIBSSH2_CHANNEL *ch;
    struct cp_buf errb; /* standard error, kept up to ERR_KEEP; the rest dropped */
    size_t err_off;
    bool closed, waited;
    int status;
};

static const struct cp_transport_ops ssh_transport_ops;

static long idle_limit(const struct cp_ssh_session *s)
{
    if (s->alive_interval > 0)
        return s->alive_interval * 4;
    return CP_SSH_IDLE_TIMEOUT;
}

/* Waits until the socket can move in the direction libssh2 is blocked on (pump.h): 0, or -1
 * once nothing moved for the idle limit, -2 when the session's stop_fd became readable (a
 * signal, or the keeper's client asking to stop or gone). */
static int wait_socket(struct cp_ssh_session *s, time_t *last_progress)
{
    struct pollfd stop = {.fd = s->stop_fd, .events = POLLIN};
    int r = ssh_pump_poll(s, true, &stop, 1, 50);
    if (stop.revents != 0)
        return -2;
    if (r == 0 && time(NULL) - *last_progress < 1)
        return 0;
    time_t now = time(NULL);
    if (r > 0) {
        *last_progress = now;
        return 0;
    }
    return now - *last_progress > idle_limit(s) ? -1 : 0;
}

static int idle_error(struct ssh_proc *r, int why, cp_error_t *err)
{
    if (why == -2)
        return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "stopped");
    return cp_error_make(err, CP_ERR_TIMEOUT, 0, "%s sent nothing for %ld s", r->s->alias,
                         idle_limit(r->s));
}

/* Moves what standard error holds into the buffer; -1 on a broken connection. */
static int drain_stderr(struct ssh_proc *r)
{
    char buf[16384];
    for (;;) {
        ssize_t n = libssh2_channel_read_ex(r->ch, SSH_EXTENDED_DATA_STDERR, buf, sizeof(buf));
        if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
            return 0;
        if (n < 0)
            return -1;
        size_t room = r->errb.len < ERR_KEEP ? ERR_KEEP - r->errb.len : 0;
        cp_buf_append(&r->errb, buf, (size_t)n < room ? (size_t)n : room);
    }
}

static int broken(struct ssh_proc *r, cp_error_t *err, const char *what)
{
    return cp_ssh_lib_error(r->s->lib, CP_ERR_UNREACHABLE, err, what);
}

static int ssh_start(struct cp_transport *base, const char *script, const char *const *argv,
                     struct cp_far_proc **out, cp_error_t *err)
{
    struct ssh_transport *t = (struct ssh_transport *)base;
    cleanup_free char *command = cp_shell_command("exec /bin/sh", script, "conch-mirror", argv);
    LIBSSH2_CHANNEL *ch = cp_ssh_channel_exec(t->s, command, err);
    if (ch == NULL)
        return cp_error_code(err);
    struct ssh_proc *r = xcalloc(1, sizeof(*r));
    r->base.ops = &ssh_transport_ops;
    r->s = t->s;
    r->ch = ch;
    cp_buf_init(&r->errb, ERR_KEEP + 1);
    *out = &r->base;
    return 0;
}

static int ssh_write(struct cp_far_proc *base, const void *buf, size_t len, cp_error_t *err)
{
    struct ssh_proc *r = (struct ssh_proc *)base;
    const char *p = buf;
    time_t last = time(NULL);
    libssh2_session_set_blocking(r->s->lib, 0);
    int rc = 0;
    while (len > 0 && rc == 0) {
        ssize_t w = libssh2_channel_write(r->ch, p, len);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
            last = time(NULL);
        } else if (w != LIBSSH2_ERROR_EAGAIN && w != 0) {
            rc = broken(r, err, "the connection broke while sending");
        } else if (drain_stderr(r) < 0) {
            rc = broken(r, err, "the connection broke while sending");
        } else if ((w = wait_socket(r->s, &last)) < 0) {
            rc = idle_error(r, (int)w, err);
        }
    }
    libssh2_session_set_blocking(r->s->lib, 1);
    return rc;
}

static int ssh_close_stdin(struct cp_far_proc *base, cp_error_t *err)
{
    struct ssh_proc *r = (struct ssh_proc *)base;
    if (r->closed)
        return 0;
    r->closed = true;
    /* The run lets go (the far lock's release): on a kept session the channel's close, sent
     * once the run answered, ends the far script's input; nothing is asked of the far side
     * before that answer. */
    if (r->s->defer_closes && r->s->run_closing)
        return 0;
    if (libssh2_channel_send_eof(r->ch) != 0)
        return broken(r, err, "the connection broke");
    return 0;
}

static ssize_t ssh_read_stdout(struct cp_far_proc *base, void *buf, size_t len, cp_error_t *err)
{
    struct ssh_proc *r = (struct ssh_proc *)base;
    time_t last = time(NULL);
    libssh2_session_set_blocking(r->s->lib, 0);
    ssize_t got = 0, w;
    for (;;) {
        ssize_t n = libssh2_channel_read(r->ch, buf, len);
        if (n > 0 || (n == 0 && libssh2_channel_eof(r->ch))) {
            got = n;
            break;
        }
        if ((n < 0 && n != LIBSSH2_ERROR_EAGAIN) || drain_stderr(r) < 0) {
            got = broken(r, err, "the connection broke while receiving");
            break;
        }
        if ((w = wait_socket(r->s, &last)) < 0) {
            got = idle_error(r, (int)w, err);
            break;
        }
    }
    libssh2_session_set_blocking(r->s->lib, 1);
    return got;
}

/* Standard error, once standard output has ended: what the buffer kept, then the rest. */
static ssize_t ssh_read_stderr(struct cp_far_proc *base, void *buf, size_t len, cp_error_t *err)
{
    struct ssh_proc *r = (struct ssh_proc *)base;
    if (r->err_off < r->errb.len) {
        size_t n = r->errb.len - r->err_off < len ? r->errb.len - r->err_off : len;
        memcpy(buf, r->errb.data + r->err_off, n);
        r->err_off += n;
        return (ssize_t)n;
    }
    time_t last = time(NULL);
    libssh2_session_set_blocking(r->s->lib, 0);
    ssize_t got = 0, w;
    for (;;) {
        ssize_t n = libssh2_channel_read_stderr(r->ch, buf, len);
        if (n > 0 || (n == 0 && libssh2_channel_eof(r->ch))) {
            got = n;
            break;
        }
        char sink[16384]; /* output nobody reads any more must not hold the window */
        ssize_t o = libssh2_channel_read(r->ch, sink, sizeof(sink));
        if (o > 0)
            continue;
        if ((n < 0 && n != LIBSSH2_ERROR_EAGAIN) || (o < 0 && o != LIBSSH2_ERROR_EAGAIN)) {
            got = broken(r, err, "the connection broke while receiving");
            break;
        }
        if ((w = wait_socket(r->s, &last)) < 0) {
            got = idle_error(r, (int)w, err);
            break;
        }
    }
    libssh2_session_set_blocking(r->s->lib, 1);
    return got;
}

static int ssh_wait(struct cp_far_proc *base, int *status_out, cp_error_t *err)
{
    struct ssh_proc *r = (struct ssh_proc *)base;
    char sink[16384];
    time_t last = time(NULL);
    libssh2_session_set_blocking(r->s->lib, 0);
    int rc = 0;
    ssize_t w;
    while (!r->waited && rc == 0) {
        ssize_t o = libssh2_channel_read(r->ch, sink, sizeof(sink));
        if (drain_stderr(r) < 0 || (o < 0 && o != LIBSSH2_ERROR_EAGAIN))
            rc = broken(r, err, "the connection broke");
        else if (o > 0)
            continue;
        else if (libssh2_channel_eof(r->ch) && libssh2_channel_wait_closed(r->ch) == 0)
            r->waited = true; /* its close, ours then: our close is let go (proc_free) */
        else if ((w = wait_socket(r->s, &last)) < 0)
            rc = idle_error(r, (int)w, err);
    }
    libssh2_session_set_blocking(r->s->lib, 1);
    if (rc < 0)
        return rc;
    r->status = cp_ssh_channel_status(r->ch);
    *status_out = r->status;
    return 0;
}

static void ssh_proc_free(struct cp_far_proc *base)
{
    struct ssh_proc *r = (struct ssh_proc *)base;
    /* A far script not waited for (the lock's holder) sees its input end; the channel is let
     * go, closed after the run on a kept session (exec.h). */
    libssh2_session_set_blocking(r->s->lib, 1);
    if (!r->waited && !r->closed)
        libssh2_channel_send_eof(r->ch);
    cp_ssh_channel_let_go(r->s, r->ch);
    cp_buf_dispose(&r->errb);
    free(r);
}

static void ssh_transport_free(struct cp_transport *t)
{
    free(t);
}

/* The far lock's shell sees its input end; never waited for long. */
static void ssh_closing(struct cp_transport *base)
{
    struct ssh_transport *t = (struct ssh_transport *)base;
    t->s->run_closing = true;
    libssh2_session_set_timeout(t->s->lib, 3000);
}

static const struct cp_transport_ops ssh_transport_ops = {
    .start = ssh_start,
    .write_stdin = ssh_write,
    .close_stdin = ssh_close_stdin,
    .read_stdout = ssh_read_stdout,
    .read_stderr = ssh_read_stderr,
    .wait = ssh_wait,
    .proc_free = ssh_proc_free,
    .free = ssh_transport_free,
    .closing = ssh_closing,
};

int cp_ssh_transport_new(struct cp_ssh_session *s, struct cp_transport **out, cp_error_t *err)
{
    struct ssh_transport *t = xcalloc(1, sizeof(*t));
    t->base.ops = &ssh_transport_ops;
    t->s = s;
    s->run_closing = false;
    *out = &t->base;
    return 0;
}
