/* The engine client: ping and version negotiation, JSON calls, streamed uploads. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/engine/engine-client.h"
#include "src/base/http.h"
#include "src/base/http-unix.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

/* 1.41 is what Docker 20.10 and Podman 4 serve; newer engines accept it down to 1.40,
 * except Docker 29.0-29.2 (minimum 1.44), so the version is always negotiated. */
#define CLIENT_MAX_MAJOR 1
#define CLIENT_MAX_MINOR 44
#define CLIENT_MIN_MINOR 25
#define REPLY_MAX        (8 * 1024 * 1024)

/* libpod's own routes are versioned apart from the Docker API's, on the same socket. */
#define LIBPOD_API "4.0.0"

void cp_engine_prefetch_drop(struct cp_engine *e)
{
    for (size_t i = 0; i < e->n_ahead; i++) {
        close(e->ahead[i].fd);
        free(e->ahead[i].url);
    }
    e->n_ahead = 0;
}

/* The connection of a GET of url sent ahead, now the caller's; -1 when none was. */
static int take_ahead(struct cp_engine *e, const char *url)
{
    for (size_t i = 0; i < e->n_ahead; i++) {
        if (strcmp(e->ahead[i].url, url) != 0)
            continue;
        int fd = e->ahead[i].fd;
        free(e->ahead[i].url);
        e->ahead[i] = e->ahead[--e->n_ahead];
        return fd;
    }
    return -1;
}

static struct cp_http_req engine_req(const struct cp_engine *e, const char *method, const char *url,
                                     const char *text)
{
    return (struct cp_http_req){.method = method,
                                .url = url,
                                .unix_socket = e->socket,
                                .content_type = text != NULL ? "application/json" : NULL,
                                .body = text,
                                .body_len = text != NULL ? strlen(text) : 0,
                                .max_body = REPLY_MAX,
                                .timeout_ms = e->timeout_ms,
                                .signal_grace_ms = e->signal_grace_ms};
}

void cp_engine_set_patience(struct cp_engine *e, long signal_grace_ms, long timeout_ms)
{
    e->signal_grace_ms = signal_grace_ms;
    e->timeout_ms = timeout_ms;
}

void cp_engine_prefetch(struct cp_engine *e, const char *path, bool libpod)
{
    if (e->n_ahead == CP_ENGINE_AHEAD_MAX)
        return;
    cleanup_free char *url =
        xasprintf("http://localhost/v%s%s", libpod ? LIBPOD_API : e->version, path);
    struct cp_http_req req = engine_req(e, "GET", url, NULL);
    cleanup_error cp_error_t err = NULL;
    int fd = -1;
    if (cp_http_unix_send(&req, &fd, &err) < 0) {
        cp_debug("not sent ahead: %s", err->msg);
        return;
    }
    e->ahead[e->n_ahead++] = (struct cp_engine_ahead){.url = steal_pointer(&url), .fd = fd};
}

void cp_engine_free(struct cp_engine *e)
{
    if (e == NULL)
        return;
    if (e->curl != NULL)
        curl_easy_cleanup(e->curl);
    cp_engine_prefetch_drop(e);
    free(e->socket);
    free(e);
}

void cp_cleanup_enginep(struct cp_engine **e)
{
    cp_engine_free(*e);
}

/* As curl_easy_escape: every byte but RFC 3986's unreserved ones as %XX. Here, so that a
 * container run does not load libcurl for it (src/base/lazy-load/lazy-load.h). */
char *cp_engine_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = xmalloc(strlen(s) * 3 + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~", *p) != NULL) {
            *o++ = (char)*p;
            continue;
        }
        *o++ = '%';
        *o++ = hex[*p >> 4];
        *o++ = hex[*p & 15];
    }
    *o = '\0';
    return out;
}

static int parse_version(const char *v, int *minor)
{
    int major = 0;
    if (sscanf(v, "%d.%d", &major, minor) != 2 || major != 1)
        return -1;
    return 0;
}

