/* Moving one entry of the layer into place here: a rename checked at the rename (the person's
 * change since the run began or since the landing looked is kept, the box's version lands
 * beside it), straight from the layer on this file system, else through a staged copy in a
 * folder of ours on the work folder's file system, so the last step is still a rename. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/layer-int.h"
#include "mirror/staging.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* A folder outside the work folder on its file system: $CONCH_HOME's, else $TMPDIR's or /tmp.
 * -1 when none is on it. */
static int stage_outside(uint64_t dev)
{
    cleanup_free char *home = NULL;
    cleanup_error cp_error_t err = NULL;
    const char *tmp = getenv("TMPDIR");
    const char *where[] = {cp_conch_home(0, &home, &err) == 0 ? home : NULL,
                           tmp != NULL && tmp[0] == '/' ? tmp : "/tmp", "/tmp"};
    for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
        struct stat st;
        int fd = where[i] ? open(where[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev)
            return fd;
        if (fd >= 0)
            close(fd);
    }
    return -1;
}

/* The staging folder, made on first need (staging.c: git never shows it, the next landing
 * removes what a killed one left). */
static int stage_open(struct layer *l)
{
    static unsigned counter;
    if (l->stagefd >= 0)
        return 0;
    if (l->stage_parent < 0) {
        l->stage_parent = stage_outside(l->dev);
        if (l->stage_parent >= 0)
            cp_staging_sweep(l->stage_parent);
        else
            l->stage_parent = dup(l->o->rootfd);
        if (l->stage_parent < 0)
            return -1;
    }
    snprintf(l->stage_name, sizeof(l->stage_name), "%s%ld-l%u", CP_STAGING_PREFIX, (long)getpid(),
             counter++);
    l->stagefd = cp_staging_make(l->stage_parent, l->stage_name);
    return l->stagefd < 0 ? -1 : 0;
}

void cp_layer_stage_close(struct layer *l)
{
    if (l->stagefd >= 0)
        cp_staging_remove(l->stage_parent, l->stage_name, &l->stagefd);
    if (l->stage_parent >= 0)
        close(l->stage_parent);
    l->stage_parent = -1;
}

static int copy_bytes(int in, int out)
{
    char buf[64 * 1024];
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (int)n;
        if (cp_write_all(out, buf, (size_t)n) < 0)
            return -1;
    }
}

/* The layer is on another file system: the entry is copied into the staging folder inside the
 * work folder first (bytes synced, mode and time set), so the move into place is a rename. */
static int stage_copy(struct layer *l, int udirfd, const char *name, const struct stat *st,
                      const char *tmp)
{
    if (stage_open(l) < 0)
        return -1;
    if (S_ISLNK(st->st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(udirfd, name, target, sizeof(target) - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        return symlinkat(target, l->stagefd, tmp);
    }
    cleanup_close int in = openat(udirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int out =
        openat(l->stagefd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (in < 0 || out < 0 || copy_bytes(in, out) < 0)
        return -1;
    struct timespec ts[2] = {st->st_atim, st->st_mtim};
    if (fchmod(out, st->st_mode & 0755) < 0 || futimens(out, ts) < 0 || fsync(out) < 0)
        return -1;
    return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Renames (fromfd, from) onto (dirfd, dest), checked at the rename: 1 when what is there was
 * changed here since the run began (its ctime) or since before was taken (before: what stood
 * there when the landing chose to replace it; NULL: nothing did), and nothing is moved. */
static int place(const struct layer *l, int fromfd, const char *from, int dirfd, const char *dest,
                 const struct stat *before)
{
    struct stat now;
    bool there = fstatat(dirfd, dest, &now, AT_SYMLINK_NOFOLLOW) == 0;
    if (there && (before == NULL || cp_layer_changed_here(l, &now) || !same_file(before, &now)))
        return 1;
    if (renameat2(fromfd, from, dirfd, dest, there ? 0 : RENAME_NOREPLACE) == 0)
        return 0;
    return errno == EEXIST ? 1 : -1;
}

/* Beside the person's own version: NAME.conch-far, then .2 .. .9. */
static int place_beside(int fromfd, const char *from, int dirfd, const char *base, const char *path,
                        char **landed_out)
{
    for (int i = 1; i <= 9; i++) {
        cleanup_free char *b = i == 1 ? xasprintf("%s%s", base, BESIDE_SUFFIX)
                                      : xasprintf("%s%s.%d", base, BESIDE_SUFFIX, i);
        if (strlen(b) > CP_NAME_MAX)
            return -1;
        if (renameat2(fromfd, from, dirfd, b, RENAME_NOREPLACE) == 0) {
            const char *slash = strrchr(path, '/');
            *landed_out = slash ? xasprintf("%.*s/%s", (int)(slash - path), path, b) : xstrdup(b);
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* Tries the rename from where the entry is; on EXDEV stages a copy once and tries again. */
int cp_layer_move_entry(struct layer *l, int udirfd, const char *name, const struct stat *st,
                        int dirfd, const char *base, const char *path, const struct stat *before,
                        bool mine, char **beside_out)
{
    int fromfd = udirfd;
    const char *from = name;
    char tmp[32];
    for (bool staged = false;; staged = true) {
        int r = mine ? 1 : place(l, fromfd, from, dirfd, base, before);
        mine = r == 1;
        if (mine)
            r = place_beside(fromfd, from, dirfd, base, path, beside_out);
        if (r == 0) {
            if (staged)
                unlinkat(udirfd, name, 0);
            return 0;
        }
        if (staged || errno != EXDEV) {
            int saved = errno;
            if (staged)
                unlinkat(l->stagefd, tmp, 0);
            errno = saved;
            return -1;
        }
        snprintf(tmp, sizeof(tmp), "e%ld", (long)st->st_ino);
        if (stage_open(l) < 0)
            return -1;
        unlinkat(l->stagefd, tmp, 0);
        if (stage_copy(l, udirfd, name, st, tmp) < 0) {
            unlinkat(l->stagefd, tmp, 0);
            return -1;
        }
        cp_layer_test_hold("CONCH_TEST_HOLD_STAGED", &l->held_staged);
        fromfd = l->stagefd;
        from = tmp;
    }
}
