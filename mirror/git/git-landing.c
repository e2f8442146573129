/* The top .git through the gate, and each submodule's git folder under it as a git folder of
 * its own (mirror/git/git-modules.c finds them). Every file is reached without following a link, on
 * both sides (mirror/walk.c). Objects are checked here by code of our own (zlib and libcrypto's
 * digest: one loose object costs microseconds, a git process per object about a millisecond
 * and a half); a ref's object and a branch's ancestry are asked of git's own plumbing, run
 * here on this computer's repository with a clean environment (no global or system config,
 * no hooks, no fsmonitor), since only git knows a commit inside a pack. Nothing the box wrote
 * in a git folder's config ever lands, so the config git reads there is this computer's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/git/git-landing-int.h"
#include "mirror/git/git-landing.h"
#include "mirror/git/git-modules.h"
#include "mirror/walk.h"
#include "src/base/util.h"
#include "src/base/report.h"

/* In a linked worktree's common folder: rel is that worktree's own folder. */
static bool is_own(const struct gl *g, const char *rel)
{
    return strncmp(rel, "worktrees/", 10) == 0 && strcmp(rel + 10, g->o->worktree) == 0;
}

/* Every entry under the layer's git folder, as files and whiteouts; anything else is refused.
 * Its modules/ folder is the submodules' walk's (mirror/git/git-modules.c). */
static void collect(struct gl *g, int fd, const char *rel)
{
    cleanup_strv char **v = cp_walk_names(fd);
    if (v == NULL) {
        cp_gl_refuse(g, rel[0] ? rel : ".", "unreadable folder");
        return;
    }
    for (size_t i = 0; v[i] != NULL; i++) {
        cleanup_free char *path = rel[0] ? xasprintf("%s/%s", rel, v[i]) : xstrdup(v[i]);
        struct stat st;
        if (fstatat(fd, v[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
            cp_gl_refuse(g, path, "unreadable");
        } else if (S_ISDIR(st.st_mode) && strcmp(path, "modules") == 0) {
            g->modules = true;
        } else if (S_ISDIR(st.st_mode) && g->part == CP_GIT_COMMON && is_own(g, path)) {
            g->own = true; /* the worktree's own folder lands after the common one */
        } else if (S_ISDIR(st.st_mode)) {
            cleanup_close int sub =
                openat(fd, v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                cp_gl_refuse(g, path, "unreadable folder");
            else
                collect(g, sub, path);
        } else if (cp_walk_is_whiteout(&st)) {
            cp_strvec_push(&g->whiteouts, path);
        } else if (S_ISREG(st.st_mode)) {
            cp_strvec_push(&g->files, path);
        } else {
            cp_gl_refuse(g, path, "not a plain file in a git folder");
        }
    }
}

static void land_file(struct gl *g, const char *rel)
{
    struct stat st;
    cleanup_free char *here = cp_gl_read_here(g, rel, &st);
    if (g->o->dry_run) {
        cp_gl_tell(g, here ? "changed" : "added", rel);
        return;
    }
    if (here != NULL && cp_gl_changed_here(g, &st)) {
        cp_gl_say_kept(g, rel, NULL);
        return;
    }
    if (cp_gl_copy_in(g, rel, 0644, true) < 0) {
        cp_gl_refuse(g, rel, "cannot write it here");
        return;
    }
    cp_gl_drop_up(g, rel);
    cp_gl_tell(g, here ? "changed" : "added", rel);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
}

/* Something the box deleted in .git: only git's state files go (when not changed here). */
static void land_whiteout(struct gl *g, const char *rel)
{
    const char *why = NULL;
    enum cp_git_kind k = cp_gl_kind(g, rel, &why);
    bool state = k == CP_GIT_FILE && strncmp(rel, "logs/", 5) != 0 && strcmp(rel, "index") != 0;
    if (k == CP_GIT_OBJECT || k == CP_GIT_PACK)
        why = "nothing under objects/ is deleted here";
    else if (k == CP_GIT_REF || k == CP_GIT_TAG || k == CP_GIT_PACKED_REFS)
        why = "a deleted ref is kept here (delete it here: git branch -D, git tag -d)";
    else if (k == CP_GIT_FILE && !state)
        why = "the index and reflogs are never deleted here";
    else if (k == CP_GIT_HEAD)
        why = "HEAD is never deleted here";
    if (!state) {
        cp_gl_refuse(g, rel, why);
        return;
    }
    cleanup_close int dirfd = -1;
    const char *base = NULL;
    struct stat st;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, false, &dirfd, &base, &why) < 0 ||
        fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return;
    if (g->o->dry_run) {
        cp_gl_tell(g, "deleted", rel);
        return;
    }
    if (cp_gl_changed_here(g, &st)) {
        cp_gl_say_kept(g, rel, NULL);
        return;
    }
    if (S_ISREG(st.st_mode) && unlinkat(dirfd, base, 0) == 0)
        cp_gl_tell(g, "deleted", rel);
}

static void land_folder(struct gl *g);
static void land_own(struct gl *common);

static void land_module(void *ctx, int herefd, int upfd, const char *rel)
{
    struct gl *parent = ctx;
    cleanup_free char *where = xasprintf("%s/%s", parent->where, rel);
    struct gl sub = {.o = parent->o,
                     .run = parent->run,
                     .where = where,
                     .depth = parent->depth + 1,
                     .hostfd = herefd,
                     .upfd = upfd};
    land_folder(&sub);
}

static void refuse_module(void *ctx, const char *rel, const char *why)
{
    cp_gl_refuse(ctx, rel, why);
}

/* The objects here could not be flushed to disk (an I/O error): no ref moves to name what a
 * crash may lose. */
static void refs_wait(struct gl *g)
{
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        enum cp_git_kind k = cp_gl_kind(g, g->files.v[i], &why);
        if (k == CP_GIT_REF || k == CP_GIT_TAG || k == CP_GIT_PACKED_REFS || k == CP_GIT_HEAD)
            cp_gl_refuse(
                g, g->files.v[i],
                "its objects could not be flushed to disk here (an I/O error), so no ref moves");
    }
}

/* Each git folder's stages: its submodules' folders, whole, before its own objects; then its
 * objects, packs, files, refs, packed-refs, HEAD, and what the box deleted. */
static void land_stages(struct gl *g)
{
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        if (cp_gl_kind(g, g->files.v[i], &why) == CP_GIT_OBJECT)
            cp_gl_land_object(g, g->files.v[i]);
    }
    cp_gl_land_packs(g);
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        enum cp_git_kind k = cp_gl_kind(g, g->files.v[i], &why);
        if (k == CP_GIT_FILE)
            land_file(g, g->files.v[i]);
        else if (k == CP_GIT_REFUSED)
            cp_gl_refuse(g, g->files.v[i], why);
    }
    if (!g->o->dry_run && cp_gl_flush(g) < 0) {
        refs_wait(g);
        return;
    }
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        const char *rel = g->files.v[i];
        enum cp_git_kind k = cp_gl_kind(g, rel, &why);
        if (k != CP_GIT_REF && k != CP_GIT_TAG)
            continue;
        cleanup_free char *text = cp_gl_read_up(g, rel, 4096);
        char *val = cp_gl_ref_value(text);
        if (val == NULL)
            cp_gl_refuse(g, rel, "a ref that is not an object id (a symbolic ref never lands)");
        else if (cp_gl_land_ref(g, rel, val, k, rel) && !g->o->dry_run)
            cp_gl_drop_up(g, rel);
    }
    const char *why = NULL;
    if (cp_strvec_has(&g->files, "packed-refs") &&
        cp_gl_kind(g, "packed-refs", &why) == CP_GIT_PACKED_REFS)
        cp_gl_land_packed(g);
    if (cp_strvec_has(&g->files, "HEAD") && cp_gl_kind(g, "HEAD", &why) == CP_GIT_HEAD)
        cp_gl_land_head(g);
    for (size_t i = 0; i < g->whiteouts.n; i++)
        land_whiteout(g, g->whiteouts.v[i]);
}

