/* The warm pool's records, pace and claim (warm-pool.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/warm/warm-pool.h"
#include "src/base/clock.h"
#include "src/base/digest.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define WARM_PREFIX   "conch-warm-"
#define POOL_NAME_LEN 16
/* The pace: of a key's runs in the last PACE_WINDOW_MS, those that came within PACE_CLOSE_MS of
 * the one before. Each keeps one more box ready, up to CP_WARM_POOL_MAX: an assistant's command
 * every 10 s keeps 1; a script's loop, or a command every 1.5 s, keeps up to 8. */
#define PACE_WINDOW_MS 60000
#define PACE_CLOSE_MS  2000
#define PACE_KEPT      16
/* The maker's wait for a pause in the runs (cp_warm_pool_wait_quiet). */
#define QUIET_MS      500
#define QUIET_POLL_MS 50
#define QUIET_MAX_MS  20000
/* Files of a pool nobody claimed from for this long are gone with their boxes. */
#define STALE_SECS 3600

struct record {
    char name[64];
    char id[72];
    long made;
};

char *cp_warm_name(void)
{
    char rnd[17];
    return xasprintf(WARM_PREFIX "%s", cp_box_random_hex(rnd, sizeof(rnd)));
}

bool cp_warm_unclaimed(const char *name)
{
    if (name != NULL && name[0] == '/')
        name++;
    return name != NULL && strncmp(name, WARM_PREFIX, strlen(WARM_PREFIX)) == 0;
}

char *cp_warm_pool_name(const char *socket, const char *key)
{
    cleanup_free char *text = xasprintf("%s\n%s", socket, key);
    uint8_t d[CP_SHA256_LEN];
    cp_sha256(text, strlen(text), d);
    char hex[2 * CP_SHA256_LEN + 1];
    cp_hex(d, sizeof(d), hex);
    hex[POOL_NAME_LEN] = '\0';
    return xstrdup(hex);
}

bool cp_warm_pool_name_ok(const char *pool)
{
    return pool != NULL && strlen(pool) == POOL_NAME_LEN &&
           strspn(pool, "0123456789abcdef") == POOL_NAME_LEN;
}

static int pool_dir(char **out, cp_error_t *err)
{
    cleanup_free char *wp = NULL;
    if (cp_workplaces_dir(&wp, err) < 0)
        return cp_error_code(err);
    cleanup_free char *dir = xasprintf("%s/warm", wp);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    *out = steal_pointer(&dir);
    return 0;
}

/* The file at path, opened and locked (how: flock's LOCK_EX, with LOCK_NB not to wait). */
static int lock_file(const char *path, int how, cp_error_t *err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    if (flock(fd, how) < 0) {
        int e = errno;
        close(fd);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot lock %s", path);
    }
    return fd;
}

int cp_warm_pool_lock(const char *pool, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (pool_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/%s.lock", dir, pool);
    return lock_file(path, LOCK_EX | LOCK_NB, err);
}

/* The record file's name for a box: POOL.NAME. */
static char *record_path(const char *dir, const char *pool, const char *name)
{
    return xasprintf("%s/%s.%s", dir, pool, name);
}

int cp_warm_pool_add(const char *pool, const char *name, const char *id, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (pool_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = record_path(dir, pool, name);
    cleanup_free char *text = xasprintf("%s %lld\n", id, (long long)time(NULL));
    return cp_write_file_atomic(path, text, strlen(text), 0600, err);
}

/* Reads one record; false for anything not of our making. */
static bool read_record(const char *dir, const char *file, const char *pool, struct record *r)
{
    const char *name = file + POOL_NAME_LEN + 1;
    if (strncmp(file, pool, POOL_NAME_LEN) != 0 || file[POOL_NAME_LEN] != '.' ||
        !cp_warm_unclaimed(name) || strlen(name) >= sizeof(r->name))
        return false;
    cleanup_free char *path = xasprintf("%s/%s", dir, file);
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (cp_read_file(path, 256, &text, &len, NULL) < 0)
        return false;
    long long made = 0;
    char id[sizeof(r->id)];
    if (sscanf(text, "%71s %lld", id, &made) != 2 || strspn(id, "0123456789abcdef") != 64 ||
        strlen(id) != 64)
        return false;
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->id, sizeof(r->id), "%s", id);
    r->made = (long)made;
    return true;
}

static bool is_stale_file(const char *dir, const char *file, time_t now)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, file);
    struct stat st;
    return lstat(path, &st) == 0 && now - st.st_mtime > STALE_SECS;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Whether nobody holds the file's lock (files that are no lock: true). */
