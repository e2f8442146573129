/* The locks and words every remote place shares (mirror/remote-lock.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "mirror/far.h"
#include "mirror/remote-lock.h"
#include "src/base/buf.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define LOCK_ANSWER_MAX (256u * 1024 * 1024)
#define LOCK_WAIT_S     (30 * 60) /* a copy busy longer than this: give up, say so */

/* Sleeps ms, or less when stop_fd becomes readable: then CP_ERR_INTERRUPTED. */
static int pause_or_stop(int stop_fd, int ms, cp_error_t *err)
{
    if (stop_fd < 0)
        stop_fd = cp_signals_install();
    struct pollfd p = {.fd = stop_fd, .events = POLLIN};
    if (poll(&p, 1, ms) > 0 || cp_signals_caught() != 0)
        return cp_error_make(err, CP_ERR_INTERRUPTED, 0, "stopped while waiting for the copy");
    return 0;
}

int cp_remote_lock_here(const char *manifest_path, const char *place, int stop_fd, int *fd_out,
                        cp_error_t *err)
{
    cleanup_free char *path = xasprintf("%s.lock", manifest_path);
    cleanup_close int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    for (int waited_ms = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited_ms += 200) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot lock %s", path);
        if (waited_ms == 0)
            cp_say("another command of this computer runs in this chat's copy on %s; waiting "
                   "for it to end",
                   place);
        if (waited_ms >= LOCK_WAIT_S * 1000) {
            cp_error_make(err, CP_ERR_DENIED, 0,
                          "another command runs in this chat's copy on %s since %d minutes", place,
                          LOCK_WAIT_S / 60);
            cp_error_hint(err, "One command at a time per copy: wait for it to end, or give "
                               "this one another --chat.");
            return CP_ERR_DENIED;
        }
        if (pause_or_stop(stop_fd, 200, err) < 0)
            return cp_error_code(err);
    }
    *fd_out = steal_fd(&fd);
    return 0;
}

static char *new_token(void)
{
    unsigned char raw[8] = {0};
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        abort();
    char *hex = xcalloc(17, 1);
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    return hex;
}

/* Reads until b holds at least want bytes; CP_ERR_UNSAFE when the stream ends first. */
static int read_to(struct cp_far_proc *r, struct cp_buf *b, size_t want, cp_error_t *err)
{
    char chunk[64 * 1024];
    while (b->len < want) {
        size_t ask = want - b->len < sizeof(chunk) ? want - b->len : sizeof(chunk);
        ssize_t n = cp_far_proc_read(r, chunk, ask, err);
        if (n < 0)
            return cp_error_code(err);
        if (n == 0)
            return cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side's answer was cut short");
        if (cp_buf_append(b, chunk, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the copy's listing is too long");
    }
    return 0;
}

/* Reads one line into b from off (a byte at a time: nothing past it is taken from a stream
 * that stays open); *end the offset past its newline. */
static int read_line(struct cp_far_proc *r, struct cp_buf *b, size_t off, size_t *end, bool eof_ok,
                     cp_error_t *err)
{
    for (;;) {
        const char *nl = b->len > off ? memchr(b->data + off, '\n', b->len - off) : NULL;
        if (nl != NULL) {
            *end = (size_t)(nl + 1 - b->data);
            return 0;
        }
        if (b->len - off > 256)
            return cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side's answer has no line end");
        char c;
        ssize_t n = cp_far_proc_read(r, &c, 1, err);
        if (n < 0)
            return cp_error_code(err);
        if (n == 0) {
            *end = b->len;
            return eof_ok ? 0
                          : cp_error_make(err, CP_ERR_UNSAFE, 0,
                                          "the far side's answer was cut short");
        }
        if (cp_buf_append(b, &c, 1) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the far side's answer is too long");
    }
}

/* A framed answer ("conch-bytes N", then N bytes: lock.sh's cp_framed) from r's stream, read
 * to its last byte and not past it, parsed as the copy's id and listing into s. */
static int read_framed(struct cp_far_proc *r, size_t max_files, struct cp_mirror_session *s,
                       cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, LOCK_ANSWER_MAX);
    size_t end = 0;
    long n = -1;
    if (read_line(r, &b, 0, &end, false, err) < 0)
        return cp_error_code(err);
    cleanup_free char *line = xasprintf("%.*s", (int)end - 1, b.data);
    const char *key = "conch-bytes ";
    if (strncmp(line, key, strlen(key)) != 0 ||
        cp_parse_long(line + strlen(key), 0, LOCK_ANSWER_MAX - 1024, &n) < 0)
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "the far side did not frame the copy's listing");
    if (read_to(r, &b, end + (size_t)n, err) < 0)
        return cp_error_code(err);
    return cp_mirror_session_parse(s, b.data + end, (size_t)n, max_files, err);
}

/* Words for a lock answer other than "ok", from its first line (our own far script's). */
static int lock_refused(const char *line, const char *place, cp_error_t *err)
{
    if (strncmp(line, "missing ", 8) == 0) {
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "%s has no '%s' command, which the copy needs",
                      place, line + 8);
        cp_error_hint(err, "Install it on %s (it is in every POSIX system's base tools).", place);
        return CP_ERR_NOT_FOUND;
    }
    if (strcmp(line, "nofolder") == 0) {
        cp_error_make(err, CP_ERR_FAILED, 0, "%s cannot make the copy's folder", place);
        cp_error_hint(err, "Check that the home on %s is writable and not full (`df -h ~`).",
                      place);
        return CP_ERR_FAILED;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s answered the copy's lock with '%s'", place,
                         line);
}

