/* Toolbox calls: {toolboxProxyUrl}/{sandboxId}{daemonPath}, the same Bearer key. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/cloud/toolbox.h"
#include "src/base/json.h"
#include "src/base/util.h"

/* A real semver at or above 0.167.0 gets stdout and stderr apart from the sessions API. */
#define SPLIT_OUTPUT_VERSION "X-Daytona-SDK-Version: 0.190.0"
#define LOGS_MAX             (64 * 1024 * 1024)
#define TRANSFER_TIMEOUT_MS  (30L * 60 * 1000)

int cp_toolbox_open(struct cp_daytona *d, const struct cp_sandbox *sb, struct cp_toolbox *out,
                    cp_error_t *err)
{
    cleanup_free char *origin = NULL;
    out->d = d;
    if (sb->toolbox[0] == '\0')
        return cp_error_make(err, CP_ERR_FAILED, 0, "sandbox %s names no toolbox URL", sb->id);
    if (cp_daytona_origin(sb->toolbox, &origin, NULL, err) < 0)
        return cp_error_wrap(err, "sandbox %s's toolbox URL", sb->id);
    /* Only the toolbox host /api/config named; a preview host serves the sandbox itself. */
    if (d->toolbox_origin == NULL || strcmp(origin, d->toolbox_origin) != 0) {
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "sandbox %s names its toolbox at %s, not at %s as the API's own "
                      "configuration says; refused before anything was sent",
                      sb->id, origin, d->toolbox_origin ? d->toolbox_origin : "(none)");
        cp_error_hint(err, "Check cloud.api_url names the Daytona you trust.");
        return CP_ERR_UNSAFE;
    }
    size_t n = strlen(sb->toolbox);
    while (n > 0 && sb->toolbox[n - 1] == '/')
        n--;
    out->base = xasprintf("%.*s/%s", (int)n, sb->toolbox, sb->id);
    return 0;
}

void cp_toolbox_dispose(struct cp_toolbox *t)
{
    free(t->base);
    t->base = NULL;
}

static int get_json(struct cp_toolbox *t, const char *path, json_object **out, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s%s", t->base, path);
    struct cp_daytona_call c = {.method = "GET", .url = url, .retry_5xx = true};
    return cp_daytona_request(t->d, &c, out, err);
}

static int get_string(struct cp_toolbox *t, const char *path, const char *key, char **out,
                      cp_error_t *err)
{
    cleanup_json json_object *o = NULL;
    if (get_json(t, path, &o, err) < 0)
        return cp_error_code(err);
    const char *v = cp_json_str(o, key);
    if (v == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the toolbox's %s has no \"%s\"", path, key);
    *out = xstrdup(v);
    return 0;
}

int cp_toolbox_home(struct cp_toolbox *t, char **out, cp_error_t *err)
{
    if (get_string(t, "/user-home-dir", "dir", out, err) < 0)
        return cp_error_code(err);
    if ((*out)[0] != '/') {
        free(*out);
        *out = NULL;
        return cp_error_make(err, CP_ERR_FAILED, 0, "the sandbox's home is not an absolute path");
    }
    return 0;
}

int cp_toolbox_version(struct cp_toolbox *t, char **out, cp_error_t *err)
{
    return get_string(t, "/version", "version", out, err);
}

int cp_toolbox_execute(struct cp_toolbox *t, const char *command, long timeout_s, int *exit_out,
                       char **result_out, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/process/execute", t->base);
    cleanup_json json_object *body = json_object_new_object();
    json_object_object_add(body, "command", json_object_new_string(command));
    if (timeout_s > 0)
        json_object_object_add(body, "timeout", json_object_new_int64(timeout_s));
    cleanup_json json_object *o = NULL;
    /* A command is never sent twice after a 5xx: it may have run. */
    struct cp_daytona_call c = {
        .method = "POST",
        .url = url,
        .body = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN),
        .timeout_ms = timeout_s > 0 ? (timeout_s + 5) * 1000 : TRANSFER_TIMEOUT_MS,
    };
    if (cp_daytona_request(t->d, &c, &o, err) < 0)
        return cp_error_code(err);
    json_object *code = NULL;
    if (!json_object_object_get_ex(o, "exitCode", &code) &&
        !json_object_object_get_ex(o, "code", &code))
        return cp_error_make(err, CP_ERR_FAILED, 0, "process/execute gave no exit code");
    *exit_out = json_object_get_int(code);
    if (result_out != NULL) {
        const char *r = cp_json_str(o, "result");
        *result_out = xstrdup(r ? r : "");
    }
    return 0;
}