static bool unlocked(const char *dir, const char *file)
{
    if (!ends_with(file, ".lock") && !ends_with(file, ".used"))
        return true;
    cleanup_free char *path = xasprintf("%s/%s", dir, file);
    cleanup_close int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    return fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
}

static int older_first(const void *a, const void *b)
{
    const struct record *x = a, *y = b;
    return (x->made > y->made) - (x->made < y->made);
}

/* The pool's records young enough to claim, oldest first (at most CP_WARM_POOL_MAX * 2); older
 * ones, and any file of this folder unused for an hour, are removed on the way. */
static size_t read_records(const char *dir, const char *pool, struct record *out, size_t max)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    time_t now = time(NULL);
    size_t n = 0;
    for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
        if (ent->d_name[0] == '.')
            continue;
        struct record r;
        bool mine = read_record(dir, ent->d_name, pool, &r);
        bool young = mine && now - r.made >= 0 && now - r.made < CP_WARM_CLAIM_MAX;
        if (young) {
            if (n < max)
                out[n++] = r;
            continue;
        }
        /* A refill lock goes too once unused for an hour: a maker that still held it made at
         * most one box over the pool's size. */
        if (mine || (is_stale_file(dir, ent->d_name, now) && unlocked(dir, ent->d_name))) {
            cleanup_free char *path = xasprintf("%s/%s", dir, ent->d_name);
            unlink(path);
        }
    }
    closedir(d);
    qsort(out, n, sizeof(*out), older_first);
    return n;
}

int cp_warm_pool_ready(const char *pool)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (pool_dir(&dir, &err) < 0)
        return 0;
    struct record r[CP_WARM_POOL_MAX * 2];
    return (int)read_records(dir, pool, r, ARRAY_SIZE(r));
}

/* The pool's pace file's runs, oldest first (at most PACE_KEPT - 1, room for one more). */
static size_t read_times(const char *path, long long times[PACE_KEPT])
{
    cleanup_free char *text = NULL;
    size_t len = 0, n = 0;
    if (cp_read_file(path, 4096, &text, &len, NULL) < 0)
        return 0;
    for (char *p = text, *end;; p = end) {
        long long t = strtoll(p, &end, 10);
        if (end == p)
            break;
        if (n == PACE_KEPT - 1) { /* the oldest goes */
            memmove(times, times + 1, (n - 1) * sizeof(*times));
            n--;
        }
        times[n++] = t;
    }
    return n;
}

static char *pace_path(const char *pool)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (pool_dir(&dir, &err) < 0)
        return NULL;
    return xasprintf("%s/%s.pace", dir, pool);
}

static int pace(const char *pool, bool note, long long now)
{
    cleanup_free char *path = pace_path(pool);
    if (path == NULL)
        return 1;
    long long times[PACE_KEPT];
    size_t n = read_times(path, times);
    if (note)
        times[n++] = now;
    int want = 1;
    char out[PACE_KEPT * 24] = "";
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && now - times[i] < PACE_WINDOW_MS && times[i] - times[i - 1] >= 0 &&
            times[i] - times[i - 1] < PACE_CLOSE_MS)
            want++;
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%lld\n", times[i]);
    }
    if (note)
        (void)cp_write_file_atomic(path, out, strlen(out), 0600, NULL);
    int most = cp_warm_pool_most();
    return want > most ? most : want;
}

int cp_warm_pool_pace_at(const char *pool, long long now_ms)
{
    return pace(pool, true, now_ms);
}

int cp_warm_pool_pace(const char *pool)
{
    return cp_warm_pool_pace_at(pool, (long long)cp_wall_ms());
}

int cp_warm_pool_want(const char *pool)
{
    return pace(pool, false, (long long)cp_wall_ms());
}

