/* What the folder's host-run settings name: the files git's config includes, the folder
 * core.hooksPath names, the programs core.fsmonitor, core.pager, diff and merge drivers, filters
 * and aliases run, Yarn's yarnPath. A file landing on one
 * would run at the next git or yarn command here, so the landing refuses them like the host-run
 * table's entries. Neither git nor yarn is run to learn them: their files are read as text. */
#ifndef CONCH_GIT_HOOKS_H
#define CONCH_GIT_HOOKS_H

#include <stddef.h>

/* The last core.hooksPath value in text (git's config syntax: sections, keys case-insensitive,
 * quoted values), or NULL. Includes are not followed. The caller frees it. */
char *cp_git_hooks_value(const char *text, size_t len);

/* core.hooksPath as git in workdir would read it (the system, global and repository config, and
 * what they include; the repository found upward from workdir), relative to workdir when it
 * lies inside it ("." for the folder itself), else NULL (unset, or outside the folder). The
 * caller frees it. */
char *cp_git_hooks_path(const char *workdir);

/* A .yarnrc.yml's top-level yarnPath (YAML), or NULL. The caller frees it. */
char *cp_yarnrc_yarn_path(const char *text, size_t len);

/* Every path in workdir (a real path) that a host-run setting names, relative to it, each to
 * be refused with all under it (cp_rules' named): the files git's config pulls in through
 * include.path and includeIf.*.path (whatever the condition; a relative path from the including
 * file), and every config file git reads that lies in the folder (a home's ~/.gitconfig); every
 * core.hooksPath ("." for the folder itself: the hooks' names there) and every word that could
 * be a program or its script of a command git runs (core.fsmonitor, sshCommand, pager, editor,
 * askPass, diff.external, diff.*.textconv and command, merge.*.driver, filter.*.clean, smudge
 * and process, credential.helper, gpg.*program, sequence.editor, a '!' alias, ...:
 * git-config-text.c's git_keys), from the repository's top; as git reads them for
 * the repository at or above workdir (its .git a folder, a linked worktree's or submodule's
 * file naming its git folder) and for every submodule under its git folder's modules/, after
 * the system and person's files. And the yarnPath (.yarnrc.yml) or yarn-path (.yarnrc) of the
 * rc files in workdir and every folder above it, and the pnpmfile an .npmrc there names
 * (pnpmfile, global-pnpmfile; pnpm runs it at the next install, --ignore-scripts too). A link is
 * followed where it exists (the tool will), and the text is taken too. Never NULL; free it with
 * cp_strv_free. */
char **cp_host_run_named(const char *workdir);

#endif
