/* Landing an overlay's upper folder through the gate. The box is gone before this runs, so the
 * layer holds still; the work folder does not (the person works on), so every place here is
 * reached from rootfd one folder at a time without following a link (mirror/walk.c), and a
 * file here whose ctime is past the run's start is the person's: it is kept, the box's version
 * lands beside it. Whiteouts and opaque folders are recognised by what only the overlay can
 * make: a 0/0 character device (the box has no CAP_MKNOD) and the overlay's own attribute,
 * which it never lets a box set. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "mirror/git/git.h"
#include "mirror/layer-int.h"
#include "mirror/layer.h"
#include "mirror/links.h"
#include "mirror/run-keys.h"
#include "mirror/staging.h"
#include "mirror/walk.h"
#include "src/base/paths.h"
#include "src/base/report.h"
#include "src/base/strvec.h"
#include "src/base/test-hold.h"
#include "src/base/util.h"

/* The overlay is mounted with userxattr (its marks readable by the person who owns the layer);
 * a layer made by a root-mounted overlay without it carries the trusted names. */
static const char *const opaque_names[] = {"user.overlay.opaque", "trusted.overlay.opaque", NULL};

static void tell(struct layer *l, const char *what, const char *path, const char *why)
{
    if (l->o->seen != NULL)
        l->o->seen(l->o->seen_ctx, what, path, why);
}

static void refuse(struct layer *l, const char *path, const char *why)
{
    tell(l, "refused", path, why);
    if (l->o->dry_run)
        return;
    cp_run_report_file("refused_back", path, why);
    if (l->rep != NULL)
        l->rep->refused++;
    if (strcmp(why, CP_RULES_HOST_RUN) == 0) {
        cp_report_host_run(l->rep, path);
        return;
    }
    cleanup_free char *shown = cp_escape(path);
    cp_report(l->rep, "not landed: %s (%s)", shown, why);
}

static char *join(const char *rel, const char *name)
{
    return rel[0] ? xasprintf("%s/%s", rel, name) : xstrdup(name);
}

/* Names in a folder, sorted: the landing's order is the same every time. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **names_in(int dirfd)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    rewinddir(d); /* the dup shares the read position of a folder read before */
    struct cp_strvec v = {0};
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            cp_strvec_push(&v, e->d_name);
    closedir(d);
    if (v.n > 1)
        qsort(v.v, v.n, sizeof(char *), by_name);
    return cp_strvec_steal(&v);
}

/* The folder holding path here, made when missing. */
static int parent_here(struct layer *l, const char *path, bool create, int *out, const char **base,
                       const char **why)
{
    return cp_walk_parent(l->o->rootfd, l->dev, path, create, out, base, why);
}