static void land_folder(struct gl *g)
{
    struct stat st;
    collect(g, g->upfd, "");
    if (fstat(g->upfd, &st) == 0)
        g->updev = (uint64_t)st.st_dev;
    if (g->modules)
        cp_git_modules_walk(&(struct cp_git_modules){.herefd = g->hostfd,
                                                     .upfd = g->upfd,
                                                     .depth = g->depth,
                                                     .land = land_module,
                                                     .refuse = refuse_module,
                                                     .ctx = g});
    if (g->hostfd >= 0 && fstat(g->hostfd, &st) == 0) {
        g->hostdev = (uint64_t)st.st_dev;
        land_stages(g);
    } else {
        for (size_t i = 0; i < g->files.n; i++)
            cp_gl_refuse(g, g->files.v[i], "under a .git folder (none is here)");
    }
    if (g->hostfd >= 0 && !g->o->dry_run)
        cp_gl_flush(g); /* what HEAD's and the last files' copies owe */
    cp_strvec_dispose(&g->files);
    cp_strvec_dispose(&g->whiteouts);
    if (g->own)
        land_own(g);
}

/* A linked worktree's own folder, once the objects and refs its HEAD may name are in place. */
static void land_own(struct gl *common)
{
    cleanup_free char *rel = xasprintf("worktrees/%s", common->o->worktree);
    cleanup_free char *where = xasprintf("%s/%s", common->where, rel);
    cleanup_close int up =
        openat(common->upfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int here =
        common->hostfd >= 0
            ? openat(common->hostfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            : -1;
    if (up < 0) {
        cp_gl_refuse(common, rel, "unreadable folder");
        return;
    }
    struct gl own = {.o = common->o,
                     .run = common->run,
                     .where = where,
                     .hostfd = here,
                     .upfd = up,
                     .part = CP_GIT_OWN,
                     .common = common};
    land_folder(&own);
}

void cp_git_land(const struct cp_git_land_opts *o)
{
    struct gl_run run = {.refs = json_object_new_array(), .refused = json_object_new_array()};
    /* A git folder outside the work folder comes opened (git-outside.h); the top .git is here. */
    cleanup_close int hostfd =
        o->where != NULL
            ? fcntl(o->herefd, F_DUPFD_CLOEXEC, 3)
            : openat(o->rootfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct gl g = {.o = o,
                   .run = &run,
                   .where = o->where != NULL ? o->where : ".git",
                   .hostfd = hostfd,
                   .upfd = o->upfd,
                   .part = o->worktree != NULL ? CP_GIT_COMMON : CP_GIT_WHOLE};
    land_folder(&g);
    if (!o->dry_run && cp_run_report_on() &&
        (json_object_array_length(run.refs) > 0 || json_object_array_length(run.refused) > 0)) {
        json_object *git = json_object_new_object();
        json_object_object_add(git, "refs", json_object_get(run.refs));
        json_object_object_add(git, "refused", json_object_get(run.refused));
        cp_run_report_take("git", git);
    }
    json_object_put(run.refs);
    json_object_put(run.refused);
}