/* The upload's file part, read from fd as libcurl asks (it may rewind to retry a send). */
struct upload_src {
    int fd;
    off_t off;
};

static size_t upload_read(char *buf, size_t size, size_t n, void *ctx)
{
    struct upload_src *u = ctx;
    for (;;) {
        ssize_t r = pread(u->fd, buf, size * n, u->off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return CURL_READFUNC_ABORT;
        u->off += r;
        return (size_t)r;
    }
}

static int upload_seek(void *ctx, curl_off_t offset, int origin)
{
    struct upload_src *u = ctx;
    if (origin != SEEK_SET || offset < 0)
        return CURL_SEEKFUNC_CANTSEEK;
    u->off = (off_t)offset;
    return CURL_SEEKFUNC_OK;
}

static void cleanup_mimep(curl_mime **m)
{
    curl_mime_free(*m);
}

/* libcurl's mime API writes the multipart body under a random boundary of its own, so no
 * file's bytes can end a part early (issue 13: a fixed boundary broke on a file holding it). */
int cp_toolbox_upload(struct cp_toolbox *t, const char *dest, int fd, cp_error_t *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read the upload");
    if (t->d->curl == NULL && (t->d->curl = curl_easy_init()) == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot start libcurl");
    struct upload_src src = {.fd = fd, .off = 0};
    __attribute__((cleanup(cleanup_mimep))) curl_mime *mime = curl_mime_init(t->d->curl);
    curl_mimepart *path = mime ? curl_mime_addpart(mime) : NULL;
    curl_mimepart *file = mime ? curl_mime_addpart(mime) : NULL;
    if (file == NULL || curl_mime_name(path, "files[0].path") != CURLE_OK ||
        curl_mime_data(path, dest, CURL_ZERO_TERMINATED) != CURLE_OK ||
        curl_mime_name(file, "files[0].file") != CURLE_OK ||
        curl_mime_filename(file, "upload") != CURLE_OK ||
        curl_mime_type(file, "application/octet-stream") != CURLE_OK ||
        curl_mime_data_cb(file, (curl_off_t)st.st_size, upload_read, upload_seek, NULL, &src) !=
            CURLE_OK)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot build the upload");
    cleanup_free char *url = xasprintf("%s/files/bulk-upload", t->base);
    long status = 0;
    struct cp_daytona_call c = {.method = "POST",
                                .url = url,
                                .mime = mime,
                                .timeout_ms = TRANSFER_TIMEOUT_MS,
                                .status_out = &status};
    if (cp_daytona_request(t->d, &c, NULL, err) == 0)
        return 0;
    if (status == 507 && *err != NULL) /* Insufficient Storage: the sandbox's disk is full */
        (*err)->sys_errno = ENOSPC;
    return cp_error_wrap(err, "uploading");
}

struct sink {
    int fd;
    size_t got, max;
};

static int sink_write(void *ctx, const char *data, size_t len)
{
    struct sink *s = ctx;
    if (len > s->max - s->got)
        return -1;
    s->got += len;
    return cp_write_all(s->fd, data, len);
}

int cp_toolbox_download(struct cp_toolbox *t, const char *path, int fd, size_t max, cp_error_t *err)
{
    cleanup_free char *q = cp_daytona_escape(t->d, path);
    cleanup_free char *url = xasprintf("%s/files/download?path=%s", t->base, q);
    struct sink s = {.fd = fd, .max = max};
    struct cp_daytona_call c = {.method = "GET",
                                .url = url,
                                .writer = sink_write,
                                .writer_ctx = &s,
                                .timeout_ms = TRANSFER_TIMEOUT_MS,
                                .retry_5xx = true};
    if (cp_daytona_request(t->d, &c, NULL, err) < 0)
        return s.got >= max
                   ? cp_error_make(err, CP_ERR_TOO_BIG, 0, "a download over %zu bytes", max)
                   : cp_error_wrap(err, "downloading");
    return 0;
}

int cp_toolbox_session_create(struct cp_toolbox *t, const char *sid, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/process/session", t->base);
    cleanup_free char *body = xasprintf("{\"sessionId\":\"%s\"}", sid);
    struct cp_daytona_call c = {.method = "POST", .url = url, .body = body, .retry_5xx = true};
    return cp_daytona_request(t->d, &c, NULL, err);
}

int cp_toolbox_session_delete(struct cp_toolbox *t, const char *sid, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/process/session/%s", t->base, sid);
    struct cp_daytona_call c = {.method = "DELETE", .url = url, .retry_5xx = true};
    return cp_daytona_request(t->d, &c, NULL, err);
}

int cp_toolbox_session_exec(struct cp_toolbox *t, const char *sid, const char *command,
                            char **cmd_id_out, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/process/session/%s/exec", t->base, sid);
    cleanup_json json_object *body = json_object_new_object();
    json_object_object_add(body, "command", json_object_new_string(command));
    json_object_object_add(body, "runAsync", json_object_new_boolean(1));
    const char *headers[] = {SPLIT_OUTPUT_VERSION, NULL};
    cleanup_json json_object *o = NULL;
    struct cp_daytona_call c = {
        .method = "POST",
        .url = url,
        .body = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN),
        .headers = headers,
    };
    if (cp_daytona_request(t->d, &c, &o, err) < 0)
        return cp_error_code(err);
    const char *cid = cp_json_str(o, "cmdId");
    size_t n = cid ? strlen(cid) : 0;
    if (n == 0 || n > 128 ||
        strspn(cid, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789-_") != n)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "the session gave an unusable command id");
    *cmd_id_out = xstrdup(cid);
    return 0;
}

int cp_toolbox_command_status(struct cp_toolbox *t, const char *sid, const char *cid,
                              bool *done_out, int *exit_out, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/process/session/%s/command/%s", sid, cid);
    cleanup_json json_object *o = NULL;
    if (get_json(t, path, &o, err) < 0)
        return cp_error_code(err);
    json_object *code = NULL;
    *done_out = json_object_object_get_ex(o, "exitCode", &code) && code != NULL &&
                !json_object_is_type(code, json_type_null);
    *exit_out = *done_out ? json_object_get_int(code) : -1;
    return 0;
}

static int take(json_object *o, const char *key, struct cp_buf *b, cp_error_t *err)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return 0;
    cp_buf_consume(b, b->len);
    if (cp_buf_append(b, json_object_get_string(v), (size_t)json_object_get_string_len(v)) < 0)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the command's output passed %zu bytes",
                             b->max);
    return 0;
}

int cp_toolbox_command_logs(struct cp_toolbox *t, const char *sid, const char *cid,
                            struct cp_buf *out, struct cp_buf *errout, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("%s/process/session/%s/command/%s/logs", t->base, sid, cid);
    const char *headers[] = {SPLIT_OUTPUT_VERSION, NULL};
    cleanup_json json_object *o = NULL;
    struct cp_daytona_call c = {
        .method = "GET", .url = url, .headers = headers, .max_body = LOGS_MAX, .retry_5xx = true};
    if (cp_daytona_request(t->d, &c, &o, err) < 0)
        return cp_error_code(err);
    if (!json_object_is_type(o, json_type_object))
        return cp_error_make(err, CP_ERR_FAILED, 0, "the command's logs are not JSON");
    json_object *so = NULL;
    if (!json_object_object_get_ex(o, "stdout", &so) || json_object_is_type(so, json_type_null))
        return take(o, "output", out, err); /* an older daemon: one stream */
    if (take(o, "stdout", out, err) < 0 || take(o, "stderr", errout, err) < 0)
        return cp_error_code(err);
    return 0;
}
