/* One git folder's files, on both sides of the .git landing: read from the layer or here
 * without following a link (mirror/walk.c), copied in through a new name and a rename, the
 * words and report entries for what lands or is refused, and git's own plumbing run here for
 * what only git knows (an object in a pack, a merge base further back). The landing's three
 * stages (git-landing.c, git-objects.c, git-refs.c) stand on these. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/git/git-landing-int.h"
#include "mirror/git/git-loose.h"
#include "mirror/git/git-run.h"
#include "mirror/rules.h"
#include "mirror/walk.h"
#include "src/base/test-hold.h"
#include "src/base/util.h"
#include "src/base/report.h"

bool cp_gl_is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[n] == '\0';
}

void cp_gl_refuse(struct gl *g, const char *rel, const char *why)
{
    cleanup_free char *path = xasprintf("%s/%s", g->where, rel);
    g->o->refuse(g->o->ctx, path, why);
    if (g->o->dry_run)
        return;
    json_object *r = json_object_new_object();
    json_object_object_add(r, "path", json_object_new_string(path));
    json_object_object_add(r, "reason", json_object_new_string(why));
    json_object_array_add(g->run->refused, r);
}

void cp_gl_tell(struct gl *g, const char *what, const char *rel)
{
    cleanup_free char *path = xasprintf("%s/%s", g->where, rel);
    g->o->tell(g->o->ctx, what, path, NULL);
    if (!g->o->dry_run)
        cp_run_report_file("back", path, NULL);
}

void cp_gl_say_kept(struct gl *g, const char *rel, const char *box)
{
    cleanup_free char *path = xasprintf("%s/%s", g->where, rel);
    cleanup_free char *shown = cp_escape(path);
    if (g->o->rep != NULL)
        g->o->rep->conflicts++;
    cp_report(g->o->rep, "changed here during the run: kept this computer's %s%s%s", shown,
              box ? "; the box's value was " : "", box ? box : "");
}

/* Opens rel in the layer (read) or its folder here (write), never through a link. */
int cp_gl_open_up(struct gl *g, const char *rel)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->upfd, g->updev, rel, false, &dirfd, &base, &why) < 0)
        return -1;
    return openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

void cp_gl_drop_up(struct gl *g, const char *rel)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->upfd, g->updev, rel, false, &dirfd, &base, &why) == 0)
        unlinkat(dirfd, base, 0);
}

/* Reads a small file of the layer (a ref, HEAD, packed-refs) whole; NULL when it cannot. */
char *cp_gl_read_up(struct gl *g, const char *rel, size_t max)
{
    cleanup_close int fd = cp_gl_open_up(g, rel);
    if (fd < 0)
        return NULL;
    char *buf = xmalloc(max + 1);
    size_t n = 0;
    for (ssize_t r; n < max && (r = read(fd, buf + n, max - n)) != 0;) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return NULL;
        }
        n += (size_t)r;
    }
    buf[n] = '\0';
    if (n == max || strlen(buf) != n) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *cp_gl_read_here(struct gl *g, const char *rel, struct stat *st)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, false, &dirfd, &base, &why) < 0)
        return NULL;
    cleanup_close int fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_size > (64 << 20))
        return NULL;
    char *buf = xmalloc((size_t)st->st_size + 1);
    ssize_t n = read(fd, buf, (size_t)st->st_size);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

