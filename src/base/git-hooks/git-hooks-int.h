/* What the files of src/base/git-hooks/ share: what one git config file says that runs code
 * here, its reader, and where a path named lands in the work folder. Not for other modules. */
#ifndef CONCH_GIT_HOOKS_INT_H
#define CONCH_GIT_HOOKS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "src/base/strvec.h"

/* What one config file (and what it includes) says that runs code here. */
struct found {
    struct cp_strvec includes; /* absolute paths of the config files read or included */
    struct cp_strvec hooks;    /* core.hooksPath values, as written */
    struct cp_strvec commands; /* command lines git runs (core.fsmonitor, core.pager, ...) */
    struct cp_strvec paths;    /* programs or folders named as a path (mergetool.*.path, ...) */
    char *worktree;            /* the last core.worktree */
    size_t files;              /* read so far */
};

void cp_git_hooks_found_dispose(struct found *f);
/* A plain file's text (NUL-terminated, at most a config file's size), or NULL. */
char *cp_git_hooks_read_text(const char *path, size_t *len_out);
/* Reads one config file (and, to depth, what it includes) into f (git-config-text.c). */
void cp_git_hooks_read_config(const char *path, struct found *f, int depth);
/* An include's path: "~/" from $HOME, a relative one from the including file's folder. */
char *cp_git_hooks_include_target(const char *from, const char *v);

/* Adds abs, relative to workdir, when it lies inside it (named-paths.c); "." only if folder_ok. */
void cp_git_hooks_add_inside(struct cp_strvec *out, const char *abs, const char *workdir,
                             bool folder_ok);
/* A value git reads as a path, "~/" from $HOME, a relative one from the repository's top. */
char *cp_git_hooks_from_top(const char *top, const char *v);
/* What one repository's config (and the person's, before it) names, relative to its top. */
void cp_git_hooks_add_repo(struct cp_strvec *out, const struct found *global, const struct found *f,
                           const char *top, const char *workdir);
/* What git in workdir reads names (git-repos.c), and what Yarn's and pnpm's rc files name
 * (yarn-rc.c). */
void cp_git_hooks_add_git(struct cp_strvec *out, const char *workdir);
void cp_git_hooks_add_yarn(struct cp_strvec *out, const char *workdir);

#endif
