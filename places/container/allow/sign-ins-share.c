/* Overlapping runs of one folder share their named sign-ins' placeholders. Each run's message
 * replaces the sidecar's whole table, so a run that made placeholders of its own while another
 * run of the folder was going would take the first run's out from under its box: the sidecar
 * still signs that box's requests to the host (the named header is replaced whole), but no
 * longer knows its placeholder, so one sent elsewhere leaves unrefused. The folder's boxes are
 * one trust domain and reach only this sidecar, so a run that starts while another is live
 * takes that run's placeholders; once none is live, the next run makes new ones. The runs and
 * placeholders are kept in a file of ours per sidecar
 * ($CONCH_HOME/workplaces/sign-in-share-ID.json, 0600), under its own lock; a run is live while its
 * process is (its pid and that pid's start time), so a crash frees its turn. No secret is kept
 * there: a placeholder is worth nothing but through this folder's sidecar. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "places/container/allow/sign-ins.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/proc-start.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define SHARE_MAX (256 * 1024)

static bool run_live(json_object *run)
{
    long pid = (long)cp_json_int(run, "pid", 0);
    const char *start = cp_json_str(run, "start");
    cleanup_free char *now = pid > 0 ? cp_process_start(pid) : NULL;
    return now != NULL && start != NULL && strcmp(now, start) == 0;
}

/* The file for sidecar id, opened and locked: its descriptor, or -1 (said in debug). */
static int share_open(const char *sidecar_id)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (sidecar_id == NULL || strspn(sidecar_id, "0123456789abcdef") != strlen(sidecar_id) ||
        cp_workplaces_dir(&dir, &err) < 0)
        return -1;
    cleanup_free char *path = xasprintf("%s/sign-in-share-%.64s.json", dir, sidecar_id);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    while (fd >= 0 && flock(fd, LOCK_EX) < 0 && errno == EINTR)
        ;
    if (fd < 0)
        cp_debug("%s: %s", path, strerror(errno));
    return fd;
}

/* The file's document, or an empty one when it is empty or not ours to read. */
static json_object *share_read(int fd)
{
    cleanup_free char *text = xcalloc(1, SHARE_MAX + 1);
    ssize_t n = pread(fd, text, SHARE_MAX, 0);
    json_object *doc = n > 0 ? json_tokener_parse(text) : NULL;
    if (doc == NULL || !json_object_is_type(doc, json_type_object)) {
        if (doc != NULL)
            json_object_put(doc);
        doc = json_object_new_object();
    }
    return doc;
}

static void share_write(int fd, json_object *doc)
{
    const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
    size_t len = strlen(text);
    if (ftruncate(fd, 0) < 0 || pwrite(fd, text, len, 0) != (ssize_t)len)
        cp_debug("the sign-ins' share file: %s", strerror(errno));
}

/* The runs still live, except box's. The caller's. */
static json_object *live_runs(json_object *doc, const char *box)
{
    json_object *runs = NULL, *out = json_object_new_array();
    if (!json_object_object_get_ex(doc, "runs", &runs) ||
        !json_object_is_type(runs, json_type_array))
        return out;
    for (size_t i = 0; i < json_object_array_length(runs); i++) {
        json_object *r = json_object_array_get_idx(runs, i);
        const char *b = cp_json_str(r, "box");
        if (b != NULL && strcmp(b, box) != 0 && run_live(r))
            json_object_array_add(out, json_object_get(r));
    }
    return out;
}

static char *share_key(const struct cp_sign_in *s)
{
    return xasprintf("%s\t%s\t%s", s->host, s->prefix, s->header);
}

/* Takes a live run's placeholders for the sign-ins both have; then ours are the table's. */
static void take_theirs(struct cp_sign_ins *s, json_object *doc, json_object *out)
{
    json_object *had = NULL;
    json_object_object_get_ex(doc, "placeholders", &had);
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].placeholder == NULL)
            continue;
        cleanup_free char *key = share_key(&s->v[i]);
        const char *theirs = had != NULL ? cp_json_str(had, key) : NULL;
        if (theirs != NULL &&
            strspn(theirs, "-_0123456789abcdefghijklmnopqrstuvwxyz") == strlen(theirs) &&
            strlen(theirs) >= 16) {
            cp_free_secret(s->v[i].placeholder);
            s->v[i].placeholder = xstrdup(theirs);
        }
        json_object_object_add(out, key, json_object_new_string(s->v[i].placeholder));
    }
}

void cp_sign_ins_share(struct cp_sign_ins *s, const char *sidecar_id, const char *box)
{
    if (!cp_sign_ins_any_named(s))
        return;
    cleanup_close int fd = share_open(sidecar_id);
    if (fd < 0)
        return; /* then this run's own placeholders, as if it were alone */
    cleanup_json json_object *doc = share_read(fd);
    json_object *runs = live_runs(doc, box), *placeholders = json_object_new_object();
    bool shared = json_object_array_length(runs) > 0;
    take_theirs(s, shared ? doc : NULL, placeholders);
    json_object *me = json_object_new_object();
    cleanup_free char *start = cp_process_start((long)getpid());
    json_object_object_add(me, "box", json_object_new_string(box));
    json_object_object_add(me, "pid", json_object_new_int64((int64_t)getpid()));
    json_object_object_add(me, "start", json_object_new_string(start ? start : ""));
    json_object_array_add(runs, me);
    cleanup_json json_object *next = json_object_new_object();
    json_object_object_add(next, "runs", runs);
    json_object_object_add(next, "placeholders", placeholders);
    share_write(fd, next);
    if (shared)
        cp_debug("named sign-ins: this run shares the placeholders of a run going beside it");
}

void cp_sign_ins_unshare(const char *sidecar_id, const char *box)
{
    cleanup_close int fd = share_open(sidecar_id);
    if (fd < 0)
        return;
    cleanup_json json_object *doc = share_read(fd);
    json_object *runs = live_runs(doc, box), *had = NULL;
    cleanup_json json_object *next = json_object_new_object();
    if (json_object_array_length(runs) > 0 && json_object_object_get_ex(doc, "placeholders", &had))
        json_object_object_add(next, "placeholders", json_object_get(had));
    json_object_object_add(next, "runs", runs); /* none live: the next run makes new ones */
    share_write(fd, next);
}