/* Whether the claimed box is the run's: made for the key, a warm box, young, running. */
static bool box_fits(json_object *box, const char *key)
{
    json_object *config = NULL, *labels = NULL, *state = NULL, *running = NULL;
    json_object_object_get_ex(box, "Config", &config);
    json_object_object_get_ex(config, "Labels", &labels);
    json_object_object_get_ex(box, "State", &state);
    json_object_object_get_ex(state, "Running", &running);
    const char *k = cp_json_str(labels, "conch.key"), *warm = cp_json_str(labels, "conch.warm");
    const char *made = cp_json_str(labels, "conch.made");
    long t = 0;
    if (k == NULL || strcmp(k, key) != 0 || warm == NULL || strcmp(warm, "1") != 0 ||
        made == NULL || cp_parse_long(made, 0, (long)1 << 62, &t) < 0 ||
        !json_object_get_boolean(running))
        return false;
    long age = (long)time(NULL) - t;
    return age >= 0 && age < CP_WARM_CLAIM_MAX;
}

/* Reads the recorded box, and renames it to name only when it is the run's: 1 then, 0 when it is
 * gone or not the run's (then removed), or an error. A box that is not taken never holds the
 * run's name, which the run's fresh box is made with next (one rejected after its rename once
 * kept the name while the engine removed it: the fresh box's create met 409). */
static int take(struct cp_engine *e, const struct record *r, const char *key, const char *name,
                char **id_out, json_object **box_out, cp_error_t *err)
{
    cleanup_free char *ipath = xasprintf("/containers/%s/json", r->id);
    cleanup_json json_object *box = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "GET", ipath, NULL, &status, &box, err) < 0)
        return cp_error_code(err);
    if (status == 404)
        return 0;
    if (status != 200 || !box_fits(box, key)) {
        cp_debug("warm box %s is not this run's: removed (HTTP %ld)", r->name, status);
        cleanup_error cp_error_t rm = NULL;
        (void)cp_box_remove(e, r->id, &rm);
        return 0;
    }
    /* Claims are one at a time (warm.lock) and the record is gone: only the box's own end (its
     * waiter's time) can come between, and then the rename fails or the attach finds it gone. */
    cleanup_free char *path = xasprintf("/containers/%s/rename?name=%s", r->id, name);
    if (cp_engine_call_status(e, "POST", path, NULL, &status, NULL, err) < 0)
        return cp_error_code(err);
    if (status != 204 && status != 200)
        return 0;
    cp_debug("renamed");
    *id_out = xstrdup(r->id);
    *box_out = steal_pointer(&box);
    return 1;
}

int cp_warm_pool_claim(struct cp_engine *e, const char *pool, const char *key, const char *name,
                       char **id_out, char **was_out, json_object **box_out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (pool_dir(&dir, err) < 0)
        return cp_error_code(err);
    /* Outside the pool's folder, where nothing is ever removed: one claim at a time. */
    cleanup_free char *wp = NULL;
    if (cp_workplaces_dir(&wp, err) < 0)
        return cp_error_code(err);
    cleanup_free char *lock_path = xasprintf("%s/warm.lock", wp);
    cleanup_close int lock = lock_file(lock_path, LOCK_EX, err);
    if (lock < 0)
        return cp_error_code(err);
    (void)cp_warm_pool_pace(pool);
    struct record r[CP_WARM_POOL_MAX * 2];
    size_t n = read_records(dir, pool, r, ARRAY_SIZE(r));
    for (size_t i = 0; i < n; i++) {
        cleanup_free char *path = record_path(dir, pool, r[i].name);
        unlink(path); /* taken or gone: either way not ready any more */
        int got = take(e, &r[i], key, name, id_out, box_out, err);
        if (got < 0)
            return cp_error_code(err);
        if (got > 0) {
            *was_out = xstrdup(r[i].name);
            return 1;
        }
    }
    return 0;
}

/* The list of used boxes handed to the pool's maker (POOL.used, "ID LAYER" lines, "-" for no
 * layer), opened and locked. */