static int ping(struct cp_engine *e, cp_error_t *err)
{
    cleanup_http_resp struct cp_http_resp resp = {0};
    struct cp_http_req req = {.method = "GET",
                              .url = "http://localhost/_ping",
                              .unix_socket = e->socket,
                              .timeout_ms = 5000,
                              .max_body = 4096};
    if (cp_http_perform(&e->curl, &req, &resp, err) < 0)
        return cp_error_code(err);
    if (resp.status != 200)
        return cp_error_make(err, CP_ERR_UNREACHABLE, 0, "%s answered /_ping with HTTP %ld",
                             e->socket, resp.status);
    char api[32] = "", libpod[32] = "";
    int minor = 0;
    if (cp_http_header(&resp, "Api-Version", api, sizeof(api)) < 0 ||
        parse_version(api, &minor) < 0)
        return cp_error_make(err, CP_ERR_UNREACHABLE, 0, "%s does not speak the Docker API",
                             e->socket);
    if (minor < CLIENT_MIN_MINOR)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the engine on %s serves API %s, older than "
                             "the 1.%d that sealed boxes need",
                             e->socket, api, CLIENT_MIN_MINOR);
    if (minor > CLIENT_MAX_MINOR)
        minor = CLIENT_MAX_MINOR;
    snprintf(e->version, sizeof(e->version), "%d.%d", CLIENT_MAX_MAJOR, minor);
    cp_engine_identify(e, cp_http_header(&resp, "Libpod-Api-Version", libpod, sizeof(libpod)) == 0);
    return 0;
}

int cp_engine_open(const char *socket, struct cp_engine **out, cp_error_t *err)
{
    struct stat st;
    if (stat(socket, &st) < 0 || !S_ISSOCK(st.st_mode))
        return cp_error_make(err, CP_ERR_UNREACHABLE, errno, "no engine socket at %s", socket);
    struct cp_engine *e = xcalloc(1, sizeof(*e));
    e->socket = xstrdup(socket);
    if (ping(e, err) < 0) {
        cp_engine_free(e);
        return cp_error_code(err);
    }
    cp_debug("engine: %s on %s, API %s", e->kind, e->socket, e->version);
    *out = e;
    return 0;
}

/* A Podman service whose pipe to one of its helpers broke answers every call with 500 "broken
 * pipe" until it is restarted: only the restart helps, so the words say so. */
static bool broken_service(const struct cp_engine *e, long status, json_object *reply)
{
    const char *msg = cp_json_str(reply, "message"), *cause = cp_json_str(reply, "cause");
    return e->quirks.broken_pipe_sticks && status == 500 &&
           ((msg != NULL && strstr(msg, "broken pipe") != NULL) ||
            (cause != NULL && strstr(cause, "broken pipe") != NULL));
}

static int judge(const struct cp_engine *e, long status, const char *method, const char *path,
                 const struct cp_http_resp *resp, cp_error_t *err)
{
    if (status >= 200 && status < 300)
        return 0;
    cleanup_json json_object *j = NULL;
    const char *msg = NULL;
    if (cp_json_parse(resp->body.data ? resp->body.data : "", resp->body.len, "reply", &j, NULL) ==
        0)
        msg = cp_json_str(j, "message");
    int code = status == 404 ? CP_ERR_NOT_FOUND : CP_ERR_FAILED;
    cp_error_make(err, code, 0, "the engine refused %s %s (HTTP %ld): %s", method, path, status,
                  msg ? msg : "no reason given");
    if (broken_service(e, status, j))
        cp_error_hint(err,
                      "The Podman service on %s is broken; restart the Podman service "
                      "('systemctl restart podman.socket podman.service', with --user for "
                      "rootless Podman, or stop 'podman system service' and start it again), "
                      "then run the command again.",
                      e->socket);
    return code;
}

