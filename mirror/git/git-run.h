/* git run here on this computer's repository for the gate and `changes`: a clean environment,
 * this computer's repository config only (never the box's, never the person's or the
 * system's), no hooks, no fsmonitor, no replace refs, no prompt. */
#ifndef CONCH_MIRROR_GIT_RUN_H
#define CONCH_MIRROR_GIT_RUN_H

/* git ARGS... with GIT_DIR the open .git folder gitfd; its output into outfd (-1: none), its
 * errors dropped; env1 one more variable (NULL: none). The exit status, or -1. */
int cp_git_run_here(int gitfd, char *const *args, int outfd, const char *env1);

#endif
