/* A work folder whose git folder is outside it: a linked worktree (its .git file names
 * COMMON/worktrees/NAME, whose commondir names COMMON), or a folder whose .git file names a git
 * folder of its own (a submodule run on its own, `git init --separate-git-dir`). A sealed box
 * sees that git folder through a second copy-on-write layer at its own path, and what the box
 * wrote there lands through the same gate (git-landing.h): a linked worktree's own HEAD, index
 * and logs under worktrees/NAME and the objects and refs it shares with the main worktree, never
 * the main worktree's own HEAD or index nor another worktree's folder. Found by reading files,
 * as git does, never by running git, which the folder's configuration could make run anything. */
#ifndef CONCH_MIRROR_GIT_OUTSIDE_H
#define CONCH_MIRROR_GIT_OUTSIDE_H

struct cp_git_outside {
    char *dir; /* the git folder the box sees and the gate lands: its real path (COMMON) */
    char
        *worktree; /* a linked worktree's NAME under dir/worktrees; NULL: dir is the folder's own */
    char *owner;   /* whose landing lock guards dir: the folder holding it as its .git, or dir */
};

void cp_git_outside_dispose(struct cp_git_outside *g);
#define cleanup_git_outside __attribute__((cleanup(cp_git_outside_dispose)))

/* 1 with *out filled when workdir's .git is a file naming a git folder outside workdir that
 * checks out (a worktree's gitdir names workdir's .git back); 0 when .git is a folder or there is
 * none; -1 when a .git file or link cannot be followed, with *why_not saying why. */
int cp_git_outside_find(const char *workdir, struct cp_git_outside *out, char **why_not);

#endif
