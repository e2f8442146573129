/* Reading the sign-in channel (sign-ins-feed.h). Lines are framed here and judged by
 * sign-ins-table.c; every buffer that held a message is wiped, since a message holds credentials.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "egress/policy/policy.h"
#include "egress/sign-ins/sign-ins-feed.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define READ_CHUNK (64 * 1024)
#define ANSWER_MAX (CP_EGRESS_SIGN_INS_ID_MAX + 32)

static cp_egress_sign_ins_feed_hook other_messages;

void cp_egress_sign_ins_feed_set_hook(cp_egress_sign_ins_feed_hook hook)
{
    other_messages = hook;
}

int cp_egress_sign_ins_feed_init(struct cp_egress_sign_ins_feed *f, int fd,
                                 struct cp_egress_sign_ins_holder *table, FILE *log,
                                 cp_error_t *err)
{
    *f = (struct cp_egress_sign_ins_feed){
        .fd = fd, .table = table, .log = log, .answer_fd = STDOUT_FILENO};
    int fl = fcntl(fd, F_GETFL);
    if (fd >= 0 && (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0))
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read sign-ins from fd %d", fd);
    f->buf = xmalloc(CP_EGRESS_SIGN_INS_MESSAGE_MAX);
    return 0;
}

void cp_egress_sign_ins_feed_dispose(struct cp_egress_sign_ins_feed *f)
{
    if (f->buf != NULL)
        explicit_bzero(f->buf, CP_EGRESS_SIGN_INS_MESSAGE_MAX);
    free(f->buf);
    f->buf = NULL;
}

static void log_outcome(struct cp_egress_sign_ins_feed *f, enum cp_egress_reason reason,
                        const char *detail, size_t count)
{
    struct cp_egress_decision d = {
        .time = time(NULL),
        .reason = reason,
        .detail = detail,
        .sign_ins = count,
    };
    cleanup_error cp_error_t err = NULL;
    if (f->log != NULL && cp_egress_log_write(f->log, &d, &err) < 0)
        cp_error_print(&err);
}

/* One whole line: the new table, or a refusal that leaves the old one. */
static void take_line(struct cp_egress_sign_ins_feed *f, const char *line, size_t len)
{
    struct cp_egress_sign_ins *t = NULL;
    cleanup_error cp_error_t err = NULL;
    char answer[ANSWER_MAX];
    if (other_messages != NULL && other_messages(line, len, answer, sizeof(answer))) {
        if (answer[0] != '\0' && cp_write_all(f->answer_fd, answer, strlen(answer)) < 0)
            cp_debug("cannot answer the keys' sender: %s", strerror(errno));
        return;
    }
    if (cp_egress_sign_ins_parse(line, len, &t, &err) < 0) {
        log_outcome(f, CP_EGRESS_SIGN_INS, err != NULL ? err->msg : NULL, 0);
        return;
    }
    size_t n = cp_egress_sign_ins_count(t);
    answer[0] = '\0';
    if (cp_egress_sign_ins_id(t)[0] != '\0')
        snprintf(answer, sizeof(answer), "sign-ins %s %zu\n", cp_egress_sign_ins_id(t), n);
    cp_egress_sign_ins_holder_set(f->table, t);
    log_outcome(f, CP_EGRESS_SIGN_INS_TAKEN, NULL, n);
    /* The sender waits for this: from now on, requests carry the table. */
    if (answer[0] != '\0' && cp_write_all(f->answer_fd, answer, strlen(answer)) < 0)
        cp_debug("cannot answer the sign-ins' sender: %s", strerror(errno));
}

static void line_done(struct cp_egress_sign_ins_feed *f)
{
    if (f->discarding)
        log_outcome(f, CP_EGRESS_SIGN_INS, "a message past 1 MiB, discarded unread", 0);
    else
        take_line(f, f->buf, f->len);
    explicit_bzero(f->buf, f->len);
    f->len = 0;
    f->discarding = false;
}

void cp_egress_sign_ins_feed_bytes(struct cp_egress_sign_ins_feed *f, const char *data, size_t len)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t part = nl != NULL ? (size_t)(nl - data) : len;
        if (!f->discarding && part > CP_EGRESS_SIGN_INS_MESSAGE_MAX - f->len) {
            explicit_bzero(f->buf, f->len);
            f->len = 0;
            f->discarding = true;
        }
        if (!f->discarding) {
            memcpy(f->buf + f->len, data, part);
            f->len += part;
        }
        if (nl == NULL)
            return;
        line_done(f);
        data += part + 1;
        len -= part + 1;
    }
}

static void at_end(struct cp_egress_sign_ins_feed *f)
{
    f->eof = true;
    if (f->len > 0 || f->discarding)
        log_outcome(f, CP_EGRESS_SIGN_INS, "the input ended inside a message", 0);
    explicit_bzero(f->buf, f->len);
    f->len = 0;
    f->discarding = false;
}

int cp_egress_sign_ins_feed_read(struct cp_egress_sign_ins_feed *f)
{
    char chunk[READ_CHUNK];
    for (int rounds = 0; rounds < 64 && !f->eof; rounds++) {
        ssize_t n = read(f->fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            at_end(f); /* an error reads as an end: the table stays either way */
            break;
        }
        cp_egress_sign_ins_feed_bytes(f, chunk, (size_t)n);
        explicit_bzero(chunk, (size_t)n);
    }
    return f->eof ? 1 : 0;
}