/* One attempt: 0 with the lock held, 1 when busy (*who set), <0 on failure. */
static int try_lock(struct cp_far_lock *l, const char *place, struct cp_mirror_session *s,
                    char **who, cp_error_t *err)
{
    const char *argv[] = {l->path, l->root, l->lease ? "lease" : "hold", l->token, NULL};
    cleanup_far_proc struct cp_far_proc *r = NULL;
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 4096);
    size_t end = 0;
    if (cp_far_proc_start(l->t, cp_far_lock_script, argv, &r, err) < 0 ||
        (l->lease && cp_far_proc_close_stdin(r, err) < 0) ||
        read_line(r, &b, 0, &end, true, err) < 0)
        return cp_error_wrap(err, "while taking the copy's lock on %s", place);
    cleanup_free char *line = xasprintf(
        "%.*s", (int)(end > 0 && b.data[end - 1] == '\n' ? end - 1 : end), b.data ? b.data : "");
    if (strncmp(line, "busy", 4) == 0) {
        *who = xstrdup(line[4] == ' ' ? line + 5 : "unknown");
        return 1;
    }
    bool after = strcmp(line, "ok after") == 0 && !l->lease;
    if (strcmp(line, "ok") != 0 && !after) {
        cleanup_free char *shown = cp_escape(line[0] ? line : "nothing");
        return lock_refused(shown, place, err);
    }
    if (read_framed(r, CP_MAX_FILES * 2, s, err) < 0)
        return cp_error_wrap(err, "while reading the copy's listing on %s", place);
    if (l->lease) {
        int status = 0;
        if (cp_far_proc_wait(r, &status, err) < 0)
            return cp_error_code(err);
    } else {
        l->holder = steal_pointer(&r); /* its stream open is the lock held */
        l->after = after;
    }
    l->held = true;
    return 0;
}

int cp_far_lock_take(struct cp_transport *t, const char *lock_path, const char *far_root,
                     const char *place, int stop_fd, struct cp_mirror_session *s,
                     struct cp_far_lock *out, cp_error_t *err)
{
    *out = (struct cp_far_lock){.t = t,
                                .path = xstrdup(lock_path),
                                .root = xstrdup(far_root),
                                .token = new_token(),
                                .lease = t->ops->batch};
    /* The first retry comes soon: the last run's far shell may still be letting go. */
    for (int tries = 0, waited_ms = 0;; tries++) {
        cleanup_free char *who = NULL;
        int r = try_lock(out, place, s, &who, err);
        if (r <= 0)
            return r;
        if (tries == 1)
            cp_say("another command runs in this chat's copy on %s (far %s); waiting for it to "
                   "end",
                   place, who);
        if (waited_ms >= LOCK_WAIT_S * 1000) {
            cp_error_make(err, CP_ERR_DENIED, 0,
                          "another command runs in this chat's copy on %s (far %s)", place, who);
            cp_error_hint(err, "One command at a time per copy: wait for it to end, or give "
                               "this one another --chat.");
            return CP_ERR_DENIED;
        }
        int ms = tries == 0 ? 200 : 2000;
        waited_ms += ms;
        if (pause_or_stop(stop_fd, ms, err) < 0)
            return cp_error_code(err);
    }
}

