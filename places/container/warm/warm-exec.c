/* Running the command in a claimed warm box (warm.h): handed to the box's first process on its
 * stdin, its output read up to the end marks, its end seen through the box's pidfd. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "places/container/engine/engine.h"
#include "places/container/box/box.h"
#include "places/container/warm/warm.h"
#include "src/base/log.h"
#include "src/base/shell.h"
#include "src/base/util.h"

/* The quoted command a warm box reads (argv is bounded far below by the kernel). */
#define WARM_COMMAND_MAX (4 * 1024 * 1024)

int cp_warm_command_message(char *const *argv, const char *nonce, struct cp_buf *out,
                            cp_error_t *err)
{
    cleanup_buf struct cp_buf cmd;
    cp_buf_init(&cmd, WARM_COMMAND_MAX);
    if (cp_shell_quote_argv(&cmd, (const char *const *)argv) < 0)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the command is longer than %d bytes",
                             WARM_COMMAND_MAX);
    char head[32 + CP_END_NONCE_LEN];
    int n = snprintf(head, sizeof(head), "%zu %s\n", cmd.len, nonce);
    if (cp_buf_append(out, head, (size_t)n) < 0 || cp_buf_append(out, cmd.data, cmd.len) < 0)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the command is too long");
    return 0;
}

/* The box's status: its marks' once the box ended after them, else the engine's. */
static int read_status(struct cp_engine *e, const char *id, const struct cp_demux *d,
                       int *status_out, cp_error_t *err)
{
    if (d->ended_by_mark) {
        cp_debug("ended: its marks, then its processes");
        *status_out = d->marks[0].status;
        return 0;
    }
    return cp_box_wait(e, id, status_out, err);
}

int cp_warm_exec(struct cp_engine *e, const char *id, const struct cp_warm_exec *x,
                 struct cp_demux *d, int *status_out, cp_error_t *err)
{
    char nonce[CP_END_NONCE_LEN + 1];
    cp_box_random_hex(nonce, sizeof(nonce));
    cleanup_buf struct cp_buf msg;
    cp_buf_init(&msg, WARM_COMMAND_MAX + 64);
    if (cp_warm_command_message(x->argv, nonce, &msg, err) < 0)
        return cp_error_code(err);
    cleanup_close int pidfd = x->box != NULL ? cp_box_pidfd_of(x->box) : cp_box_pidfd(e, id);
    struct cp_end_mark marks[2];
    cp_end_mark_init(&marks[0], nonce);
    cp_end_mark_init(&marks[1], nonce);
    d->marks = marks;
    d->end_fd = pidfd;
    cleanup_free char *path =
        xasprintf("/containers/%s/attach?stream=1&stdin=1&stdout=1&stderr=1&detachKeys=", id);
    cleanup_close int fd = -1;
    cleanup_buf struct cp_buf early;
    cp_buf_init(&early, 1 << 20);
    if (cp_stream_hijack(e, "POST", path, NULL, &fd, &early, err) < 0)
        return cp_error_wrap(err, "attaching to the box");
    if (cp_write_all(fd, msg.data, msg.len) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "sending the command to the box");
    cp_debug("command sent");
    d->launch_name = x->argv[0];
    if (!x->interactive)
        shutdown(fd, SHUT_WR); /* as in a fresh box: the command's stdin is empty */
    int r = cp_stream_pump(fd, d, &early, x->interactive ? STDIN_FILENO : -1, x->stop_fd, err);
    if (r == 0) {
        cp_debug("output ended");
        r = read_status(e, id, d, status_out, err);
    }
    d->marks = NULL; /* they live on this stack */
    d->end_fd = -1;
    return r;
}
