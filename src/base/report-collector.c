/* The run report's collector: a JSON object filled by one-line hooks and written once. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/json.h"
#include "src/base/report.h"
#include "src/base/util.h"

#define REPORT_VERSION 1
/* Every list is bounded: past this many files the rest are only counted ("omitted"). */
#define FILES_MAX 200000
#define HOSTS_MAX 1000

static struct {
    json_object *doc;
    int dirfd; /* the report's folder, opened at start */
    char *name;
    int64_t start_ns, last_ns; /* cp_now_ns() */
    size_t files, hosts;
} R = {.dirfd = -1};

bool cp_run_report_on(void)
{
    return R.doc != NULL;
}

json_object *cp_run_report_document(void)
{
    return R.doc;
}

/* Names from a far side can hold any bytes; JSON text must be UTF-8, so a byte that does not
 * start or continue a valid sequence becomes U+FFFD. */
static json_object *text(const char *s)
{
    size_t n = strlen(s), o = 0;
    cleanup_free char *out = xmalloc(3 * n + 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= n && !(len == 2 && c < 0xc2);
        for (size_t k = 1; ok && k < len; k++)
            ok = ((unsigned char)s[i + k] >> 6) == 2;
        if (ok) {
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    return json_object_new_string_len(out, (int)o);
}

/* Milliseconds with one decimal, written as such (not as a double's 17 digits). */
static json_object *ms_value(double ms)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%.1f", ms);
    return json_object_new_double_s(ms, buf);
}

static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    json_object_object_get_ex(o, key, &v);
    return v;
}

static json_object *skeleton(void)
{
    json_object *doc = json_object_new_object();
    json_object_object_add(doc, "version", json_object_new_int(REPORT_VERSION));
    static const char *const nulls[] = {"place",  "engine", "socket",   "box",     "sandbox",
                                        "host",   "image",  "image_id", "workdir", "chat",
                                        "sealed", "seal",   "allowlist"};
    for (size_t i = 0; i < ARRAY_SIZE(nulls); i++)
        json_object_object_add(doc, nulls[i], NULL);
    json_object_object_add(doc, "refused_hosts", json_object_new_array());
    json_object_object_add(doc, "sign_ins", json_object_new_array());
    json_object *files = json_object_new_object();
    json_object_object_add(files, "how", NULL);
    static const char *const lists[] = {"sent", "back", "refused", "deleted"};
    for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
        json_object_object_add(files, lists[i], json_object_new_array());
    json_object_object_add(files, "omitted", json_object_new_int(0));
    json_object_object_add(doc, "files", files);
    json_object_object_add(doc, "stages", json_object_new_object());
    json_object *ex = json_object_new_object();
    json_object_object_add(ex, "status", NULL);
    json_object_object_add(ex, "whose", NULL);
    json_object_object_add(ex, "error", NULL);
    json_object_object_add(ex, "next", NULL);
    json_object_object_add(doc, "exit", ex);
    return doc;
}

static int split_path(const char *path, char **dir_out, char **name_out, cp_error_t *err)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--report '%s' does not name a file", path);
    *dir_out = slash == NULL   ? xstrdup(".")
               : slash == path ? xstrdup("/")
                               : xasprintf("%.*s", (int)(slash - path), path);
    *name_out = xstrdup(name);
    return 0;
}

int cp_run_report_start(const char *path, cp_error_t *err)
{
    cleanup_free char *dir = NULL, *name = NULL;
    if (split_path(path, &dir, &name, err) < 0)
        return cp_error_code(err);
    cleanup_close int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_USAGE, errno, "--report: cannot open the folder %s", dir);
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        return cp_error_make(err, CP_ERR_USAGE, 0, "--report: %s is a folder", path);
    if (faccessat(fd, ".", W_OK, AT_EACCESS) < 0)
        return cp_error_make(err, CP_ERR_USAGE, errno, "--report: cannot write into %s", dir);
    R.doc = skeleton();
    R.dirfd = steal_fd(&fd);
    R.name = steal_pointer(&name);
    R.start_ns = R.last_ns = cp_now_ns();
    return 0;
}

void cp_run_report_set(const char *key, const char *value)
{
    if (R.doc != NULL)
        json_object_object_add(R.doc, key, value ? text(value) : NULL);
}

void cp_run_report_sealed(bool sealed)
{
    if (R.doc != NULL)
        json_object_object_add(R.doc, "sealed", json_object_new_boolean(sealed));
}

void cp_run_report_take(const char *key, json_object *value)
{
    if (R.doc != NULL)
        json_object_object_add(R.doc, key, value);
    else if (value != NULL)
        json_object_put(value);
}

void cp_run_report_remote(const char *key, const char *id, const char *stage)
{
    cp_run_report_set(key, id);
    cp_run_report_sealed(false);
    cp_run_report_files_how("mirrored");
    cp_run_report_stage(stage);
}

void cp_run_report_files_how(const char *how)
{
    if (R.doc != NULL)
        json_object_object_add(member(R.doc, "files"), "how", json_object_new_string(how));
}

static json_object *file_entry(const char *kind, const char *path, const char *reason)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "path", text(path));
    if (strncmp(kind, "refused_", 8) == 0) {
        json_object_object_add(e, "reason", text(reason ? reason : "refused"));
        json_object_object_add(
            e, "direction",
            json_object_new_string(strcmp(kind + 8, "send") == 0 ? "send" : "back"));
    } else if (strncmp(kind, "deleted_", 8) == 0) {
        json_object_object_add(e, "where", json_object_new_string(kind + 8));
    }
    return e;
}

