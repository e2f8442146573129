/* Running the command in a claimed warm box, the way its engine is quickest (warm.h's
 * cp_warm_way): Docker's exec API, or the box's own first process handed the command. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "places/container/box.h"
#include "places/container/warm.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

/* The quoted command a stdin-exec box reads (argv is bounded far below by the kernel). */
#define WARM_COMMAND_MAX (4 * 1024 * 1024)

static json_object *exec_body(struct cp_engine *e, const struct cp_warm_exec *x)
{
    json_object *b = json_object_new_object();
    json_object *cmd = json_object_new_array();
    bool podman = strcmp(e->kind, "podman") == 0;
    /* The box's init, mounted by the engine, reaps and reports as it does for a fresh box. */
    json_object_array_add(
        cmd, json_object_new_string(podman ? "/run/podman-init" : "/sbin/docker-init"));
    if (!podman)
        json_object_array_add(cmd, json_object_new_string("-s"));
    json_object_array_add(cmd, json_object_new_string("--"));
    for (size_t i = 0; x->argv[i] != NULL; i++)
        json_object_array_add(cmd, json_object_new_string(x->argv[i]));
    cleanup_free char *user = xasprintf("%u:%u", x->uid, x->gid);
    json_object_object_add(b, "Cmd", cmd);
    json_object_object_add(b, "User", json_object_new_string(user));
    json_object_object_add(b, "WorkingDir", json_object_new_string(x->workdir));
    json_object_object_add(b, "AttachStdin", json_object_new_boolean(x->interactive));
    json_object_object_add(b, "AttachStdout", json_object_new_boolean(1));
    json_object_object_add(b, "AttachStderr", json_object_new_boolean(1));
    json_object_object_add(b, "Tty", json_object_new_boolean(0));
    return b;
}

/* The exit code is set once the process is reaped, a moment after the stream ends. */
static int exec_status(struct cp_engine *e, const char *exec_id, int *status_out, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/exec/%s/json", exec_id);
    for (int i = 0; i < 500; i++) {
        cleanup_json json_object *reply = NULL;
        if (cp_engine_call(e, "GET", path, NULL, &reply, err) < 0)
            return cp_error_code(err);
        json_object *running = NULL;
        json_object_object_get_ex(reply, "Running", &running);
        int64_t code = cp_json_int(reply, "ExitCode", -1);
        if (!json_object_get_boolean(running) && code >= 0 && code <= 255) {
            *status_out = (int)code;
            return 0;
        }
        poll(NULL, 0, 10);
    }
    return cp_error_make(err, CP_ERR_TIMEOUT, 0, "the engine did not report the command's exit");
}

static int exec_api(struct cp_engine *e, const char *id, const struct cp_warm_exec *x,
                    struct cp_demux *d, int *status_out, cp_error_t *err)
{
    cleanup_json json_object *body = exec_body(e, x);
    cleanup_free char *path = xasprintf("/containers/%s/exec", id);
    cleanup_json json_object *reply = NULL;
    if (cp_engine_call(e, "POST", path, body, &reply, err) < 0)
        return cp_error_wrap(err, "starting the command in the box");
    const char *exec_id = cp_json_str(reply, "Id");
    if (exec_id == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine gave no exec id");
    cp_debug("exec made");
    cleanup_json json_object *start = json_object_new_object();
    json_object_object_add(start, "Detach", json_object_new_boolean(0));
    json_object_object_add(start, "Tty", json_object_new_boolean(0));
    cleanup_free char *start_path = xasprintf("/exec/%s/start", exec_id);
    cleanup_close int fd = -1;
    cleanup_buf struct cp_buf early;
    cp_buf_init(&early, 1 << 20);
    if (cp_stream_hijack(e, "POST", start_path, start, &fd, &early, err) < 0 ||
        cp_stream_pump(fd, d, &early, x->interactive ? STDIN_FILENO : -1, x->stop_fd, err) < 0)
        return cp_error_code(err);
    cp_debug("output ended");
    return exec_status(e, exec_id, status_out, err);
}

/* 'a'\''b': every byte but the single quote is literal between single quotes. */
static int quote_arg(struct cp_buf *b, const char *arg)
{
    if (cp_buf_append(b, "'", 1) < 0)
        return -1;
    for (const char *p = arg; *p != '\0'; p++) {
        int r = *p == '\'' ? cp_buf_append(b, "'\\''", 4) : cp_buf_append(b, p, 1);
        if (r < 0)
            return -1;
    }
    return cp_buf_append(b, "' ", 2);
}

/* The length line and the quoted command, as the stdin-exec waiter reads them. */
static int command_message(char *const *argv, struct cp_buf *out, cp_error_t *err)
{
    cleanup_buf struct cp_buf cmd;
    cp_buf_init(&cmd, WARM_COMMAND_MAX);
    bool fits = true;
    for (size_t i = 0; argv[i] != NULL && fits; i++)
        fits = quote_arg(&cmd, argv[i]) == 0;
    if (!fits)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the command is longer than %d bytes",
                             WARM_COMMAND_MAX);
    char head[32];
    int n = snprintf(head, sizeof(head), "%zu\n", cmd.len);
    if (cp_buf_append(out, head, (size_t)n) < 0 || cp_buf_append(out, cmd.data, cmd.len) < 0)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the command is too long");
    return 0;
}

int cp_warm_command_message(char *const *argv, struct cp_buf *out, cp_error_t *err)
{
    return command_message(argv, out, err);
}

/* One attach brings the command and the run's stdin, and carries the output back; the box's
 * exit status is the command's. */
static int stdin_exec(struct cp_engine *e, const char *id, const struct cp_warm_exec *x,
                      struct cp_demux *d, int *status_out, cp_error_t *err)
{
    cleanup_buf struct cp_buf msg;
    cp_buf_init(&msg, WARM_COMMAND_MAX + 32);
    if (command_message(x->argv, &msg, err) < 0)
        return cp_error_code(err);
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
    if (cp_stream_pump(fd, d, &early, x->interactive ? STDIN_FILENO : -1, x->stop_fd, err) < 0)
        return cp_error_code(err);
    cp_debug("output ended");
    return cp_box_wait(e, id, status_out, err);
}

int cp_warm_exec(struct cp_engine *e, const char *id, const struct cp_warm_exec *x,
                 struct cp_demux *d, int *status_out, cp_error_t *err)
{
    if (cp_warm_way(strcmp(e->kind, "podman") == 0) == CP_WARM_STDIN_EXEC)
        return stdin_exec(e, id, x, d, status_out, err);
    return exec_api(e, id, x, d, status_out, err);
}
