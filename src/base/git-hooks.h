/* Where git looks for hooks when it runs in a folder: the folder core.hooksPath names. A file
 * landing there would run at the next commit or checkout, so the landing refuses it like the
 * host-run table's entries. Git is never run to learn it: its config files are read as text. */
#ifndef CONCH_GIT_HOOKS_H
#define CONCH_GIT_HOOKS_H

#include <stddef.h>

/* The last core.hooksPath value in text (git's config syntax: sections, keys case-insensitive,
 * quoted values), or NULL. The caller frees it. */
char *cp_git_hooks_value(const char *text, size_t len);

/* core.hooksPath as git in workdir would read it (the system, global and repository config; the
 * repository found upward from workdir), relative to workdir when it lies inside it ("." for
 * the folder itself), else NULL (unset, or outside the folder). The caller frees it. */
char *cp_git_hooks_path(const char *workdir);

#endif