void cp_run_report_file(const char *kind, const char *path, const char *reason)
{
    if (R.doc == NULL)
        return;
    json_object *files = member(R.doc, "files");
    if (R.files >= FILES_MAX) {
        json_object *omitted = member(files, "omitted");
        json_object_set_int(omitted, json_object_get_int(omitted) + 1);
        return;
    }
    const char *list = strncmp(kind, "refused_", 8) == 0   ? "refused"
                       : strncmp(kind, "deleted_", 8) == 0 ? "deleted"
                                                           : kind;
    json_object *arr = member(files, list);
    if (arr == NULL)
        abort(); /* a kind our own code misspelt */
    R.files++;
    if (strcmp(list, "sent") == 0 || strcmp(list, "back") == 0)
        json_object_array_add(arr, text(path));
    else
        json_object_array_add(arr, file_entry(kind, path, reason));
}

/* The proxy cuts a request's method and path at this; a longer one is cut here too. */
#define REQUEST_TEXT_MAX 200

static json_object *cut_text(const char *s, size_t max)
{
    cleanup_free char *cut = strndup(s, max);
    return text(cut != NULL ? cut : "");
}

void cp_run_report_refused_host(const char *host, unsigned port, const char *reason,
                                const char *method, const char *path)
{
    if (R.doc == NULL || R.hosts >= HOSTS_MAX)
        return;
    json_object *e = json_object_new_object();
    json_object_object_add(e, "host", text(host));
    json_object_object_add(e, "port", json_object_new_int((int)port));
    json_object_object_add(e, "reason", text(reason ? reason : "refused"));
    if (method != NULL)
        json_object_object_add(e, "method", cut_text(method, REQUEST_TEXT_MAX));
    if (path != NULL)
        json_object_object_add(e, "path", cut_text(path, REQUEST_TEXT_MAX));
    json_object_array_add(member(R.doc, "refused_hosts"), e);
    R.hosts++;
}

void cp_run_report_sign_in(const char *host, const char *header)
{
    json_object *list = R.doc != NULL ? member(R.doc, "sign_ins") : NULL;
    if (list == NULL || json_object_array_length(list) >= HOSTS_MAX)
        return;
    for (size_t i = 0; i < json_object_array_length(list); i++) { /* once each */
        json_object *e = json_object_array_get_idx(list, i);
        if (strcmp(json_object_get_string(member(e, "host")), host) == 0 &&
            strcmp(json_object_get_string(member(e, "header")), header) == 0)
            return;
    }
    json_object *e = json_object_new_object();
    json_object_object_add(e, "host", text(host));
    json_object_object_add(e, "header", text(header));
    json_object_array_add(list, e);
}

void cp_run_report_stage(const char *name)
{
    if (R.doc == NULL)
        return;
    int64_t now = cp_now_ns();
    double ms = (double)(now - R.last_ns) / 1e6;
    R.last_ns = now;
    json_object *stages = member(R.doc, "stages");
    json_object *had = member(stages, name);
    if (had != NULL)
        ms += json_object_get_double(had);
    json_object_object_add(stages, name, ms_value(ms));
}

void cp_run_report_exit(int status, const char *whose, const cp_error_t *err)
{
    if (R.doc == NULL)
        return;
    json_object *ex = member(R.doc, "exit");
    json_object_object_add(ex, "status", json_object_new_int(status));
    json_object_object_add(ex, "whose", json_object_new_string(whose));
    if (err != NULL && *err != NULL && (*err)->msg != NULL)
        json_object_object_add(ex, "error", text((*err)->msg));
    if (err != NULL && *err != NULL && (*err)->hint != NULL)
        json_object_object_add(ex, "next", text((*err)->hint));
}

static void stop(void)
{
    json_object_put(R.doc);
    R.doc = NULL;
    if (R.dirfd >= 0)
        close(R.dirfd);
    R.dirfd = -1;
    free(R.name);
    R.name = NULL;
    R.files = R.hosts = 0;
}

/* Written beside its final name and renamed over it, inside the folder opened at start: a
 * reader sees the old report or the whole new one, never part of one. */
static int write_report(const char *data, size_t len, cp_error_t *err)
{
    cleanup_free char *tmp = xasprintf(".%s.tmp.%ld", R.name, (long)getpid());
    cleanup_close int fd =
        openat(R.dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the run report %s", R.name);
    if (cp_write_all(fd, data, len) < 0 || fsync(fd) < 0 ||
        renameat(R.dirfd, tmp, R.dirfd, R.name) < 0) {
        int e = errno;
        unlinkat(R.dirfd, tmp, 0);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot write the run report %s", R.name);
    }
    return 0;
}

int cp_run_report_finish(cp_error_t *err)
{
    if (R.doc == NULL)
        return 0;
    cp_run_report_stage("finish");
    double total = (double)(cp_now_ns() - R.start_ns) / 1e6;
    json_object_object_add(R.doc, "total_ms", ms_value(total));
    const char *s = json_object_to_json_string_ext(R.doc, JSON_C_TO_STRING_PRETTY |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);
    cleanup_free char *withnl = xasprintf("%s\n", s);
    int r = write_report(withnl, strlen(withnl), err);
    stop();
    return r;
}