static bool present(void *ctx, const char *path)
{
    const struct layer *l = ctx;
    struct stat st;
    if (fstatat(l->o->upperfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return !cp_walk_is_whiteout(&st);
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    return cp_walk_parent(l->o->rootfd, l->dev, path, false, &dirfd, &base, &why) == 0 &&
           fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The rules (by each name a link gives the path), the repository shape and, for a link, where
 * it leads. */
static const char *judge(struct layer *l, int udirfd, const char *name, const char *path,
                         const struct stat *st)
{
    const char *why = cp_links_place_why(l->links, path);
    if (why == NULL)
        why = cp_rules_repo_shape(path, present, l);
    if (why != NULL || !S_ISLNK(st->st_mode))
        return why;
    char target[4096];
    ssize_t n = readlinkat(udirfd, name, target, sizeof(target) - 1);
    if (n < 0)
        return "an unreadable link";
    target[n] = '\0';
    return cp_links_link_why(l->links, path, target);
}

/* Whether the two open files hold the same bytes (their sizes are equal). */
static bool same_bytes(int a, int b)
{
    char x[16384], y[16384];
    for (;;) {
        ssize_t n = read(a, x, sizeof(x));
        if (n < 0 || read(b, y, (size_t)n) != n || memcmp(x, y, (size_t)n) != 0)
            return false;
        if (n == 0)
            return true;
    }
}

/* A landed copy-mode file whose layer copy a cut-short landing did not yet remove: the same
 * size, time and bytes. The bytes too, since two boxes of one folder may write a file of one
 * size in one tick of the file clock, and the later's must then land beside, not be dropped. */
static bool already_landed(int dirfd, const char *base, const struct stat *here, int udirfd,
                           const char *name, const struct stat *st)
{
    if (!S_ISREG(here->st_mode) || !S_ISREG(st->st_mode) || here->st_size != st->st_size ||
        here->st_mtim.tv_sec != st->st_mtim.tv_sec ||
        here->st_mtim.tv_nsec != st->st_mtim.tv_nsec || here->st_nlink != 1)
        return false;
    cleanup_close int a = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int b = openat(udirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    return a >= 0 && b >= 0 && same_bytes(a, b);
}

static void land_file(struct layer *l, int udirfd, const char *name, const char *path,
                      const struct stat *st)
{
    const char *why = judge(l, udirfd, name, path, st);
    /* .npmrc, .yarnrc.yml and .cargo/config.toml are data too: judged by the keys changed. */
    cleanup_free char *keyed = NULL;
    if (why != NULL && strcmp(why, CP_RULES_HOST_RUN) == 0 && S_ISREG(st->st_mode))
        why = keyed = cp_run_keys_layer_why(l->o, udirfd, name, path);
    if (why != NULL) {
        refuse(l, path, why);
        return;
    }
    cleanup_close int dirfd = -1;
    const char *base = NULL;
    struct stat here;
    bool dry = l->o->dry_run;
    if (parent_here(l, path, !dry, &dirfd, &base, &why) < 0) {
        if (dry && strcmp(why, "no such folder") == 0) {
            tell(l, "added", path, NULL);
            return;
        }
        refuse(l, path, why);
        return;
    }
    bool free_slot = fstatat(dirfd, base, &here, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
    if (!free_slot && S_ISDIR(here.st_mode)) {
        refuse(l, path, "a folder is in its place here");
        return;
    }
    bool mine = !free_slot && cp_layer_changed_here(l, &here);
    if (dry) {
        tell(l, free_slot ? "added" : mine ? "beside" : "changed", path, NULL);
        return;
    }
    if (mine && already_landed(dirfd, base, &here, udirfd, name, st)) {
        unlinkat(udirfd, name, 0);
        return;
    }
    if (S_ISREG(st->st_mode) && fchmodat(udirfd, name, st->st_mode & 0755, 0) < 0) {
        refuse(l, path, "cannot set its mode");
        return;
    }
    cleanup_free char *beside = NULL;
    int r = cp_layer_move_entry(l, udirfd, name, st, dirfd, base, path, free_slot ? NULL : &here,
                                mine, &beside);
    mine = beside != NULL;
    if (r < 0) {
        refuse(l, path,
               mine ? "changed on both sides and no free name beside it"
                    : "cannot move it into place");
        return;
    }
    tell(l, mine ? "beside" : free_slot ? "added" : "changed", beside ? beside : path, NULL);
    cp_run_report_file("back", beside ? beside : path, NULL);
    if (l->rep != NULL)
        l->rep->landed++;
    cp_layer_test_hold("CONCH_TEST_HOLD_LANDING", &l->held);
    if (beside != NULL) {
        cleanup_free char *s1 = cp_escape(path);
        cleanup_free char *s2 = cp_escape(beside);
        if (l->rep != NULL)
            l->rep->conflicts++;
        cp_report(l->rep, "changed here during the run: kept yours at %s, the box's is at %s", s1,
                  s2);
    }
}

static void delete_here(struct layer *l, int dirfd, const char *base, const char *path);

/* Every entry of a folder here, then the folder, each under the rules; what cannot go stays. */
static void delete_tree(struct layer *l, int dirfd, const char *base, const char *path)
{
    cleanup_close int fd = openat(dirfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || (uint64_t)st.st_dev != l->dev)
        return;
    cleanup_strv char **names = names_in(fd);
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        cleanup_free char *child = join(path, names[i]);
        delete_here(l, fd, names[i], child);
    }
    if (!l->o->dry_run && unlinkat(dirfd, base, AT_REMOVEDIR) == 0) {
        tell(l, "deleted", path, NULL);
        cp_run_report_file("deleted_here", path, NULL);
    }
}

/* One name here that the command deleted: a plain singly linked file or a link not changed
 * here during the run goes; a folder goes entry by entry. */
static void delete_here(struct layer *l, int dirfd, const char *base, const char *path)
{
    struct stat st;
    if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return; /* already gone */
    const char *why = cp_rules_check_back(l->o->rules, path);
    if (why == NULL && S_ISDIR(st.st_mode)) {
        delete_tree(l, dirfd, base, path);
        return;
    }
    why = why                                            ? why
          : !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) ? "not a plain file or link"
          : S_ISREG(st.st_mode) && st.st_nlink != 1      ? "it has other hard links"
          : cp_layer_changed_here(l, &st)                ? "changed here during the run; kept"
                                                         : NULL;
    if (why != NULL) {
        refuse(l, path, why);
        return;
    }
    if (!l->o->dry_run && unlinkat(dirfd, base, 0) < 0) {
        refuse(l, path, "cannot delete it");
        return;
    }
    tell(l, "deleted", path, NULL);
    if (l->o->dry_run)
        return;
    cp_run_report_file("deleted_here", path, NULL);
    if (l->rep != NULL)
        l->rep->deleted_here++;
}

static void land_whiteout(struct layer *l, int udirfd, const char *name, const char *path)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (parent_here(l, path, false, &dirfd, &base, &why) == 0)
        delete_here(l, dirfd, base, path);
    /* Done with: a later landing of what is left must not delete a file made again here. */
    if (!l->o->dry_run)
        unlinkat(udirfd, name, 0);
}

static bool is_opaque(int fd)
{
    char v[4];
    for (size_t i = 0; opaque_names[i] != NULL; i++)
        if (fgetxattr(fd, opaque_names[i], v, sizeof(v)) == 1 && v[0] == 'y')
            return true;
    return false;
}

/* An opaque folder replaced the one here whole: what is here and not in it was deleted. The
 * mark goes once that is done, so a landing finished later never deletes what landed. */
static void land_opaque(struct layer *l, int ufd, const char *path)
{
    cleanup_close int dirfd = -1, here = -1;
    const char *base = NULL, *why = NULL;
    if (parent_here(l, path, false, &dirfd, &base, &why) == 0)
        here = openat(dirfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_strv char **names = here >= 0 ? names_in(here) : NULL;
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        struct stat st;
        if (fstatat(ufd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
        cleanup_free char *child = join(path, names[i]);
        delete_here(l, here, names[i], child);
    }
    if (!l->o->dry_run)
        for (size_t i = 0; opaque_names[i] != NULL; i++)
            fremovexattr(ufd, opaque_names[i]);
}

static void land_dir(struct layer *l, int udirfd, const char *name, const char *path,
                     const struct stat *st);

static void land_entries(struct layer *l, int ufd, const char *rel)
{
    cleanup_strv char **names = names_in(ufd);
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        cleanup_free char *path = join(rel, names[i]);
        const char *why = cp_rules_syntax(path);
        struct stat st;
        if (why == NULL && fstatat(ufd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
            why = "unreadable";
        if (why != NULL)
            refuse(l, path, why);
        else if (cp_walk_is_whiteout(&st))
            land_whiteout(l, ufd, names[i], path);
        else if (S_ISDIR(st.st_mode))
            land_dir(l, ufd, names[i], path, &st);
        else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
            land_file(l, ufd, names[i], path, &st);
        else
            refuse(l, path, "not a plain file, folder or link");
    }
}

/* Every file under a refused folder is named as refused (the report lists files). */
static void refuse_tree(struct layer *l, int ufd, const char *rel, const char *why)
{
    cleanup_strv char **names = names_in(ufd);
    size_t told = 0;
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        cleanup_free char *path = join(rel, names[i]);
        struct stat st;
        if (fstatat(ufd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || cp_walk_is_whiteout(&st))
            continue;
        told++;
        if (!S_ISDIR(st.st_mode)) {
            refuse(l, path, why);
            continue;
        }
        cleanup_close int sub =
            openat(ufd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            refuse_tree(l, sub, path, why);
    }
    if (told == 0)
        refuse(l, rel, why);
}

static void git_refuse(void *ctx, const char *path, const char *why)
{
    refuse(ctx, path, why);
}

static void git_tell(void *ctx, const char *what, const char *path, const char *why)
{
    tell(ctx, what, path, why);
}

static void land_dir(struct layer *l, int udirfd, const char *name, const char *path,
                     const struct stat *st)
{
    cleanup_close int ufd = openat(udirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (ufd < 0) {
        refuse(l, path, "unreadable folder");
        return;
    }
    /* The top .git lands by git's own table (mirror/git/git-table.c); any other stays refused. */
    if (strcmp(path, ".git") == 0) {
        cp_git_land(&(struct cp_git_land_opts){.rootfd = l->o->rootfd,
                                               .upfd = ufd,
                                               .since_ns = l->o->since_ns,
                                               .dry_run = l->o->dry_run,
                                               .rep = l->rep,
                                               .refuse = git_refuse,
                                               .tell = git_tell,
                                               .ctx = l});
        return;
    }
    /* The rules read a last component .git as a file; a folder is one to be under. */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const char *why =
        strcasecmp(base, ".git") == 0 ? "under a .git folder" : cp_links_place_why(l->links, path);
    if (why == NULL)
        why = cp_rules_repo_shape(path, present, l);
    if (why != NULL) {
        refuse_tree(l, ufd, path, why);
        return;
    }
    if (is_opaque(ufd))
        land_opaque(l, ufd, path);
    cleanup_close int dirfd = -1;
    struct stat here;
    if (!l->o->dry_run && parent_here(l, path, true, &dirfd, &base, &why) == 0 &&
        fstatat(dirfd, base, &here, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
        mkdirat(dirfd, base, st->st_mode & 0755) == 0) {
        tell(l, "added", path, NULL);
        cp_run_report_file("back", path, NULL);
    }
    land_entries(l, ufd, path);
}

int cp_layer_land(const struct cp_layer_opts *o, struct cp_mirror_report *rep, cp_error_t *err)
{
    struct stat st;
    if (fstat(o->rootfd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat the work folder");
    struct layer l = {.o = o,
                      .rep = rep,
                      .dev = (uint64_t)st.st_dev,
                      .stagefd = -1,
                      .stage_parent = -1,
                      .links = cp_links_new(o->rootfd, o->upperfd, o->rules)};
    if (!o->dry_run)
        cp_staging_sweep(o->rootfd);
    land_entries(&l, o->upperfd, "");
    if (o->git != NULL)
        cp_git_land(&(struct cp_git_land_opts){.rootfd = o->rootfd,
                                               .upfd = o->git->upperfd,
                                               .where = o->git->where,
                                               .herefd = o->git->herefd,
                                               .worktree = o->git->worktree,
                                               .since_ns = o->since_ns,
                                               .dry_run = o->dry_run,
                                               .rep = rep,
                                               .refuse = git_refuse,
                                               .tell = git_tell,
                                               .ctx = &l});
    cp_layer_stage_close(&l);
    cp_links_free(l.links);
    return 0;
}
