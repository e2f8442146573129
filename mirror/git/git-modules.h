/* Submodules' git folders through the gate (issue 32): a git folder's modules/ holds one git
 * folder per submodule, at modules/NAME (NAME may hold '/'), and theirs nest in turn. Each one
 * that is here lands by git's table as a git folder of its own; one the box made does not. */
#ifndef CONCH_MIRROR_GIT_MODULES_H
#define CONCH_MIRROR_GIT_MODULES_H

struct cp_git_modules {
    int herefd; /* the git folder here whose modules/ is walked (-1: none here) */
    int upfd;   /* the layer's copy of that git folder */
    int depth;  /* how deep that git folder is in submodules already (0: the top .git) */
    /* A submodule's git folder that is here: herefd and upfd are the folder here and in the
     * layer (borrowed for the call), rel its path in the walked git folder ("modules/a/b"). */
    void (*land)(void *ctx, int herefd, int upfd, const char *rel);
    /* rel (in the walked git folder) never lands, for why. */
    void (*refuse)(void *ctx, const char *rel, const char *why);
    void *ctx;
};

/* Walks the layer's modules/ of the git folder m names: every submodule's git folder here that
 * the box changed goes to land, and everything else to refuse with its reason. */
void cp_git_modules_walk(const struct cp_git_modules *m);

/* The words for a submodule's git folder the box made, which is not here. */
extern const char cp_git_module_new_why[];

#endif