bool cp_gl_changed_here(struct gl *g, const struct stat *st)
{
    return (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec >= g->o->since_ns;
}

/* A temporary name in a folder here: git's own tmp_obj_ prefix under objects/ (git fsck passes
 * it by and git prune removes it, should a kill leave one), else a dot name git never reads. */
static void tmp_name(struct gl *g, const char *rel, char tmp[64])
{
    snprintf(tmp, 64, "%s%ld-%u",
             strncmp(rel, "objects/", 8) == 0 ? "tmp_obj_conch-" : ".conch-git-", (long)getpid(),
             g->run->tmp_counter++);
}

/* Copies the layer's rel to a new file name in dirfd here, synced; -1 (nothing left) on failure. */
int cp_gl_copy_to(struct gl *g, const char *rel, int dirfd, const char *name, mode_t mode)
{
    cleanup_close int in = cp_gl_open_up(g, rel);
    if (in < 0)
        return -1;
    cleanup_close int out =
        openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (out < 0)
        return -1;
    char buf[65536];
    for (ssize_t n;;) {
        n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            break;
        if (n < 0 || cp_write_all(out, buf, (size_t)n) < 0) {
            unlinkat(dirfd, name, 0);
            return -1;
        }
    }
    /* Written out, not flushed: cp_gl_flush's one flush covers every copy before a ref moves. */
    if (sync_file_range(out, 0, 0, SYNC_FILE_RANGE_WRITE) < 0 && errno != ESPIPE) {
        unlinkat(dirfd, name, 0);
        return -1;
    }
    g->run->flush_owed = true;
    return 0;
}

int cp_gl_flush(struct gl *g)
{
    if (!g->run->flush_owed)
        return 0;
    if (fsync(g->hostfd) < 0)
        return -1;
    g->run->flush_owed = false;
    return 0;
}

/* Copies the layer's rel to rel here through a new name in its folder: replace, or added only
 * (an existing one is kept: EEXIST). */
int cp_gl_copy_in(struct gl *g, const char *rel, mode_t mode, bool replace)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, true, &dirfd, &base, &why) < 0)
        return -1;
    char tmp[64];
    tmp_name(g, rel, tmp);
    if (cp_gl_copy_to(g, rel, dirfd, tmp, mode) < 0)
        return -1;
    if (renameat2(dirfd, tmp, dirfd, base, replace ? 0 : RENAME_NOREPLACE) < 0) {
        int saved = errno;
        unlinkat(dirfd, tmp, 0);
        errno = saved;
        return -1;
    }
    return 0;
}

/* git here on this repository (git-run.h); its output into outfd (-1: none). */
static int git_run(struct gl *g, char *const *args, int outfd, const char *env1)
{
    return cp_git_run_here(g->hostfd, args, outfd, env1);
}

int cp_gl_git_here(struct gl *g, char *const *args)
{
    return git_run(g, args, -1, NULL);
}

/* For the integration tests alone (as mirror/layer.c's CONCH_TEST_HOLD_LANDING): with
 * CONCH_TEST_HOLD_GIT naming a folder and CONCH_TEST_HOLD_GIT_AT naming the stage ("object",
 * "pack" or "ref"), the landing stops once the first of that stage is in place, makes
 * FOLDER/held and waits until the fifo FOLDER/go is written to and closed, so that a test's
 * kill -9 comes in the middle of a .git landing for certain. Read in conch-place's own
 * environment here, which nothing in a box can set. */
void cp_gl_test_hold(struct gl *g, const char *stage)
{
    const char *at = getenv("CONCH_TEST_HOLD_GIT_AT");
    if (at == NULL || strcmp(at, stage) != 0 || g->run->held)
        return;
    g->run->held = true;
    cp_test_hold("CONCH_TEST_HOLD_GIT");
}

/* A loose object here answers without a git process (git-loose.h); else git's cat-file. */
bool cp_gl_object_here(struct gl *g, const char *hex)
{
    if (cp_git_loose_here(g->hostfd, hex))
        return true;
    cleanup_free char *spec = xasprintf("%s^{object}", hex);
    return cp_gl_git_here(g, (char *[]){"cat-file", "-e", spec, NULL}) == 0;
}

/* A loose commit whose parent is old is a fast-forward from it; else git's merge-base. */
bool cp_gl_ancestor_here(struct gl *g, const char *old, const char *new)
{
    if (cp_git_loose_parent_is(g->hostfd, new, old))
        return true;
    return cp_gl_git_here(
               g, (char *[]){"merge-base", "--is-ancestor", (char *)old, (char *)new, NULL}) == 0;
}