static int perform(struct cp_engine *e, const char *method, const char *path, json_object *body,
                   struct cp_http_resp *resp, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("http://localhost/v%s%s", e->version, path);
    const char *text = body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : NULL;
    struct cp_http_req req = engine_req(e, method, url, text);
    int fd = strcmp(method, "GET") == 0 ? take_ahead(e, url) : -1;
    if (strcmp(method, "GET") != 0)
        cp_engine_prefetch_drop(e);
    if (fd >= 0) {
        cleanup_error cp_error_t ahead_err = NULL;
        if (cp_http_unix_receive(fd, &req, resp, &ahead_err) == 0)
            return 0;
        cp_debug("the answer sent ahead: %s; asking again", ahead_err->msg);
        cp_http_resp_dispose(resp);
    }
    if (cp_http_perform(&e->curl, &req, resp, err) < 0)
        return cp_error_wrap(err, "engine on %s", e->socket);
    return 0;
}

int cp_engine_call_status(struct cp_engine *e, const char *method, const char *path,
                          json_object *body, long *status_out, json_object **reply_out,
                          cp_error_t *err)
{
    cleanup_http_resp struct cp_http_resp resp = {0};
    if (perform(e, method, path, body, &resp, err) < 0)
        return cp_error_code(err);
    *status_out = resp.status;
    /* Not JSON (plain-text errors) leaves *reply_out NULL: the status says enough. */
    cleanup_json json_object *reply = NULL;
    if (resp.body.len > 0)
        (void)cp_json_parse(resp.body.data, resp.body.len, path, &reply, NULL);
    /* No caller can branch its way past a broken service. */
    if (broken_service(e, resp.status, reply))
        return judge(e, resp.status, method, path, &resp, err);
    if (reply_out != NULL)
        *reply_out = steal_pointer(&reply);
    return 0;
}

int cp_engine_call(struct cp_engine *e, const char *method, const char *path, json_object *body,
                   json_object **reply_out, cp_error_t *err)
{
    cleanup_http_resp struct cp_http_resp resp = {0};
    if (perform(e, method, path, body, &resp, err) < 0 ||
        judge(e, resp.status, method, path, &resp, err) < 0)
        return cp_error_code(err);
    if (reply_out != NULL && resp.body.len > 0 &&
        cp_json_parse(resp.body.data, resp.body.len, path, reply_out, err) < 0)
        return cp_error_wrap(err, "engine on %s", e->socket);
    return 0;
}

int cp_engine_get_bytes(struct cp_engine *e, const char *path, long *status_out, char **body_out,
                        size_t *len_out, cp_error_t *err)
{
    cleanup_http_resp struct cp_http_resp resp = {0};
    if (perform(e, "GET", path, NULL, &resp, err) < 0)
        return cp_error_code(err);
    *status_out = resp.status;
    *len_out = resp.body.len;
    *body_out = cp_buf_steal(&resp.body);
    return 0;
}

/* Streamed endpoints answer 200 and report failures in a JSON line of the body. */
static int scan_stream_errors(const struct cp_buf *body, cp_error_t *err)
{
    const char *p = body->data;
    while (p != NULL && *p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        cleanup_json json_object *j = NULL;
        if (len > 0 && cp_json_parse(p, len, "progress", &j, NULL) == 0) {
            const char *e = cp_json_str(j, "error");
            if (e != NULL)
                return cp_error_make(err, CP_ERR_FAILED, 0, "the engine failed: %s", e);
        }
        p = eol ? eol + 1 : NULL;
    }
    return 0;
}

int cp_engine_upload(struct cp_engine *e, const char *path, const char *content_type,
                     long (*reader)(void *ctx, char *buf, size_t len), void *ctx, long timeout_ms,
                     cp_error_t *err)
{
    cleanup_free char *url = xasprintf("http://localhost/v%s%s", e->version, path);
    struct cp_http_req req = {.method = "POST",
                              .url = url,
                              .unix_socket = e->socket,
                              .content_type = content_type,
                              .reader = reader,
                              .reader_ctx = ctx,
                              .timeout_ms = timeout_ms,
                              .max_body = 4 * 1024 * 1024,
                              .signal_grace_ms = e->signal_grace_ms};
    cleanup_http_resp struct cp_http_resp resp = {0};
    if (cp_http_perform(&e->curl, &req, &resp, err) < 0)
        return cp_error_wrap(err, "engine on %s", e->socket);
    if (judge(e, resp.status, "POST", path, &resp, err) < 0)
        return cp_error_code(err);
    return scan_stream_errors(&resp.body, err);
}