static int open_used(const char *pool, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (pool_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/%s.used", dir, pool);
    return lock_file(path, LOCK_EX, err);
}

static bool plain_word(const char *s)
{
    return s != NULL && s[0] != '\0' && strlen(s) < 128 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(s);
}

int cp_warm_pool_hand_over(const char *pool, const char *used_id, const char *used_layer)
{
    cleanup_error cp_error_t err = NULL;
    if (!cp_warm_pool_name_ok(pool) || !plain_word(used_id) ||
        (used_layer != NULL && !plain_word(used_layer)))
        return 0;
    cleanup_close int used = open_used(pool, &err);
    if (used < 0)
        return 0;
    /* The maker holds the refill lock until it has read this list empty, under this list's
     * lock: a box is either read by it, or finds no maker and is left to the run. */
    int maker = cp_warm_pool_lock(pool, &err);
    if (maker >= 0) {
        close(maker);
        return 0;
    }
    cleanup_free char *line = xasprintf("%s %s\n", used_id, used_layer ? used_layer : "-");
    if (lseek(used, 0, SEEK_END) < 0 || cp_write_all(used, line, strlen(line)) < 0)
        return 0;
    cp_debug("the used box is handed to the work behind an earlier run");
    return 1;
}

int cp_warm_pool_take_used(const char *pool, int *refill_lock, struct cp_warm_used *out, size_t max)
{
    cleanup_error cp_error_t err = NULL;
    cleanup_close int used = open_used(pool, &err);
    if (used < 0) {
        close(*refill_lock); /* the list cannot be read: its boxes go to the next sweep */
        *refill_lock = -1;
        return 0;
    }
    cleanup_free char *text = NULL;
    size_t len = 0, n = 0;
    if (lseek(used, 0, SEEK_SET) == 0 &&
        cp_read_fd("used boxes", used, 64 * 1024, &text, &len, &err) == 0) {
        for (char *p = text, *save = NULL, *l; n < max && (l = strtok_r(p, "\n", &save)) != NULL;
             p = NULL) {
            char id[128], layer[128];
            if (sscanf(l, "%127s %127s", id, layer) == 2 && plain_word(id) && plain_word(layer)) {
                snprintf(out[n].id, sizeof(out[n].id), "%s", id);
                snprintf(out[n].layer, sizeof(out[n].layer), "%s", strcmp(layer, "-") ? layer : "");
                n++;
            }
        }
    }
    if (ftruncate(used, 0) < 0)
        cp_debug("cannot empty the list of used boxes");
    if (n == 0) {
        close(*refill_lock);
        *refill_lock = -1;
    }
    return (int)n;
}

/* Whether a box that takes make_ms can be made now without a run coming while it is made: the
 * runs have paused for QUIET_MS, and the next one, due as long after the last as the last came
 * after the one before, is further than make_ms away (or overdue by QUIET_MS: the pace broke). */
static bool time_to_make(const char *path, long make_ms)
{
    long long times[PACE_KEPT];
    size_t n = read_times(path, times);
    long long now = (long long)cp_wall_ms();
    if (n == 0 || now - times[n - 1] >= PACE_WINDOW_MS)
        return true;
    if (now - times[n - 1] < QUIET_MS)
        return false;
    if (n < 2 || times[n - 1] - times[n - 2] >= PACE_WINDOW_MS)
        return true;
    long long due = times[n - 1] + (times[n - 1] - times[n - 2]);
    return due - now > make_ms || now - due >= QUIET_MS;
}

int cp_warm_pool_wait_quiet(const char *pool, int ready, long make_ms)
{
    cleanup_free char *path = pace_path(pool);
    for (int waited = 0; path != NULL && ready > 0 && waited < QUIET_MAX_MS;
         waited += QUIET_POLL_MS) {
        if (time_to_make(path, make_ms))
            break;
        usleep(QUIET_POLL_MS * 1000);
        ready = cp_warm_pool_ready(pool);
    }
    return ready;
}

void cp_warm_pool_forget(void)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (pool_dir(&dir, &err) < 0)
        return;
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
        const char *dot = strchr(ent->d_name, '.');
        if (dot != NULL && dot - ent->d_name == POOL_NAME_LEN && cp_warm_unclaimed(dot + 1)) {
            cleanup_free char *path = xasprintf("%s/%s", dir, ent->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

int cp_warm_pool_most(void)
{
    const char *v = getenv("CONCH_WARM_POOL");
    long n = CP_WARM_POOL_MAX;
    if (v != NULL && v[0] != '\0' && cp_parse_long(v, 1, CP_WARM_POOL_MAX, &n) < 0)
        n = CP_WARM_POOL_MAX;
    return (int)n;
}
