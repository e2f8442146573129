/* Reaching a file's folder inside the work folder without following a link. */
#ifndef CONCH_MIRROR_WALK_H
#define CONCH_MIRROR_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Opens the folder holding path's last component, reopening each folder on the way from
 * rootfd with O_NOFOLLOW|O_DIRECTORY and creating missing ones when create is set. A link, a
 * file, or a folder whose device is not dev, on the way: -1 and *why says which. *base points into
 * path at the last component; the caller owns *out. */
int cp_walk_parent(int rootfd, uint64_t dev, const char *path, bool create, int *out,
                   const char **base, const char **why);

/* The names in the open folder dirfd (no "." or ".."), sorted; NULL when it cannot be read.
 * Yours (cleanup_strv). */
char **cp_walk_names(int dirfd);

/* A deletion in an overlay's upper folder: a 0/0 character device, which only the overlay makes
 * (a box has no CAP_MKNOD). Inline, so the layer's walk and the git gate's read it alike. */
static inline bool cp_walk_is_whiteout(const struct stat *st)
{
    return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

#endif