int cp_engine_libpod_call(struct cp_engine *e, const char *method, const char *path,
                          json_object *body, long *status_out, json_object **reply_out,
                          cp_error_t *err)
{
    char saved[sizeof(e->version)];
    memcpy(saved, e->version, sizeof(saved));
    snprintf(e->version, sizeof(e->version), "%s", LIBPOD_API);
    int r = cp_engine_call_status(e, method, path, body, status_out, reply_out, err);
    memcpy(e->version, saved, sizeof(saved));
    return r;
}

static bool has_rootless(json_object *opts)
{
    for (size_t i = 0;
         json_object_is_type(opts, json_type_array) && i < json_object_array_length(opts); i++) {
        const char *o = json_object_get_string(json_object_array_get_idx(opts, i));
        if (o != NULL && strstr(o, "name=rootless") != NULL)
            return true;
    }
    return false;
}

/* The limits Docker's /info says it cannot apply, in the box-spec's words. */
static void unsupported_limits(json_object *info, char *out, size_t size)
{
    static const struct {
        const char *key, *name;
    } caps[] = {{"PidsLimit", "pids"}, {"MemoryLimit", "memory"}, {"CpuCfsQuota", "CPUs"}};
    out[0] = '\0';
    for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
        json_object *v = NULL;
        if (json_object_object_get_ex(info, caps[i].key, &v) && !json_object_get_boolean(v))
            snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? ", " : "",
                     caps[i].name);
    }
}

/* Docker says so in its SecurityOptions. Podman 4's compatible /info does not (measured:
 * rootless Podman 4.3 lists only seccomp there), so libpod's own info is asked. */
int cp_engine_rootless(struct cp_engine *e, bool *out, cp_error_t *err)
{
    if (e->rootless_known) {
        *out = e->rootless;
        return 0;
    }
    cleanup_json json_object *info = NULL;
    long status = 0;
    bool libpod = e->quirks.libpod_routes;
    int r = libpod ? cp_engine_libpod_call(e, "GET", "/libpod/info", NULL, &status, &info, err)
                   : cp_engine_call_status(e, "GET", "/info", NULL, &status, &info, err);
    if (r < 0 || status != 200)
        return r < 0 ? cp_error_wrap(err, "asking the engine how it runs")
                     : cp_error_make(err, CP_ERR_FAILED, 0,
                                     "asking the engine how it runs: HTTP %ld", status);
    json_object *host = NULL, *security = NULL, *opts = NULL, *rootless = NULL;
    if (libpod) {
        json_object_object_get_ex(info, "host", &host);
        json_object_object_get_ex(host, "security", &security);
        json_object_object_get_ex(security, "rootless", &rootless);
        e->rootless = json_object_get_boolean(rootless);
    } else {
        json_object_object_get_ex(info, "SecurityOptions", &opts);
        e->rootless = has_rootless(opts);
        unsupported_limits(info, e->limits_unsupported, sizeof(e->limits_unsupported));
    }
    e->rootless_known = true;
    *out = e->rootless;
    return 0;
}

/* "podman on SOCKET", and how it runs where that is news: without root, started by us. */
char *cp_engine_describe(struct cp_engine *e)
{
    bool rootless = false;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_rootless(e, &rootless, &err) < 0)
        rootless = false;
    return xasprintf("%s on %s%s%s", e->kind, e->socket, rootless ? ", without root" : "",
                     e->started ? ", started by conch-place" : "");
}

const char *cp_engine_kind(const struct cp_engine *e)
{
    return e->kind;
}

void cp_engines_free(struct cp_engine **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        cp_engine_free(v[i]);
    free(v);
}

void cp_cleanup_enginesp(struct cp_engine ***v)
{
    cp_engines_free(*v);
}
