/* The sign-ins' and the keys' way into the sidecar (sign-in-send.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "places/container/seal/sign-in-send.h"
#include "places/container/engine/engine.h"
#include "src/base/buf.h"
#include "src/base/clock.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define ACK_MAX (64 * 1024) /* what the sidecar may print before our answer */

/* Standard output's frames, joined; other streams' frames are skipped. */
static size_t stdout_text(const char *data, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t at = 0; at + 8 <= len;) {
        const uint8_t *h = (const uint8_t *)data + at;
        uint32_t n = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
        size_t take = n <= len - at - 8 ? n : len - at - 8;
        if (h[0] == 1 && o + take < cap) {
            memcpy(out + o, data + at + 8, take);
            o += take;
        }
        at += 8 + take;
    }
    out[o] = '\0';
    return o;
}

/* Whether "WORD ID" is a whole line of standard output in data's frames. */
static bool ack_seen(const char *data, size_t len, const char *word, const char *id)
{
    cleanup_free char *text = xmalloc(len + 1);
    stdout_text(data, len, text, len + 1);
    cleanup_free char *want = xasprintf("%s %s", word, id);
    size_t wl = strlen(want);
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        if (nl == NULL)
            break; /* a line is whole only with its newline */
        if ((size_t)(nl - line) >= wl && strncmp(line, want, wl) == 0 &&
            (line[wl] == '\n' || line[wl] == ' '))
            return true;
        line = nl + 1;
    }
    return false;
}

bool cp_sign_in_ack_seen(const char *data, size_t len, const char *id)
{
    return ack_seen(data, len, "sign-ins", id);
}

static int wait_ack(int fd, struct cp_buf *got, const char *word, const char *id, int ms,
                    cp_error_t *err)
{
    int64_t end = cp_now_ms() + ms;
    char chunk[4096];
    while (!ack_seen(got->data ? got->data : "", got->len, word, id)) {
        int64_t now = cp_now_ms();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = now < end ? poll(&p, 1, (int)(end - now)) : 0;
        if (r < 0 && errno == EINTR)
            return cp_error_make(err, CP_ERR_INTERRUPTED, errno, "interrupted");
        if (r <= 0)
            return cp_error_make(err, CP_ERR_FAILED, 0,
                                 "the egress sidecar did not take the %s within %d ms", word, ms);
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n <= 0)
            return cp_error_make(err, CP_ERR_FAILED, n < 0 ? errno : 0,
                                 "the egress sidecar closed its stream before taking the %s", word);
        if (cp_buf_append(got, chunk, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_FAILED, 0, "the egress sidecar said too much");
    }
    return 0;
}

/* Podman 4 closes a box's standard input when an attach ends (measured: a second attach's line
 * never arrives), so there the message goes through the sidecar's second door: the proxy's own
 * binary, run in the sidecar by the exec API, hands it on (egress/sign-ins/sign-ins-door.h). */
static int open_stream(struct cp_engine *e, const struct cp_sidecar *s, int *fd, struct cp_buf *got,
                       cp_error_t *err)
{
    if (!e->quirks.stdin_closes_after_attach) {
        cleanup_free char *path =
            xasprintf("/containers/%s/attach?stream=1&stdin=1&stdout=1&stderr=0", s->id);
        return cp_stream_hijack(e, "POST", path, NULL, fd, got, err);
    }
    static const char *const argv[] = {"/conch-place", "egress-proxy", "--send-sign-ins", NULL};
    cleanup_json json_object *body = json_object_new_object(), *reply = NULL;
    json_object *cmd = json_object_new_array();
    for (size_t i = 0; argv[i] != NULL; i++)
        json_object_array_add(cmd, json_object_new_string(argv[i]));
    json_object_object_add(body, "Cmd", cmd);
    json_object_object_add(body, "AttachStdin", json_object_new_boolean(1));
    json_object_object_add(body, "AttachStdout", json_object_new_boolean(1));
    json_object_object_add(body, "AttachStderr", json_object_new_boolean(0));
    cleanup_free char *path = xasprintf("/containers/%s/exec", s->id);
    if (cp_engine_call(e, "POST", path, body, &reply, err) < 0)
        return cp_error_code(err);
    const char *id = cp_json_str(reply, "Id");
    if (id == NULL || strspn(id, "0123456789abcdef") != strlen(id))
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine gave the exec no id");
    cleanup_json json_object *start = json_object_new_object();
    json_object_object_add(start, "Detach", json_object_new_boolean(0));
    json_object_object_add(start, "Tty", json_object_new_boolean(0));
    cleanup_free char *start_path = xasprintf("/exec/%s/start", id);
    return cp_stream_hijack(e, "POST", start_path, start, fd, got, err);
}

int cp_sidecar_send_line(struct cp_engine *e, const struct cp_sidecar *s, const char *line,
                         const char *word, const char *id, int ms, cp_error_t *err)
{
    cleanup_close int fd = -1;
    cleanup_buf struct cp_buf got;
    cp_buf_init(&got, ACK_MAX);
    if (open_stream(e, s, &fd, &got, err) < 0)
        return cp_error_wrap(err, "reaching the egress sidecar");
    if (cp_write_all(fd, line, strlen(line)) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "writing to the egress sidecar");
    if (wait_ack(fd, &got, word, id, ms, err) < 0) {
        cp_error_hint(err, "Remove the sidecar ('conch-place clean') so that the next run makes "
                           "it again, or run with --unsealed.");
        return cp_error_code(err);
    }
    cp_debug("%s in force in %s", word, s->name);
    return 0;
}

int cp_sidecar_send_sign_ins(struct cp_engine *e, const struct cp_sidecar *s, const char *line,
                             const char *id, cp_error_t *err)
{
    return cp_sidecar_send_line(e, s, line, "sign-ins", id, CP_SIGN_IN_ACK_MS, err);
}