static int lock_script(struct cp_far_lock *l, const char *mode, int *status, cp_error_t *err)
{
    const char *argv[] = {l->path, l->root, mode, l->token, NULL};
    cleanup_far_proc struct cp_far_proc *r = NULL;
    char sink[256];
    if (cp_far_proc_start(l->t, cp_far_lock_script, argv, &r, err) < 0 ||
        cp_far_proc_close_stdin(r, err) < 0)
        return cp_error_code(err);
    while (cp_far_proc_read(r, sink, sizeof(sink), err) > 0)
        ;
    return cp_far_proc_wait(r, status, err);
}

int cp_far_lock_renew(struct cp_far_lock *l, cp_error_t *err)
{
    int status = 0;
    if (!l->lease || !l->held)
        return 0;
    if (lock_script(l, "renew", &status, err) < 0)
        return cp_error_wrap(err, "while renewing the copy's lock");
    if (status != 0)
        return cp_error_make(err, CP_ERR_DENIED, 0, "the copy's lock was taken from this run");
    return 0;
}

char *cp_far_lock_done_path(const struct cp_far_lock *l)
{
    return l->held && l->after ? xasprintf("%s.done", l->path) : NULL;
}

char *cp_far_lock_pushed_path(const struct cp_far_lock *l)
{
    return l->held && l->after ? xasprintf("%s.pushed", l->path) : NULL;
}

int cp_far_lock_after(struct cp_far_lock *l, struct cp_mirror_session *s, cp_error_t *err)
{
    if (!l->held || !l->after)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the copy's lock sends no listing after");
    l->after = false; /* one listing per lock */
    if (read_framed(l->holder, CP_MAX_FILES * 2, s, err) < 0)
        return cp_error_wrap(err, "while reading the copy's listing after the command");
    return 0;
}

char *cp_far_lock_guard(const struct cp_far_lock *l)
{
    if (!l->lease || !l->held)
        return NULL;
    /* The path is ours (the place's far layout), the token hex: both plain words. */
    return xasprintf("cp_l='%s'; case $(cat \"$cp_l\" 2>/dev/null) in 'lease %s '*) "
                     "echo \"lease %s $(($(date +%%s) + 120))\" >\"$cp_l.new\" && "
                     "mv -f \"$cp_l.new\" \"$cp_l\" || exit %d ;; *) echo \"the copy's lock was "
                     "taken from this run\" >&2; exit %d ;; esac; ",
                     l->path, l->token, l->token, CP_FAR_BUSY, CP_FAR_BUSY);
}

void cp_far_lock_release(struct cp_far_lock *l)
{
    cp_transport_closing(l->t);
    if (l->holder != NULL) {
        cleanup_error cp_error_t e = NULL;
        cp_far_proc_close_stdin(l->holder, &e);
        cp_far_proc_free(l->holder);
        l->holder = NULL;
    } else if (l->held && l->lease) {
        cleanup_error cp_error_t e = NULL;
        int status = 0;
        lock_script(l, "release", &status, &e);
    }
    l->held = false;
    free(l->path);
    free(l->root);
    free(l->token);
    l->path = l->root = l->token = NULL;
    l->t = NULL;
}

int cp_remote_words(cp_error_t *err, const char *place, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    int code = cp_error_code(err);
    int sys = *err != NULL ? (*err)->sys_errno : 0;
    if (sys == ENOSPC || sys == EDQUOT)
        cp_error_hint(err,
                      "The copy's disk on %s is full: free space there (`df -h ~`), or remove "
                      "old copies under ~/.conch-place/copies. Nothing here changed.",
                      place);
    else if (code == CP_ERR_UNREACHABLE || code == CP_ERR_TIMEOUT)
        cp_error_hint(err,
                      "The connection to %s broke; nothing landed half-way here. Run the "
                      "command again: the mirror starts over from the last agreed state.",
                      place);
    return cp_error_wrap(err, "%s", what);
}
