/* Landing the top .git's changes from the container's layer by git's own table
 * (mirror/git/git-table.c), and each submodule's git folder that is here by the same table on its
 * own (a submodule's folder before the folder holding it). In each: loose objects first, each
 * checked against its name and added only; then the index, logs and state files; then refs, each
 * checked (it names an object here, a tag is new, a move that is not a fast-forward is recorded in
 * the ref's reflog); HEAD last. A kill between leaves only unreachable objects, and the next
 * landing finishes. */
#ifndef CONCH_MIRROR_GIT_LANDING_H
#define CONCH_MIRROR_GIT_LANDING_H

#include <stdbool.h>
#include <stdint.h>

#include "mirror/event-lines.h"

struct cp_git_land_opts {
    int rootfd; /* the work folder here */
    int upfd;   /* the layer's .git folder */
    /* A git folder outside the work folder (git-outside.h): where names it in the words, herefd
     * is it here, and worktree names the linked worktree whose box wrote it (NULL: a git
     * folder of the work folder's own). NULL where: the work folder's .git. */
    const char *where;
    int herefd;
    const char *worktree;
    int64_t since_ns; /* a file here whose ctime is at or after this changed during the run */
    bool dry_run;     /* judge and tell, change nothing */
    struct cp_mirror_report *rep;
    /* The layer's own words: path is ".git/..." */
    void (*refuse)(void *ctx, const char *path, const char *why);
    void (*tell)(void *ctx, const char *what, const char *path, const char *why);
    void *ctx;
};

/* Lands what the layer's .git (or the git folder outside) holds, its submodules' git folders
 * too; what lands leaves the layer. */
void cp_git_land(const struct cp_git_land_opts *o);

/* Whether the loose object in the open file fd inflates to bytes whose SHA-1 (hex 40 long) or
 * SHA-256 (64) is hex. NULL when it does, else why not. */
const char *cp_git_object_why(int fd, const char *hex);

#endif
