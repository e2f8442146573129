/* The git gate's answers read from loose objects here, before it asks a git process (each costs
 * about 1.5 ms): whether an object is here, and whether a commit's parent is a given one. Each
 * answers only when a loose object tells it; otherwise the caller asks git. */
#ifndef CONCH_MIRROR_GIT_LOOSE_H
#define CONCH_MIRROR_GIT_LOOSE_H

#include <stdbool.h>

/* Whether objects/xx/rest under the open .git folder gitfd is a regular file: a loose object
 * here (the landing put in only objects it hashed against their names). */
bool cp_git_loose_here(int gitfd, const char *hex);

/* Whether the loose commit hex here names parent among its parents: a fast-forward from parent
 * to it. False also when it cannot tell (no loose commit, a header past what it reads). */
bool cp_git_loose_parent_is(int gitfd, const char *hex, const char *parent);

#endif
