/* `changes --diff` for a ref a held run moved: the commits it brings, drawn by git log here
 * with the layer's objects read beside this computer's (they are not here until it lands). */
#ifndef CONCH_MIRROR_GIT_COMMITS_H
#define CONCH_MIRROR_GIT_COMMITS_H

/* Prints "REF: OLD -> NEW" (a submodule's with its git folder first) and git log --stat of the
 * commits NEW has that OLD (or, for a new ref, every ref here) has not, at most 50; git is the
 * git folder under workdir (".git", ".git/modules/NAME"; "": workdir is a git folder outside the
 * work folder, and up its layer's), ref is "refs/...", up the run's upper folder (the
 * box is gone). Nothing when either value cannot be read as an object id. */
void cp_git_show_commits(const char *workdir, const char *up, const char *git, const char *ref);

#endif
