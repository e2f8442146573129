/* The die event as a fresh Docker box's exit status: see exit-event.h for why. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "places/container/engine/exit-event.h"
#include "places/container/engine/stream.h"
#include "src/base/clock.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define LINES_MAX (256 * 1024) /* events of this box only: a few hundred bytes each */
#define WAIT_MS   1000         /* then the box is asked, which waits as long as it must */

int cp_exit_event_parse(const char *line, size_t len, const char *id, int *status_out)
{
    cleanup_json json_object *ev = NULL;
    json_object *actor = NULL, *attrs = NULL;
    if (cp_json_parse(line, len, "event", &ev, NULL) < 0)
        return 0;
    const char *type = cp_json_str(ev, "Type"), *action = cp_json_str(ev, "Action");
    json_object_object_get_ex(ev, "Actor", &actor);
    json_object_object_get_ex(actor, "Attributes", &attrs);
    const char *who = cp_json_str(actor, "ID"), *code = cp_json_str(attrs, "exitCode");
    long status = -1;
    if (type == NULL || strcmp(type, "container") != 0 || action == NULL ||
        strcmp(action, "die") != 0 || who == NULL || strcmp(who, id) != 0 || code == NULL ||
        cp_parse_long(code, 0, 255, &status) < 0)
        return 0;
    *status_out = (int)status;
    return 1;
}

void cp_exit_watch_open(struct cp_engine *e, const char *id, struct cp_exit_watch *w)
{
    w->fd = -1;
    cp_buf_init(&w->lines, LINES_MAX);
    cleanup_free char *filters =
        xasprintf("{\"type\":[\"container\"],\"container\":[\"%s\"],\"event\":[\"die\"]}", id);
    cleanup_free char *esc = cp_engine_escape(filters);
    cleanup_free char *path = xasprintf("/events?filters=%s", esc);
    cleanup_error cp_error_t err = NULL;
    if (cp_stream_get(e, path, &w->fd, &w->lines, &err) < 0)
        cp_debug("no die event to wait for: %s", err->msg);
}

/* The event's exit code is one of its attributes, beside the box's labels, and Docker copies
 * the labels over them: an image labelled exitCode=0 would report every failure as success.
 * The box's labels are read from the engine's list, which answers without waiting for it. */
static bool labels_fake_nothing(struct cp_engine *e, const char *id)
{
    cleanup_free char *filters = xasprintf("{\"id\":[\"%s\"]}", id);
    cleanup_free char *esc = cp_engine_escape(filters);
    cleanup_free char *path = xasprintf("/containers/json?all=1&filters=%s", esc);
    cleanup_json json_object *list = NULL;
    cleanup_error cp_error_t err = NULL;
    json_object *labels = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &list, &err) < 0 ||
        !json_object_is_type(list, json_type_array) || json_object_array_length(list) != 1 ||
        !json_object_object_get_ex(json_object_array_get_idx(list, 0), "Labels", &labels))
        return false;
    return !json_object_object_get_ex(labels, "exitCode", NULL);
}

/* Takes the whole lines in w->lines: 1 when one is the die event. */
static int scan_lines(struct cp_exit_watch *w, const char *id, int *status_out)
{
    char *eol;
    while ((eol = memchr(w->lines.data, '\n', w->lines.len)) != NULL) {
        size_t len = (size_t)(eol - w->lines.data);
        int r = cp_exit_event_parse(w->lines.data, len, id, status_out);
        cp_buf_consume(&w->lines, len + 1);
        if (r == 1)
            return 1;
    }
    return 0;
}

static int wait_event(struct cp_exit_watch *w, const char *id, int *status_out)
{
    int64_t until = cp_now_ms() + WAIT_MS;
    char chunk[4096];
    while (w->lines.len == 0 || scan_lines(w, id, status_out) == 0) {
        int64_t left = until - cp_now_ms();
        struct pollfd p[2] = {{w->fd, POLLIN, 0}, {cp_signals_install(), POLLIN, 0}};
        int ready = left > 0 ? poll(p, 2, (int)left) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0 || p[1].revents != 0)
            return 0; /* a signal is the caller's to see */
        ssize_t n = read(w->fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || cp_buf_append(&w->lines, chunk, (size_t)n) < 0)
            return 0;
    }
    return 1;
}

int cp_exit_watch_read(struct cp_engine *e, struct cp_exit_watch *w, const char *id,
                       int *status_out)
{
    int status = -1;
    if (w->fd < 0 || wait_event(w, id, &status) == 0 || !labels_fake_nothing(e, id))
        return 0;
    *status_out = status;
    return 1;
}

void cp_exit_watch_dispose(struct cp_exit_watch *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    cp_buf_dispose(&w->lines);
}
