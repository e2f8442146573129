/* The Daytona transport. The mirror writes all of standard input, closes it, then reads
 * standard output, then standard error (mirror/transport.h), so one batch serves: spool the
 * input here, upload it, run the script once with its streams in files, download them.
 * Requests are what a far run costs (each is a round trip to Daytona's proxy): a stream the
 * script left empty is not downloaded (the execute's answer gives both sizes), and a script's
 * folder of stream files is removed by the next execute, the last one's when the run ends.
 * A script that wrote nothing removes its own folder. A run with nothing changed went from 20
 * requests to 13, one with a file each way from 30 to 19 (tests/cloud/cloud.test counts them). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "places/cloud/transport-daytona.h"
#include "src/base/shell.h"
#include "src/base/strvec.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define STDIN_MAX  (1200ULL * 1024 * 1024) /* the mirror's 1 GB, with its archive overhead */
#define STDOUT_MAX (600UL * 1024 * 1024)   /* the 512 MB that may come back, with overhead */
#define STDERR_MAX (1024UL * 1024)
#define SIZES_TAG  "conch-sizes"

struct dt_transport {
    struct cp_transport base; /* first: the handle converts both ways */
    struct cp_toolbox *tb;
    char *io_dir;
    char *guard;  /* shell text run before each script (the lease's renewal), or NULL */
    bool closing; /* the run is ending: its last scripts (the lease's release) run anyway */
    unsigned seq;
    struct cp_strvec spent; /* finished scripts' folders, removed by the next execute */
};

struct dt_proc {
    struct cp_far_proc base;
    struct dt_transport *t;
    char *command; /* `sh -c SCRIPT conch-mirror ARGS...`, quoted */
    char *io;      /* this command's folder of stream files */
    int in_fd, out_fd, err_fd;
    unsigned long long in_len;
    int ran, status;
    long long out_len, err_len; /* the sizes the execute's answer gave; -1 unknown */
};

static const struct cp_transport_ops dt_ops;

static int spool(int *fd_out, cp_error_t *err)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a spool file in %s", dir);
    *fd_out = fd;
    return 0;
}

static int dt_start(struct cp_transport *base, const char *script, const char *const *argv,
                    struct cp_far_proc **out, cp_error_t *err)
{
    struct dt_transport *t = (struct dt_transport *)base;
    struct dt_proc *r = xcalloc(1, sizeof(*r));
    r->base.ops = &dt_ops;
    r->t = t;
    r->in_fd = r->out_fd = r->err_fd = -1;
    r->out_len = r->err_len = -1;
    r->command = cp_shell_command("sh", script, "conch-mirror", argv);
    r->io = xasprintf("%s/%ld-%u", t->io_dir, (long)getpid(), t->seq++);
    if (spool(&r->in_fd, err) < 0 || spool(&r->out_fd, err) < 0 || spool(&r->err_fd, err) < 0) {
        dt_ops.proc_free(&r->base);
        return cp_error_code(err);
    }
    *out = &r->base;
    return 0;
}

static int dt_write(struct cp_far_proc *base, const void *buf, size_t len, cp_error_t *err)
{
    struct dt_proc *r = (struct dt_proc *)base;
    if (r->ran || r->in_len + len > STDIN_MAX)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "more input than the far side takes");
    if (cp_write_all(r->in_fd, buf, len) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot spool the far side's input");
    r->in_len += len;
    return 0;
}

/* "rm -rf 'A' 'B'; " for the folders of scripts already read, or "". */
static char *remove_spent(struct dt_transport *t)
{
    char *out = xstrdup(t->spent.n > 0 ? "rm -rf" : "");
    for (size_t i = 0; i < t->spent.n; i++) {
        cleanup_free char *q = cp_shell_quoted(t->spent.v[i]);
        cleanup_free char *was = out;
        out = xasprintf("%s %s%s", was, q, i + 1 == t->spent.n ? "; " : "");
    }
    return out;
}

/* The script with its streams in files, then one line with their sizes on the wrapper's own
 * output (the execute's answer), and the script's status. A script that wrote nothing leaves
 * nothing to download, so its folder goes at once: the run's end needs no request of its own
 * to remove the last one (the lease's release writes nothing). */
static char *far_command(struct dt_proc *r)
{
    cleanup_free char *io = cp_shell_quoted(r->io);
    cleanup_free char *spent = remove_spent(r->t);
    const char *in = r->in_len > 0 ? "\"$d/in\"" : "/dev/null";
    cleanup_free char *inner = xasprintf(
        "%s%sd=%s; mkdir -p \"$d\" || exit 120; %s <%s >\"$d/out\" 2>\"$d/err\"; s=$?; "
        "o=$(wc -c <\"$d/out\"); e=$(wc -c <\"$d/err\"); [ $((o + e)) -gt 0 ] || rm -rf \"$d\"; "
        "printf '\\n" SIZES_TAG " %%s %%s\\n' $o $e; exit $s",
        r->t->guard ? r->t->guard : "", spent, io, r->command, in);
    return cp_shell_command("sh", inner, NULL, NULL);
}

/* A sandbox that lies here loses only its own output, which is checked like any other. */
void cp_daytona_stream_sizes(const char *result, long long *out, long long *err)
{
    *out = *err = -1;
    const char *tag = NULL;
    for (const char *p = result; p != NULL && (p = strstr(p, SIZES_TAG " ")) != NULL; p++)
        tag = p;
    long long o = -1, e = -1;
    char end = 0;
    if (tag != NULL && sscanf(tag, SIZES_TAG " %lld %lld%c", &o, &e, &end) == 3 && end == '\n' &&
        o >= 0 && e >= 0) {
        *out = o;
        *err = e;
    }
}

