/* The walk every write, delete and read in the work folder goes through: one component at a
 * time from the folder's handle, never through a link (abuse cases 25, 26, 29, 41). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/rules.h"
#include "mirror/walk.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

static const char *walk_why(int e)
{
    if (e == ELOOP || e == ENOTDIR)
        return "a link or a file is on the way";
    return e == ENOENT ? "no such folder" : "a folder on the way cannot be opened";
}

/* Opens the folder that holds path's last component, one real folder at a time (I6). A link,
 * a non-folder or another file system on the way refuses the name: *why says which. */
int cp_walk_parent(int rootfd, uint64_t dev, const char *path, bool create, int *out,
                   const char **base, const char **why)
{
    cleanup_close int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const char *c = path;
    for (const char *slash; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
        char comp[CP_NAME_MAX + 1];
        size_t len = (size_t)(slash - c);
        if (len == 0 || len > CP_NAME_MAX) {
            *why = "bad component";
            return -1;
        }
        memcpy(comp, c, len);
        comp[len] = '\0';
        int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        int next = openat(fd, comp, flags);
        if (next < 0 && errno == ENOENT && create &&
            (mkdirat(fd, comp, 0755) == 0 || errno == EEXIST))
            next = openat(fd, comp, flags);
        if (next < 0) {
            *why = walk_why(errno);
            return -1;
        }
        struct stat st;
        if (fstat(next, &st) < 0 || (uint64_t)st.st_dev != dev) {
            close(next);
            *why = "another file system is mounted on the way";
            return -1;
        }
        close(fd);
        fd = next;
    }
    *base = c;
    *out = steal_fd(&fd);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **cp_walk_names(int dirfd)
{
    int fd =
        openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* a read position of its own */
    cleanup_dir DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct cp_strvec v = {0};
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            cp_strvec_push(&v, e->d_name);
    if (v.n > 1)
        qsort(v.v, v.n, sizeof(char *), by_name);
    return cp_strvec_steal(&v);
}
