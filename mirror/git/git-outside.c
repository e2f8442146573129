/* Finding the git folder a work folder's .git file names, and checking it is a git folder that
 * is really that folder's (git-outside.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/git/git-outside.h"
#include "src/base/paths.h"
#include "src/base/util.h"

void cp_git_outside_dispose(struct cp_git_outside *g)
{
    free(g->dir);
    free(g->worktree);
    free(g->owner);
    *g = (struct cp_git_outside){0};
}

/* The first line of a small file, after prefix (NULL: none); NULL when it is not so. */
static char *first_line(const char *path, const char *prefix)
{
    cleanup_free char *text = NULL;
    if (cp_read_file(path, 4096, &text, NULL, NULL) < 0)
        return NULL;
    size_t skip = 0;
    if (prefix != NULL) {
        if (strncmp(text, prefix, strlen(prefix)) != 0)
            return NULL;
        skip = strlen(prefix);
        skip += strspn(text + skip, " \t");
    }
    text[skip + strcspn(text + skip, "\r\n")] = '\0';
    return text[skip] != '\0' ? xstrdup(text + skip) : NULL;
}

/* The real path of name, read relative to base when it is not absolute. */
static char *real_from(const char *base, const char *name)
{
    cleanup_free char *joined = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", base, name);
    return realpath(joined, NULL);
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || n == 1);
}

/* A git folder as git tells one: HEAD a file, objects/ and refs/ folders. */
static bool is_git_folder(const char *dir)
{
    static const char *const parts[] = {"HEAD", "objects", "refs"};
    for (size_t i = 0; i < 3; i++) {
        cleanup_free char *p = xasprintf("%s/%s", dir, parts[i]);
        struct stat st;
        if (lstat(p, &st) < 0 || (i == 0 ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode)))
            return false;
    }
    return true;
}

/* The folder that holds dir as its .git (M for M/.git and M/.git/modules/NAME), whose runs'
 * landings take the same lock; dir itself when none does (a bare or separate git folder). */
static char *owner_of(const char *dir)
{
    size_t n = strlen(dir);
    if (n > 5 && strcmp(dir + n - 5, "/.git") == 0)
        return strndup(dir, n - 5);
    const char *in = strstr(dir, "/.git/");
    return in != NULL && in != dir ? strndup(dir, (size_t)(in - dir)) : xstrdup(dir);
}

/* A linked worktree: gitdir is COMMON/worktrees/NAME, and its gitdir file names dotgit back. */
static int worktree_of(const char *gitdir, const char *common, const char *dotgit, char **name,
                       char **why_not)
{
    cleanup_free char *wts = xasprintf("%s/worktrees/", common);
    const char *rest = strncmp(gitdir, wts, strlen(wts)) == 0 ? gitdir + strlen(wts) : NULL;
    if (rest == NULL || rest[0] == '\0' || strchr(rest, '/') != NULL) {
        *why_not = xasprintf("its git folder %s is not in %sworktrees", gitdir, common);
        return -1;
    }
    cleanup_free char *back_file = xasprintf("%s/gitdir", gitdir);
    cleanup_free char *back = first_line(back_file, NULL);
    cleanup_free char *back_real = back != NULL ? real_from(gitdir, back) : NULL;
    cleanup_free char *mine = realpath(dotgit, NULL);
    if (back_real == NULL || mine == NULL || strcmp(back_real, mine) != 0) {
        *why_not = xasprintf("the worktree %s names another folder (git worktree repair mends "
                             "that)",
                             rest);
        return -1;
    }
    *name = xstrdup(rest);
    return 0;
}

static int checked(const char *workdir, const char *gitdir, struct cp_git_outside *out,
                   char **why_not)
{
    cleanup_free char *common_line = NULL, *common_file = xasprintf("%s/commondir", gitdir);
    struct stat st;
    bool linked = lstat(common_file, &st) == 0;
    if (linked && (common_line = first_line(common_file, NULL)) == NULL) {
        *why_not = xasprintf("%s cannot be read", common_file);
        return -1;
    }
    cleanup_free char *common = linked ? real_from(gitdir, common_line) : xstrdup(gitdir);
    if (common == NULL || !is_git_folder(common)) {
        *why_not = xasprintf("%s is not a git folder", common ? common : common_line);
        return -1;
    }
    if (strcmp(common, "/") == 0 || under(common, workdir) || under(workdir, common)) {
        *why_not = xasprintf("its git folder %s and the work folder hold one another", common);
        return -1;
    }
    cleanup_free char *name = NULL, *dotgit = xasprintf("%s/.git", workdir);
    if (linked && worktree_of(gitdir, common, dotgit, &name, why_not) < 0)
        return -1;
    *out = (struct cp_git_outside){
        .dir = steal_pointer(&common), .worktree = steal_pointer(&name), .owner = NULL};
    out->owner = owner_of(out->dir);
    return 1;
}

int cp_git_outside_find(const char *workdir, struct cp_git_outside *out, char **why_not)
{
    *out = (struct cp_git_outside){0};
    *why_not = NULL;
    cleanup_free char *dotgit = xasprintf("%s/.git", workdir);
    struct stat st;
    if (lstat(dotgit, &st) < 0 || S_ISDIR(st.st_mode))
        return 0;
    if (S_ISLNK(st.st_mode)) {
        *why_not = xstrdup("its .git is a link, which the box's layer does not follow");
        return -1;
    }
    cleanup_free char *named = S_ISREG(st.st_mode) ? first_line(dotgit, "gitdir:") : NULL;
    cleanup_free char *gitdir = named != NULL ? real_from(workdir, named) : NULL;
    if (gitdir == NULL) {
        *why_not = xstrdup("its .git file names no git folder that is there");
        return -1;
    }
    return checked(workdir, gitdir, out, why_not);
}
