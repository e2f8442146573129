/* The repositories git in the work folder reads (the one at or above it, a linked worktree's
 * common git folder, every submodule's), and the person's config before theirs; what their
 * config names, as git-hooks.c places it in the folder. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/base/git-hooks/git-hooks-int.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

/* Submodules looked at, and how deep their names' folders nest under .git/modules. */
#define MODULES_MAX   256
#define MODULES_DEPTH 8

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A .git file's "gitdir: X" (X from the file's folder), or NULL. */
static char *gitdir_of_file(const char *dotgit, const char *dir)
{
    size_t len = 0;
    cleanup_free char *text = cp_git_hooks_read_text(dotgit, &len);
    if (text == NULL || strncmp(text, "gitdir:", 7) != 0)
        return NULL;
    char *v = text + 7;
    v += strspn(v, " \t");
    v[strcspn(v, "\r\n")] = '\0';
    return v[0] == '\0' ? NULL : v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", dir, v);
}

/* A git folder's config files: its own config, or its commondir's (a linked worktree's), and
 * the worktree's config.worktree. */
static void read_gitdir(const char *gitdir, struct found *f, char **common_out)
{
    size_t len = 0;
    cleanup_free char *cpath = xasprintf("%s/commondir", gitdir);
    cleanup_free char *cd = cp_git_hooks_read_text(cpath, &len);
    if (cd != NULL)
        cd[strcspn(cd, "\r\n")] = '\0';
    char *common = cd && cd[0] ? (cd[0] == '/' ? xstrdup(cd) : xasprintf("%s/%s", gitdir, cd))
                               : xstrdup(gitdir);
    cleanup_free char *config = xasprintf("%s/config", common);
    cleanup_free char *wt = xasprintf("%s/config.worktree", gitdir);
    cp_git_hooks_read_config(config, f, 0);
    cp_git_hooks_read_config(wt, f, 0);
    *common_out = common;
}

/* The repository's top (the folder holding .git) at or above workdir, and its git folder. */
static char *find_repo(const char *workdir, char **gitdir_out)
{
    cleanup_free char *dir = xstrdup(workdir);
    for (;;) {
        cleanup_free char *dotgit = xasprintf("%s/.git", dir);
        struct stat st;
        if (lstat(dotgit, &st) == 0) {
            *gitdir_out =
                S_ISDIR(st.st_mode) ? steal_pointer(&dotgit) : gitdir_of_file(dotgit, dir);
            return *gitdir_out ? steal_pointer(&dir) : NULL;
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return NULL;
        *slash = '\0';
    }
}

struct modules {
    struct cp_strvec *out;
    const struct found *global;
    const char *workdir;
    size_t seen;
};

/* Each submodule's git folder under modules/ (a name may hold '/'): its config, read from its
 * core.worktree's top, then its own submodules. */
static void walk_modules(struct modules *m, const char *dir, int depth)
{
    if (depth > MODULES_DEPTH || m->seen >= MODULES_MAX)
        return;
    __attribute__((cleanup(cp_cleanup_closedirp))) DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && m->seen < MODULES_MAX;) {
        if (e->d_name[0] == '.')
            continue;
        cleanup_free char *sub = xasprintf("%s/%s", dir, e->d_name);
        cleanup_free char *head = xasprintf("%s/HEAD", sub);
        if (!is_dir(sub))
            continue;
        if (!is_file(head)) {
            walk_modules(m, sub, depth + 1);
            continue;
        }
        m->seen++;
        struct found f __attribute__((cleanup(cp_git_hooks_found_dispose))) = {0};
        cleanup_free char *common = NULL;
        read_gitdir(sub, &f, &common);
        cleanup_free char *top = f.worktree ? cp_git_hooks_include_target(head, f.worktree) : NULL;
        if (top != NULL)
            cp_git_hooks_add_repo(m->out, m->global, &f, top, m->workdir);
        cleanup_free char *nested = xasprintf("%s/modules", sub);
        walk_modules(m, nested, depth + 1);
    }
}

static void read_person(struct found *global)
{
    const char *home = getenv("HOME");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    cp_git_hooks_read_config("/etc/gitconfig", global, 0);
    cleanup_free char *xdg_file = xdg && *xdg ? xasprintf("%s/git/config", xdg)
                                  : home      ? xasprintf("%s/.config/git/config", home)
                                              : NULL;
    cp_git_hooks_read_config(xdg_file, global, 0);
    cleanup_free char *person = home ? xasprintf("%s/.gitconfig", home) : NULL;
    cp_git_hooks_read_config(person, global, 0);
}

/* The person's settings into global, and the repository workdir lies in (its top, the
 * caller's, or NULL) with its own into f; *gitdir its git folder and *common a linked
 * worktree's common one, the caller's. */
static char *read_all(const char *workdir, struct found *global, struct found *f, char **gitdir,
                      char **common)
{
    read_person(global);
    char *top = find_repo(workdir, gitdir);
    if (top != NULL)
        read_gitdir(*gitdir, f, common);
    return top;
}

void cp_git_hooks_add_git(struct cp_strvec *out, const char *workdir)
{
    struct found global __attribute__((cleanup(cp_git_hooks_found_dispose))) = {0};
    struct found f __attribute__((cleanup(cp_git_hooks_found_dispose))) = {0};
    cleanup_free char *gitdir = NULL, *common = NULL;
    cleanup_free char *top = read_all(workdir, &global, &f, &gitdir, &common);
    cp_git_hooks_add_repo(out, &global, &f, top ? top : workdir, workdir);
    if (common == NULL)
        return;
    /* A linked worktree's submodules have their git folders under its own git folder. */
    struct modules m = {.out = out, .global = &global, .workdir = workdir};
    cleanup_free char *modules = xasprintf("%s/modules", common);
    walk_modules(&m, modules, 0);
    cleanup_free char *own = strcmp(common, gitdir) != 0 ? xasprintf("%s/modules", gitdir) : NULL;
    if (own != NULL)
        walk_modules(&m, own, 0);
}

char *cp_git_hooks_path(const char *workdir)
{
    struct found global __attribute__((cleanup(cp_git_hooks_found_dispose))) = {0};
    struct found f __attribute__((cleanup(cp_git_hooks_found_dispose))) = {0};
    cleanup_free char *gitdir = NULL, *common = NULL;
    cleanup_free char *top = read_all(workdir, &global, &f, &gitdir, &common);
    const struct found *last = f.hooks.n > 0 ? &f : &global;
    const char *v = last->hooks.n > 0 ? last->hooks.v[last->hooks.n - 1] : NULL;
    if (v == NULL || v[0] == '\0')
        return NULL;
    struct cp_strvec one __attribute__((cleanup(cp_strvec_dispose))) = {0};
    cleanup_free char *abs = cp_git_hooks_from_top(top ? top : workdir, v);
    if (abs != NULL)
        cp_git_hooks_add_inside(&one, abs, workdir, true);
    return one.n > 0 ? xstrdup(one.v[0]) : NULL;
}
