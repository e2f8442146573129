/* The checked landing. Every name is decided once, on libarchive's final pathname (I1), and
 * the same string is checked, reported and used. Only fd-relative calls touch the work folder
 * after it is opened, and every folder on the way is reopened with O_NOFOLLOW (I6). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive_entry.h>

#include "mirror/archive-util.h"
#include "mirror/landing.h"
#include "mirror/run-keys.h"
#include "mirror/staging.h"
#include "mirror/walk.h"
#include "src/base/util.h"
#include "src/base/report.h"

#define BESIDE_SUFFIX ".conch-far"

/* Up to this many asked files, each staged file is synced on its own; past it one syncfs at
 * the end is cheaper. Either way a file's bytes are on disk before its name is (I7, I9). A
 * syncfs also writes back whatever else is dirty on that file system, which can take
 * seconds on a busy disk for one small file. */
#define FSYNC_EACH_MAX 64

void cp_cleanup_archive_readp(struct archive **a)
{
    if (*a != NULL)
        archive_read_free(*a);
}

void cp_cleanup_archive_writep(struct archive **a)
{
    if (*a != NULL)
        archive_write_free(*a);
}

struct archive *cp_archive_reader_new(void)
{
    struct archive *a = archive_read_new();
    if (a == NULL || archive_read_support_format_tar(a) != ARCHIVE_OK)
        abort();
    return a;
}

static int64_t ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

void cp_sig_from_stat(const struct stat *st, struct cp_sig *out)
{
    *out = (struct cp_sig){.size = (uint64_t)st->st_size,
                           .mtime_ns = ts_ns(&st->st_mtim),
                           .ctime_ns = ts_ns(&st->st_ctim),
                           .ino = (uint64_t)st->st_ino,
                           .mode = st->st_mode & 07777};
}

static int ask_cmp(const void *a, const void *b)
{
    return strcmp(((const struct cp_ask *)a)->path, ((const struct cp_ask *)b)->path);
}

static struct cp_ask *find_ask(struct cp_landing *l, const char *name)
{
    struct cp_ask key = {.path = name};
    return l->n ? bsearch(&key, l->asks, l->n, sizeof(*l->asks), ask_cmp) : NULL;
}

static void refuse(struct cp_landing *l, const char *name, const char *why)
{
    cleanup_free char *shown = cp_escape(name);
    if (strcmp(why, CP_RULES_HOST_RUN) == 0)
        cp_report_host_run(l->rep, name);
    else
        cp_report(l->rep, "refused from the far side: %s (%s)", shown, why);
    cp_run_report_file("refused_back", name, why);
    if (l->rep != NULL)
        l->rep->refused++;
}

/* Whether path is here already (nothing followed) or among the names asked for, as a file or
 * as a folder something asked for lies under: what the folder holds once all of it lands. */
