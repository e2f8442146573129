/* The real file access of the config reader: checked opens, bounded reads, sorted globs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/ssh/ssh_config.h"
#include "src/base/buf.h"
#include "src/base/paths.h"
#include "src/base/util.h"

int cp_ssh_check_file_owner(const char *path, int fd, cp_error_t *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "%s: cannot stat", path);
    if (S_ISDIR(st.st_mode))
        return cp_error_make(err, CP_ERR_NOT_FOUND, EISDIR, "%s", path);
    if (!S_ISREG(st.st_mode))
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "%s: not a regular file", path);
    if ((st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & 022) != 0) {
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "%s: bad owner or permissions (owner uid %u, mode %04o): others could "
                      "change where conch-place connects",
                      path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        cp_error_hint(err, "Make it yours and writable only by you: chmod go-w '%s'", path);
        return CP_ERR_UNSAFE;
    }
    if (st.st_size > CP_SSH_MAX_FILE_SIZE)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s: larger than %d bytes", path,
                             CP_SSH_MAX_FILE_SIZE);
    return 0;
}

/* O_NONBLOCK so a FIFO planted where a config is expected cannot hang the open. */
static int fs_read(void *ctx, const char *path, char **out, size_t *len_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return cp_error_make(err, errno == ENOENT ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, errno,
                             "%s: cannot open", path);
    if (cp_ssh_check_file_owner(path, fd, err) < 0)
        return cp_error_code(err);
    return cp_read_fd(path, fd, CP_SSH_MAX_FILE_SIZE, out, len_out, err);
}

static int fs_glob(void *ctx, const char *pattern, size_t max, char ***out, cp_error_t *err)
{
    glob_t g = {0};
    int r = glob(pattern, 0, NULL, &g);
    if (r == GLOB_NOMATCH) {
        globfree(&g);
        *out = xcalloc(1, sizeof(char *));
        return 0;
    }
    if (r != 0) {
        globfree(&g);
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s: cannot list the files it names", pattern);
    }
    if (g.gl_pathc > max) {
        globfree(&g);
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s matches more than %zu files", pattern,
                             max);
    }
    char **v = xcalloc(g.gl_pathc + 1, sizeof(char *));
    for (size_t i = 0; i < g.gl_pathc; i++)
        v[i] = xstrdup(g.gl_pathv[i]);
    globfree(&g);
    *out = v;
    return 0;
}

int cp_ssh_fs_init_default(struct cp_ssh_fs *fs, cp_error_t *err)
{
    struct passwd *pw = getpwuid(getuid());
    if (pw == NULL || pw->pw_name == NULL)
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0,
                             "uid %u has no entry in the password database", (unsigned)getuid());
    char *home = NULL;
    if (cp_home_dir(&home, err) < 0)
        return cp_error_code(err);
    fs->read = fs_read;
    fs->glob = fs_glob;
    fs->ctx = NULL;
    fs->home = home;
    fs->local_user = xstrdup(pw->pw_name);
    return 0;
}

void cp_ssh_fs_dispose(struct cp_ssh_fs *fs)
{
    free((char *)fs->home);
    free((char *)fs->local_user);
    fs->home = fs->local_user = NULL;
}
