/* One sandbox per chat: found by its label, made with DESIGN.md's intervals, started and
 * waited for as the SDKs poll, and removed after 30 unused days (Daytona never does). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "places/cloud/sandbox.h"
#include "src/base/clock.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define AUTO_STOP_MIN     15
#define AUTO_ARCHIVE_MIN  (7 * 24 * 60)
#define CREATE_TIMEOUT_MS 90000L /* the API itself may wait 30 s for the start */
#define LIST_PAGES_MAX    50

static void cleanup_sandboxes(struct cp_sandbox **v)
{
    free(*v);
}

int cp_sandbox_get(struct cp_daytona *d, const char *id, struct cp_sandbox *out, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/sandbox/%s", d->api, id);
    cleanup_json json_object *o = NULL;
    struct cp_daytona_call c = {.method = "GET", .url = url, .retry_5xx = true};
    if (cp_daytona_request(d, &c, &o, err) < 0)
        return cp_error_code(err);
    return cp_sandbox_from_json(o, out, err);
}

int cp_sandbox_delete(struct cp_daytona *d, const char *id, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/sandbox/%s", d->api, id);
    struct cp_daytona_call c = {.method = "DELETE", .url = url, .retry_5xx = true};
    if (cp_daytona_request(d, &c, NULL, err) < 0 && cp_error_code(err) != CP_ERR_NOT_FOUND)
        return cp_error_wrap(err, "removing sandbox %s", id);
    cp_error_free(err);
    return 0;
}

static bool unused_too_long(const struct cp_sandbox *sb, time_t now)
{
    return sb->last_activity > 0 &&
           now - sb->last_activity > (time_t)CP_CLOUD_UNUSED_DAYS * 24 * 3600;
}

static char *list_url(struct cp_daytona *d, const char *cursor)
{
    cleanup_free char *labels = cp_daytona_escape(d, "{\"" CP_CLOUD_LABEL_OURS "\":\"1\"}");
    if (cursor == NULL)
        return xasprintf("%s/sandbox?labels=%s&limit=100", d->api, labels);
    cleanup_free char *cur = cp_daytona_escape(d, cursor);
    return xasprintf("%s/sandbox?labels=%s&limit=100&cursor=%s", d->api, labels, cur);
}

/* One page: removes the old, remembers the chat's. */
static int scan_page(struct cp_daytona *d, json_object *page, const char *chat,
                     struct cp_sandbox *found, bool *found_ok, size_t *removed, char **next,
                     cp_error_t *err)
{
    __attribute__((cleanup(cleanup_sandboxes))) struct cp_sandbox *v = NULL;
    size_t n = 0;
    if (cp_sandbox_list_parse(page, &v, &n, next, err) < 0)
        return cp_error_code(err);
    time_t now = time(NULL);
    for (size_t i = 0; i < n; i++) {
        if (!v[i].ours)
            continue; /* the filter is the server's; we check it too */
        if (unused_too_long(&v[i], now)) {
            cp_debug("removing sandbox %s, unused for over %d days", v[i].id, CP_CLOUD_UNUSED_DAYS);
            if (cp_sandbox_delete(d, v[i].id, err) < 0)
                return cp_error_code(err);
            (*removed)++;
            continue;
        }
        if (chat != NULL && !*found_ok && strcmp(v[i].chat, chat) == 0 &&
            strcmp(v[i].state, "destroying") != 0 && strcmp(v[i].state, "destroyed") != 0) {
            *found = v[i];
            *found_ok = true;
        }
    }
    return 0;
}

int cp_sandbox_scan(struct cp_daytona *d, const char *chat, struct cp_sandbox *found_out,
                    bool *found_ok, size_t *removed_out, cp_error_t *err)
{
    cleanup_free char *cursor = NULL;
    size_t removed = 0;
    *found_ok = false;
    for (int page = 0; page < LIST_PAGES_MAX; page++) {
        cleanup_free char *url = list_url(d, cursor);
        cleanup_json json_object *o = NULL;
        struct cp_daytona_call c = {.method = "GET", .url = url, .retry_5xx = true};
        if (cp_daytona_request(d, &c, &o, err) < 0)
            return cp_error_wrap(err, "listing the sandboxes");
        free(cursor);
        cursor = NULL;
        if (scan_page(d, o, chat, found_out, found_ok, &removed, &cursor, err) < 0)
            return cp_error_code(err);
        if (cursor == NULL)
            break;
    }
    if (removed_out != NULL)
        *removed_out = removed;
    return 0;
}

