/* The mirror's git part, as the rest of the mirror sees it: a git folder's landing through the
 * gate by git's own table (git-landing.h), a git folder outside the work folder (a linked
 * worktree's, git-outside.h), and the commits a held run's moved refs bring, drawn
 * for `changes --diff` (git-commits.h). What else is here (the table, loose objects, packs,
 * refs, submodules' folders, git run here) is the landing's own. */
#ifndef CONCH_MIRROR_GIT_GIT_H
#define CONCH_MIRROR_GIT_GIT_H

#include "mirror/git/git-commits.h"
#include "mirror/git/git-landing.h"
#include "mirror/git/git-outside.h"

#endif
