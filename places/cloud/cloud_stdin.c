/* -i for the cloud place (issue 9). Daytona's toolbox has a route for a session command's
 * standard input (POST .../command/{cid}/input, body {"data": string}), but it carries JSON
 * text only: bytes that are not UTF-8 are replaced on the way (Go's decoder), and it has no
 * way to say end-of-file, so `cat` would never end. Its logs route answers the whole output
 * each time (quadratic, and bounded at 64 MB here). So both directions go through the files
 * API in bounded chunks, as research/daytona-api.md allows:
 *   in:  each chunk of standard input (at most CHUNK_IN bytes) is uploaded as in.N.part and
 *        renamed to in.N; a feeder there cats in.0, in.1, ... into the command, removing each,
 *        and ends at in.end. At most MAX_PENDING chunks wait there: memory and disk bounded.
 *   out: the command's standard output goes through `split` into out.aaaaaa, out.aaaaab, ...
 *        of CHUNK_OUT bytes; a chunk is whole once a later one exists or the command ended
 *        (its status written after split closed). Each whole chunk is downloaded straight to
 *        our standard output and removed there.
 *   err: standard error stays in the session's logs (polled, as without -i).
 * One execute per tick renames, marks the end, removes what was fetched and lists the rest. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "places/cloud/cloud_stdin.h"
#include "src/base/shell.h"
#include "src/base/signals.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define CHUNK_IN    (4L * 1024 * 1024)
#define CHUNK_OUT   (8L * 1024 * 1024)
#define MAX_PENDING 3
#define ERR_MAX     (64 * 1024 * 1024)

static const char far_script[] =
    "d=$1; r=$2; shift 2; mkdir -p \"$d\" && cd \"$r\" 2>/dev/null || exit 125\n"
    "cp_feed() { i=0; while :; do\n"
    "  if [ -e \"$d/in.$i\" ]; then cat \"$d/in.$i\"; rm -f \"$d/in.$i\"; i=$((i + 1));\n"
    "  elif [ -e \"$d/in.end\" ]; then return 0; else sleep 0.05; fi; done; }\n"
    "{ cp_feed | \"$@\"; echo $? >\"$d/status.part\"; } | (cd \"$d\" && split -b %ld -a 6 - "
    "out.)\n"
    "mv \"$d/status.part\" \"$d/status\"; exit \"$(cat \"$d/status\")\"\n";

struct stream {
    struct cp_toolbox *tb;
    const struct cp_far_exec *x; /* the run's: its lease renewed while the command runs */
    time_t renewed;
    const char *io, *sid;
    char *cid;
    int in_fd, out_fd, err_fd;
    int spool;
    long spool_len;
    unsigned next_in;
    int pending_part; /* in.N.part to rename at the next tick, or -1 */
    bool in_eof, end_sent;
    int far_pending;       /* in.N chunks the last listing showed */
    struct cp_buf fetched; /* out.X names to remove at the next tick, one a line */
    struct cp_buf errb;
    size_t err_done;
};

static char *start_command(const char *io, const char *root, char *const *argv)
{
    cleanup_free char *script = xasprintf(far_script, CHUNK_OUT);
    cleanup_strvec struct cp_strvec args = {0};
    cp_strvec_push(&args, io);
    cp_strvec_push(&args, root);
    cp_strvec_push_all(&args, (const char *const *)argv);
    return cp_shell_command("sh", script, "conch-run", (const char *const *)args.v);
}

/* Takes what standard input has now, without waiting; uploads a chunk when it is full, at
 * the end, or when input paused with something gathered. */