static bool present_after(void *ctx, const char *path)
{
    const struct cp_landing *l = ctx;
    size_t len = strlen(path), lo = 0, hi = l->n;
    while (lo < hi) { /* the first ask not before path */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(l->asks[mid].path, path) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < l->n && strncmp(l->asks[i].path, path, len) == 0; i++)
        if (l->asks[i].path[len] == '\0' || l->asks[i].path[len] == '/')
            return true;
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    struct stat st;
    return cp_walk_parent(l->rootfd, l->dev, path, false, &dirfd, &base, &why) == 0 &&
           fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The rules for a name coming back; .npmrc, .yarnrc.yml and .cargo/config.toml, host-run only
 * for what they are, wait for their keys to be read (commit_one). */
static const char *check_back(const struct cp_rules *rules, const char *path)
{
    const char *why = cp_rules_check_back(rules, path);
    return why != NULL && strcmp(why, CP_RULES_HOST_RUN) == 0 && cp_run_keys_only_keyed(rules, path)
               ? NULL
               : why;
}

int cp_landing_begin(struct cp_landing *l, int rootfd, struct cp_ask *asks, size_t n,
                     const struct cp_rules *rules, uint64_t max_bytes, struct cp_mirror_report *rep,
                     cp_error_t *err)
{
    static unsigned counter;
    struct stat st;
    *l = (struct cp_landing){.rootfd = rootfd,
                             .rules = rules,
                             .max_bytes = max_bytes,
                             .asks = asks,
                             .n = n,
                             .rep = rep,
                             .stagefd = -1};
    if (fstat(rootfd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat the work folder");
    l->dev = (uint64_t)st.st_dev;
    if (n > 0)
        qsort(asks, n, sizeof(*asks), ask_cmp);
    for (size_t i = 0; i < n; i++) {
        const char *why = check_back(rules, asks[i].path);
        if (why == NULL)
            why = cp_rules_repo_shape(asks[i].path, present_after, l);
        asks[i].outcome = why ? CP_LAND_REFUSED : CP_LAND_PENDING;
        if (why != NULL)
            refuse(l, asks[i].path, why);
    }
    snprintf(l->stage_name, sizeof(l->stage_name), "%s%ld-%u", CP_STAGING_PREFIX, (long)getpid(),
             counter++);
    l->stagefd = cp_staging_make(rootfd, l->stage_name);
    if (l->stagefd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s in the work folder",
                             l->stage_name);
    return 0;
}

static int archive_failed(struct archive *a, int code, const char *what, cp_error_t *err)
{
    const char *msg = archive_error_string(a);
    cleanup_free char *shown = cp_escape(msg ? msg : "unknown error");
    return cp_error_make(err, code, 0, "the archive from the far side %s: %s", what, shown);
}

/* I2-I5 on the one name libarchive reports. Returns why the entry is refused, or NULL. */
static const char *judge(struct cp_landing *l, struct archive_entry *e, bool warned,
                         const char *name, struct cp_ask **ask_out)
{
    if (warned)
        return "unreadable header";
    if (name == NULL)
        return "no name";
    struct cp_ask *ask = find_ask(l, name);
    *ask_out = ask;
    if (ask == NULL)
        return "not asked for";
    if (++ask->seen > 1)
        return "sent more than once";
    if (ask->outcome == CP_LAND_REFUSED)
        return "refused";
    const char *why = check_back(l->rules, name);
    if (why != NULL)
        return why;
    if (archive_entry_hardlink(e) != NULL)
        return "a hard link";
    if (archive_entry_symlink(e) != NULL)
        return "a symbolic link";
    if (archive_entry_filetype(e) != AE_IFREG)
        return "not a plain file";
    if (archive_entry_size_is_set(e) && archive_entry_size(e) < 0)
        return "negative size";
    return NULL;
}

static int copy_data(struct cp_landing *l, struct archive *a, int fd, cp_error_t *err)
{
    char buf[64 * 1024];
    for (;;) {
        la_ssize_t n = archive_read_data(a, buf, sizeof(buf));
        if (n < 0)
            return archive_failed(a, CP_ERR_UNSAFE, "is damaged", err);
        if (n == 0)
            return 0;
        l->bytes += (uint64_t)n;
        if (l->bytes > l->max_bytes) {
            int code = cp_error_make(err, CP_ERR_TOO_BIG, 0,
                                     "more than %llu MB came back from the far side; nothing "
                                     "of it landed",
                                     (unsigned long long)(l->max_bytes >> 20));
            cp_error_hint(err, "Move large outputs out of the work folder, or use a container.");
            return code;
        }
        if (cp_write_all(fd, buf, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write in %s", l->stage_name);
    }
}

/* Writes the entry into a fresh staging file (I7): mode and time are set through the fd. */
static int stage(struct cp_landing *l, struct archive *a, struct archive_entry *e,
                 struct cp_ask *ask, cp_error_t *err)
{
    snprintf(ask->tmp, sizeof(ask->tmp), "f%zu", (size_t)(ask - l->asks));
    cleanup_close int fd =
        openat(l->stagefd, ask->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a file in %s", l->stage_name);
    ask->outcome = CP_LAND_STAGED;
    if (copy_data(l, a, fd, err) < 0)
        return cp_error_code(err);
    /* Set-id, sticky and write-for-others never come back; the owner's bits do. */
    ask->mode = (uint32_t)archive_entry_perm(e) & 0755;
    struct timespec ts[2] = {{archive_entry_mtime(e), archive_entry_mtime_nsec(e)}, {0, 0}};
    ts[1] = ts[0];
    if (fchmod(fd, ask->mode) < 0 || futimens(fd, ts) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot set the mode of a staged file");
    if (l->n <= FSYNC_EACH_MAX && fsync(fd) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot sync a staged file");
    return 0;
}

static void unstage(struct cp_landing *l, struct cp_ask *ask)
{
    if (ask->outcome == CP_LAND_STAGED)
        unlinkat(l->stagefd, ask->tmp, 0);
}

static int land_entry(struct cp_landing *l, struct archive *a, struct archive_entry *e, bool warned,
                      cp_error_t *err)
{
    const char *name = archive_entry_pathname(e);
    struct cp_ask *ask = NULL;
    const char *why = judge(l, e, warned, name, &ask);
    if (why == NULL)
        return stage(l, a, e, ask, err);
    /* A name sent twice lands in neither version: the outcome must not depend on order. */
    if (ask != NULL && ask->seen > 1 && ask->outcome != CP_LAND_REFUSED) {
        unstage(l, ask);
        ask->outcome = CP_LAND_REFUSED;
    }
    refuse(l, name ? name : "", why);
    if (++l->refused > CP_LAND_MAX_REFUSED)
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "the far side sent more than %d refused entries; nothing landed",
                             CP_LAND_MAX_REFUSED);
    int r = archive_read_data_skip(a);
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
        return archive_failed(a, CP_ERR_UNSAFE, "is damaged", err);
    return 0;
}

int cp_landing_read(struct cp_landing *l, struct archive *a, cp_error_t *err)
{
    for (;;) {
        struct archive_entry *e = NULL;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            return 0;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) /* RETRY too: a damaged header */
            return archive_failed(a, CP_ERR_UNSAFE, "is damaged", err);
        if (++l->entries > l->n + CP_LAND_MAX_REFUSED)
            return cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side sent too many entries");
        if (land_entry(l, a, e, r == ARCHIVE_WARN, err) < 0)
            return cp_error_code(err);
    }
}

/* Renames without replacing, trying NAME.conch-far, then NAME.conch-far.2 .. .9. */
static int land_beside(struct cp_landing *l, struct cp_ask *ask, int dirfd, const char *base)
{
    for (int i = 1; i <= 9; i++) {
        cleanup_free char *name = i == 1 ? xasprintf("%s%s", base, BESIDE_SUFFIX)
                                         : xasprintf("%s%s.%d", base, BESIDE_SUFFIX, i);
        if (strlen(name) > CP_NAME_MAX)
            return -1;
        if (renameat2(l->stagefd, ask->tmp, dirfd, name, RENAME_NOREPLACE) == 0) {
            const char *slash = strrchr(ask->path, '/');
            ask->beside = slash ? xasprintf("%.*s/%s", (int)(slash - ask->path), ask->path, name)
                                : xstrdup(name);
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* The local file is ours to replace only if it is a plain file still as the last sync left
 * it; a file that is new or changed here keeps its place (abuse case 40). */
static int place_one(struct cp_landing *l, struct cp_ask *ask, int dirfd, const char *base,
                     const char **why)
{
    struct stat st;
    bool free_slot = fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
    struct cp_sig cur = {0};
    if (!free_slot) {
        if (!S_ISREG(st.st_mode)) {
            *why = "something that is not a plain file is in its place";
            return -1;
        }
        cp_sig_from_stat(&st, &cur);
    }
    if (!free_slot && ask->expect_present && cp_sig_equal(&cur, &ask->expect)) {
        if (renameat(l->stagefd, ask->tmp, dirfd, base) == 0)
            return CP_LAND_LANDED;
        *why = "cannot rename into place";
        return -1;
    }
    if (free_slot && renameat2(l->stagefd, ask->tmp, dirfd, base, RENAME_NOREPLACE) == 0)
        return CP_LAND_LANDED;
    if (land_beside(l, ask, dirfd, base) == 0)
        return CP_LAND_BESIDE;
    *why = "changed on both sides and no free name beside it";
    return -1;
}

/* A staged name the rules refuse as host-run got here by check_back: its keys decide. */
static char *keyed_why(const struct cp_landing *l, const struct cp_ask *ask)
{
    const char *why = cp_rules_check_back(l->rules, ask->path);
    if (why == NULL || strcmp(why, CP_RULES_HOST_RUN) != 0)
        return NULL;
    cleanup_close int fd = openat(l->stagefd, ask->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    return cp_run_keys_why(l->rootfd, ask->path, fd);
}

static void commit_one(struct cp_landing *l, struct cp_ask *ask)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = "cannot open the folder";
    int outcome = -1;
    cleanup_free char *keyed = keyed_why(l, ask);
    if (keyed != NULL)
        why = keyed;
    else if (cp_walk_parent(l->rootfd, l->dev, ask->path, true, &dirfd, &base, &why) == 0)
        outcome = place_one(l, ask, dirfd, base, &why);
    if (outcome < 0) {
        unstage(l, ask);
        ask->outcome = CP_LAND_REFUSED;
        refuse(l, ask->path, why);
        return;
    }
    ask->outcome = outcome;
    struct stat st;
    const char *landed = base;
    if (outcome == CP_LAND_BESIDE)
        landed = strrchr(ask->beside, '/') ? strrchr(ask->beside, '/') + 1 : ask->beside;
    if (fstatat(dirfd, landed, &st, AT_SYMLINK_NOFOLLOW) == 0)
        cp_sig_from_stat(&st, &ask->landed);
    if (l->rep != NULL && outcome == CP_LAND_LANDED)
        l->rep->landed++;
    cp_run_report_file("back", outcome == CP_LAND_BESIDE ? ask->beside : ask->path, NULL);
    if (outcome == CP_LAND_BESIDE) {
        if (l->rep != NULL)
            l->rep->conflicts++;
        cleanup_free char *shown = cp_escape(ask->path);
        cleanup_free char *shown2 = cp_escape(ask->beside);
        cp_report(l->rep, "changed on both sides: kept yours at %s, the far side's is at %s", shown,
                  shown2);
    }
}

int cp_landing_commit(struct cp_landing *l, cp_error_t *err)
{
    if (l->n > FSYNC_EACH_MAX && syncfs(l->stagefd) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot sync the staged files");
    for (size_t i = 0; i < l->n; i++)
        if (l->asks[i].outcome == CP_LAND_STAGED)
            commit_one(l, &l->asks[i]);
    return 0;
}

void cp_landing_dispose(struct cp_landing *l)
{
    if (l->stagefd < 0)
        return;
    for (size_t i = 0; i < l->n; i++)
        unstage(l, &l->asks[i]);
    cp_staging_remove(l->rootfd, l->stage_name, &l->stagefd);
}

int cp_landing_delete(int rootfd, const struct cp_rules *rules, const char *path,
                      const struct cp_sig *expect, struct cp_mirror_report *rep, cp_error_t *err)
{
    const char *why = cp_rules_check_back(rules, path), *base = NULL;
    cleanup_close int dirfd = -1;
    struct stat st;
    if (why == NULL && fstat(rootfd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat the work folder");
    if (why == NULL &&
        cp_walk_parent(rootfd, (uint64_t)st.st_dev, path, false, &dirfd, &base, &why) < 0 &&
        strcmp(why, "no such folder") == 0)
        return 0;
    if (why == NULL && fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0; /* already gone */
    struct cp_sig cur = {0};
    if (why == NULL)
        cp_sig_from_stat(&st, &cur);
    why = why                           ? why
          : !S_ISREG(st.st_mode)        ? "not a plain file"
          : st.st_nlink != 1            ? "it has other hard links"
          : !cp_sig_equal(&cur, expect) ? "changed here since the last sync"
                                        : NULL;
    if (why == NULL && unlinkat(dirfd, base, 0) == 0)
        return 1;
    cleanup_free char *shown = cp_escape(path);
    if (why != NULL && strcmp(why, CP_RULES_HOST_RUN) == 0) {
        cp_report_host_run(rep, path);
        cp_run_report_file("refused_back", path, CP_RULES_HOST_RUN);
        return 0;
    }
    cp_report(rep, "not deleted here, though the far side deleted it: %s (%s)", shown,
              why ? why : strerror(errno));
    cp_run_report_file("refused_back", path, "the far side deleted it; kept here");
    return 0;
}