static int fetch(struct dt_proc *r, const char *name, int fd, size_t max, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("%s/%s", r->io, name);
    if (cp_toolbox_download(r->t->tb, path, fd, max, err) < 0)
        return cp_error_code(err);
    if (lseek(fd, 0, SEEK_SET) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot rewind a spool file");
    return 0;
}

/* The one round trip: input up, the script run, its output down. */
static int run_once(struct dt_proc *r, cp_error_t *err)
{
    if (r->ran)
        return 0;
    r->ran = 1;
    /* A signal ends the mirror at the next request: nothing lands half-way, the lease ends. */
    if (cp_signals_caught() != 0 && !r->t->closing)
        return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "stopped");
    if (r->in_len > 0) {
        cleanup_free char *in = xasprintf("%s/in", r->io);
        if (cp_toolbox_upload(r->t->tb, in, r->in_fd, err) < 0)
            return cp_error_wrap(err, "sending the mirror's input");
    }
    cleanup_free char *cmd = far_command(r);
    cleanup_free char *result = NULL;
    /* The folders named in it are removed there, or not: a run's last removal tries again. */
    if (cp_toolbox_execute(r->t->tb, cmd, 0, &r->status, &result, err) < 0)
        return cp_error_wrap(err, "running the mirror's far side");
    if (r->status != 120)
        cp_strvec_dispose(&r->t->spent);
    if (r->status == 120)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot make %s in the sandbox", r->io);
    cp_daytona_stream_sizes(result, &r->out_len, &r->err_len);
    if ((r->out_len != 0 && fetch(r, "out", r->out_fd, STDOUT_MAX, err) < 0) ||
        (r->err_len != 0 && fetch(r, "err", r->err_fd, STDERR_MAX, err) < 0))
        return cp_error_wrap(err, "bringing the far side's output back");
    return 0;
}

static int dt_close_stdin(struct cp_far_proc *base, cp_error_t *err)
{
    return run_once((struct dt_proc *)base, err);
}

static ssize_t read_spool(int fd, void *buf, size_t len, cp_error_t *err)
{
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0)
            return n;
        if (errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read a spool file");
    }
}

static ssize_t dt_read_stdout(struct cp_far_proc *base, void *buf, size_t len, cp_error_t *err)
{
    struct dt_proc *r = (struct dt_proc *)base;
    if (run_once(r, err) < 0)
        return cp_error_code(err);
    return read_spool(r->out_fd, buf, len, err);
}

static ssize_t dt_read_stderr(struct cp_far_proc *base, void *buf, size_t len, cp_error_t *err)
{
    struct dt_proc *r = (struct dt_proc *)base;
    if (run_once(r, err) < 0)
        return cp_error_code(err);
    return read_spool(r->err_fd, buf, len, err);
}

static int dt_wait(struct cp_far_proc *base, int *status_out, cp_error_t *err)
{
    struct dt_proc *r = (struct dt_proc *)base;
    if (run_once(r, err) < 0)
        return cp_error_code(err);
    *status_out = r->status;
    return 0;
}

static void dt_proc_free(struct cp_far_proc *base)
{
    struct dt_proc *r = (struct dt_proc *)base;
    /* Removed by the next execute, or when the run ends; one that wrote nothing is gone. */
    if (r->ran && (r->out_len != 0 || r->err_len != 0))
        cp_strvec_push(&r->t->spent, r->io);
    cp_cleanup_closep(&r->in_fd);
    cp_cleanup_closep(&r->out_fd);
    cp_cleanup_closep(&r->err_fd);
    free(r->command);
    free(r->io);
    free(r);
}

static void dt_free(struct cp_transport *base)
{
    struct dt_transport *t = (struct dt_transport *)base;
    if (t->spent.n > 0) {
        cleanup_error cp_error_t cerr = NULL;
        cleanup_free char *rm = remove_spent(t);
        int st = 0;
        cp_toolbox_execute(t->tb, rm, 60, &st, NULL, &cerr);
    }
    cp_strvec_dispose(&t->spent);
    free(t->io_dir);
    free(t->guard);
    free(t);
}

static void dt_guard(struct cp_transport *base, const char *guard)
{
    struct dt_transport *t = (struct dt_transport *)base;
    free(t->guard);
    t->guard = guard != NULL ? xstrdup(guard) : NULL;
}

static void dt_closing(struct cp_transport *base)
{
    ((struct dt_transport *)base)->closing = true;
}

static const struct cp_transport_ops dt_ops = {
    .batch = true, /* one execute per far script */
    .start = dt_start,
    .write_stdin = dt_write,
    .close_stdin = dt_close_stdin,
    .read_stdout = dt_read_stdout,
    .read_stderr = dt_read_stderr,
    .wait = dt_wait,
    .proc_free = dt_proc_free,
    .free = dt_free,
    .guard = dt_guard,
    .closing = dt_closing,
};

int cp_transport_daytona_new(struct cp_toolbox *tb, const char *io_dir, struct cp_transport **out,
                             cp_error_t *err)
{
    (void)err;
    struct dt_transport *t = xcalloc(1, sizeof(*t));
    t->base.ops = &dt_ops;
    t->tb = tb;
    t->io_dir = xstrdup(io_dir);
    *out = &t->base;
    return 0;
}