static char *create_body(const char *chat)
{
    cleanup_json json_object *o = json_object_new_object();
    json_object *labels = json_object_new_object();
    json_object_object_add(labels, CP_CLOUD_LABEL_OURS, json_object_new_string("1"));
    json_object_object_add(labels, CP_CLOUD_LABEL_CHAT, json_object_new_string(chat));
    json_object_object_add(o, "labels", labels);
    json_object_object_add(o, "autoStopInterval", json_object_new_int(AUTO_STOP_MIN));
    json_object_object_add(o, "autoArchiveInterval", json_object_new_int(AUTO_ARCHIVE_MIN));
    return xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

/* After a failed create the sandbox may exist all the same (400 "Sandbox failed to start"
 * comes after it was made): find it by its label and remove it. */
static void remove_half_made(struct cp_daytona *d, const char *chat)
{
    cleanup_error cp_error_t cerr = NULL;
    struct cp_sandbox sb;
    bool found = false;
    if (cp_sandbox_scan(d, chat, &sb, &found, NULL, &cerr) == 0 && found) {
        cp_debug("removing sandbox %s, left by a failed create", sb.id);
        cp_sandbox_delete(d, sb.id, &cerr);
    }
}

int cp_sandbox_create(struct cp_daytona *d, const char *chat, struct cp_sandbox *out,
                      cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/sandbox", d->api);
    cleanup_free char *body = create_body(chat);
    cleanup_json json_object *o = NULL;
    /* No retry on 5xx: the sandbox may have been made; 429 and 409 mean it was not. */
    struct cp_daytona_call c = {
        .method = "POST", .url = url, .body = body, .timeout_ms = CREATE_TIMEOUT_MS};
    if (cp_daytona_request(d, &c, &o, err) < 0 || cp_sandbox_from_json(o, out, err) < 0) {
        if (cp_error_code(err) != CP_ERR_DENIED)
            remove_half_made(d, chat);
        return cp_error_wrap(err, "making a sandbox");
    }
    return 0;
}

static int start(struct cp_daytona *d, const char *id, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/sandbox/%s/start", d->api, id);
    struct cp_daytona_call c = {
        .method = "POST", .url = url, .timeout_ms = CREATE_TIMEOUT_MS, .retry_5xx = true};
    return cp_daytona_request(d, &c, NULL, err) < 0 ? cp_error_wrap(err, "starting sandbox %s", id)
                                                    : 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static int errored(const struct cp_sandbox *sb, cp_error_t *err)
{
    cp_error_make(err, CP_ERR_FAILED, 0, "sandbox %s is in state %s: %s", sb->id, sb->state,
                  sb->reason[0] ? sb->reason : "Daytona gave no reason");
    cp_error_hint(err, "Run 'conch-place clean' to remove it; the next run makes a new one.");
    return CP_ERR_FAILED;
}

/* Polls as the SDKs do: 100 ms, growing by a tenth after 5 s, up to 1 s between polls. */
static int wait_settled(struct cp_daytona *d, struct cp_sandbox *sb, int64_t deadline,
                        cp_error_t *err)
{
    long pause = 100;
    int64_t started = cp_now_ms();
    while (cp_sandbox_state_transient(sb->state)) {
        if (cp_now_ms() >= deadline) {
            cp_error_make(err, CP_ERR_TIMEOUT, 0, "sandbox %s is still %s after %ld s", sb->id,
                          sb->state, d->wait_ms / 1000);
            cp_error_hint(err, "Try again later; if it stays so, run 'conch-place clean'.");
            return CP_ERR_TIMEOUT;
        }
        sleep_ms(pause);
        if (cp_now_ms() - started > 5000)
            pause = pause * 11 / 10 > 1000 ? 1000 : pause * 11 / 10;
        if (cp_sandbox_get(d, sb->id, sb, err) < 0)
            return cp_error_wrap(err, "waiting for sandbox %s", sb->id);
    }
    return 0;
}

int cp_sandbox_ensure_started(struct cp_daytona *d, struct cp_sandbox *sb, cp_error_t *err)
{
    int64_t deadline = cp_now_ms() + d->wait_ms;
    for (int round = 0; round < 3; round++) {
        if (wait_settled(d, sb, deadline, err) < 0)
            return cp_error_code(err);
        if (strcmp(sb->state, "started") == 0)
            return 0;
        if (strcmp(sb->state, "error") == 0 || strcmp(sb->state, "build_failed") == 0)
            return errored(sb, err);
        if (strcmp(sb->state, "destroyed") == 0 || strcmp(sb->state, "destroying") == 0)
            return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "sandbox %s is being removed", sb->id);
        cp_debug("starting sandbox %s (it was %s)", sb->id, sb->state);
        if (start(d, sb->id, err) < 0 || cp_sandbox_get(d, sb->id, sb, err) < 0)
            return cp_error_code(err);
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "sandbox %s did not start (it is %s)", sb->id,
                         sb->state);
}