static int take_input(struct stream *s, cp_error_t *err)
{
    if (s->in_eof || s->pending_part >= 0 || s->far_pending >= MAX_PENDING)
        return 0;
    char buf[64 * 1024];
    bool paused = false;
    while (s->spool_len < CHUNK_IN) {
        struct pollfd p = {.fd = s->in_fd, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0) {
            paused = true;
            break;
        }
        long room = CHUNK_IN - s->spool_len;
        ssize_t n = read(s->in_fd, buf, room < (long)sizeof(buf) ? (size_t)room : sizeof(buf));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            break;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read standard input");
        if (n == 0) {
            s->in_eof = true;
            break;
        }
        if (cp_write_all(s->spool, buf, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot spool standard input");
        s->spool_len += n;
    }
    if (s->spool_len == 0 || !(s->spool_len >= CHUNK_IN || s->in_eof || paused))
        return 0;
    cleanup_free char *part = xasprintf("%s/in.%u.part", s->io, s->next_in);
    if (cp_toolbox_upload(s->tb, part, s->spool, err) < 0)
        return cp_error_wrap(err, "sending standard input");
    if (ftruncate(s->spool, 0) < 0 || lseek(s->spool, 0, SEEK_SET) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot reuse the input spool");
    s->spool_len = 0;
    s->pending_part = (int)s->next_in++;
    return 1;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One execute: rename, mark the end, remove the fetched chunks, list what is there. */
static int tick(struct stream *s, struct cp_strvec *outs, int *status, cp_error_t *err)
{
    bool end_now = s->in_eof && s->spool_len == 0 && !s->end_sent;
    cleanup_free char *qio = cp_shell_quoted(s->io);
    cleanup_free char *mv = s->pending_part >= 0 ? xasprintf("mv -f in.%d.part in.%d; ",
                                                             s->pending_part, s->pending_part)
                                                 : xstrdup("");
    cp_buf_append(&s->fetched, "", 1);
    /* The folder is made here too: a first tick may come before the command's script made it,
     * and an end marked nowhere left the command's input open for ever (-i </dev/null hung). */
    cleanup_free char *cmd = xasprintf(
        "mkdir -p %s 2>/dev/null; cd %s 2>/dev/null || exit 0; %s%srm -f %s; for f in *; do case "
        "$f in out.* | in.[0-9]*) case $f in *.part) ;; *) echo \"$f\" ;; esac ;; esac; done; "
        "[ -f status ] && echo \"status $(cat status)\"; exit 0",
        qio, qio, mv, end_now ? ": >in.end; " : "", s->fetched.data ? s->fetched.data : "");
    int st = 0;
    cleanup_free char *res = NULL;
    if (cp_toolbox_execute(s->tb, cmd, 60, &st, &res, err) < 0)
        return cp_error_wrap(err, "following the command's streams");
    cp_buf_consume(&s->fetched, s->fetched.len);
    s->pending_part = -1;
    if (end_now)
        s->end_sent = true;
    *status = -1;
    s->far_pending = 0;
    for (char *line = strtok(res, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        long v = 0;
        if (strncmp(line, "status ", 7) == 0 && cp_parse_long(line + 7, 0, 255, &v) == 0)
            *status = (int)v;
        else if (strncmp(line, "in.", 3) == 0)
            s->far_pending++;
        else if (strncmp(line, "out.", 4) == 0 &&
                 strspn(line + 4, "abcdefghijklmnopqrstuvwxyz") == 6 && line[10] == '\0') {
            cp_strvec_push(outs, line);
        }
    }
    if (outs->n > 1)
        qsort(outs->v, outs->n, sizeof(*outs->v), name_cmp);
    return 0;
}

/* Downloads the whole chunks to standard output; the last one waits for the end. */
static int fetch_outputs(struct stream *s, char **outs, size_t n, bool ended, int *moved,
                         cp_error_t *err)
{
    *moved = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 == n && !ended)
            break;
        cleanup_free char *path = xasprintf("%s/%s", s->io, outs[i]);
        if (cp_toolbox_download(s->tb, path, s->out_fd, (size_t)CHUNK_OUT, err) < 0)
            return cp_error_wrap(err, "bringing the command's output");
        cp_buf_append(&s->fetched, outs[i], strlen(outs[i]));
        cp_buf_append(&s->fetched, " ", 1);
        (*moved)++;
    }
    return 0;
}

static int pass_errors(struct stream *s, cp_error_t *err)
{
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, ERR_MAX);
    if (cp_toolbox_command_logs(s->tb, s->sid, s->cid, &out, &s->errb, err) < 0)
        return cp_error_code(err);
    if (s->errb.len > s->err_done &&
        cp_write_all(s->err_fd, s->errb.data + s->err_done, s->errb.len - s->err_done) == 0)
        s->err_done = s->errb.len;
    return 0;
}

static int pump(struct stream *s, int *status_out, cp_error_t *err)
{
    long pause = 20;
    for (;;) {
        if (cp_signals_caught() != 0)
            return CP_ERR_INTERRUPTED;
        if (time(NULL) - s->renewed >= 30) { /* the copy's lease outlives a long command */
            s->renewed = time(NULL);
            if (cp_far_lock_renew(s->x->lock, err) < 0)
                return cp_error_code(err);
        }
        int sent = take_input(s, err);
        if (sent < 0)
            return sent;
        cleanup_strvec struct cp_strvec outs = {0};
        int status = -1, moved = 0;
        int rc = tick(s, &outs, &status, err);
        if (rc == 0)
            rc = fetch_outputs(s, outs.v, outs.n, status >= 0, &moved, err);
        if (rc == 0)
            rc = pass_errors(s, err);
        if (rc < 0)
            return rc;
        if (status >= 0 && moved == (int)outs.n) {
            *status_out = status;
            return 0;
        }
        if (sent == 0 && moved == 0) {
            struct timespec ts = {0, pause * 1000000L};
            nanosleep(&ts, NULL);
            pause = pause * 2 > 200 ? 200 : pause * 2;
        } else {
            pause = 20;
        }
    }
}

int cp_cloud_run_streamed(struct cp_toolbox *tb, const char *sid, const char *io,
                          const struct cp_far_exec *x, int in_fd, int out_fd, int err_fd,
                          int *status_out, cp_error_t *err)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    struct stream s = {.tb = tb,
                       .x = x,
                       .renewed = time(NULL),
                       .io = io,
                       .sid = sid,
                       .in_fd = in_fd,
                       .out_fd = out_fd,
                       .err_fd = err_fd,
                       .pending_part = -1};
    s.spool = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (s.spool < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a spool file in %s", dir);
    cp_buf_init(&s.fetched, 1024 * 1024);
    cp_buf_init(&s.errb, ERR_MAX);
    cp_signals_install();
    cleanup_free char *cmd = start_command(io, x->far_root, x->argv);
    int rc = cp_toolbox_session_exec(tb, sid, cmd, &s.cid, err);
    if (rc == 0)
        rc = pump(&s, status_out, err);
    close(s.spool);
    free(s.cid);
    cp_buf_dispose(&s.fetched);
    cp_buf_dispose(&s.errb);
    return rc;
}
