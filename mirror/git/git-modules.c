/* The walk of a git folder's modules/ in the layer: which folders are submodules' git folders
 * that are here (they land, each by git's table as a git folder of its own,
 * mirror/git/git-landing.c), which the box made (never: their config and hooks would be new here,
 * and nothing of this computer's vouches for their objects' source), and what is neither. A folder
 * is a git folder when it holds a HEAD file, as git itself decides; here, not the box's word for
 * it. */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/git/git-modules.h"
#include "mirror/walk.h"
#include "src/base/util.h"

/* NAME's folders below modules/, and the nesting of submodules in submodules, are bounded. */
#define MODULES_MAX_DEPTH 16

const char cp_git_module_new_why[] =
    "a submodule's git folder made in the box never lands (none is here): add the submodule "
    "here (git submodule add, or git submodule update --init) and run the command again";

static bool is_git_folder(int fd)
{
    struct stat st;
    return fd >= 0 && fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

static void walk(const struct cp_git_modules *m, int herefd, int upfd, const char *rel, int depth);

/* One entry of the layer's folder rel: a git folder here lands, one new is refused whole, a
 * folder on a NAME's way is walked. */
static void visit(const struct cp_git_modules *m, int herefd, int upfd, const char *rel,
                  const char *name, int depth)
{
    cleanup_free char *path = xasprintf("%s/%s", rel, name);
    struct stat st;
    if (fstatat(upfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        m->refuse(m->ctx, path, "unreadable");
        return;
    }
    if (cp_walk_is_whiteout(&st)) {
        m->refuse(m->ctx, path, "nothing under modules/ is deleted here");
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        m->refuse(m->ctx, path, "in no submodule's git folder here: not on git's table");
        return;
    }
    cleanup_close int up = openat(upfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int here =
        herefd >= 0 ? openat(herefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (up < 0)
        m->refuse(m->ctx, path, "unreadable folder");
    else if (is_git_folder(here))
        m->land(m->ctx, here, up, path);
    else if (is_git_folder(up))
        m->refuse(m->ctx, path, cp_git_module_new_why);
    else if (depth >= MODULES_MAX_DEPTH)
        m->refuse(m->ctx, path, "nested too deep");
    else
        walk(m, here, up, path, depth + 1);
}

static void walk(const struct cp_git_modules *m, int herefd, int upfd, const char *rel, int depth)
{
    cleanup_strv char **names = cp_walk_names(upfd);
    if (names == NULL) {
        m->refuse(m->ctx, rel, "unreadable folder");
        return;
    }
    for (size_t i = 0; names[i] != NULL; i++)
        visit(m, herefd, upfd, rel, names[i], depth);
}

void cp_git_modules_walk(const struct cp_git_modules *m)
{
    cleanup_close int up =
        openat(m->upfd, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int here =
        m->herefd >= 0
            ? openat(m->herefd, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            : -1;
    if (up < 0)
        m->refuse(m->ctx, "modules", "unreadable folder");
    else
        walk(m, here, up, "modules", m->depth);
}
