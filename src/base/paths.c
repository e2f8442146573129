/* Home folders, and whole-file reads and atomic writes for the files conch-place owns. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/buf.h"
#include "src/base/digest.h"
#include "src/base/paths.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

int cp_home_dir(char **out, cp_error_t *err)
{
    const char *h = getenv("HOME");
    if (h != NULL && h[0] == '/') {
        *out = xstrdup(h);
        return 0;
    }
    struct passwd *pw = getpwuid(getuid());
    if (pw == NULL || pw->pw_dir == NULL || pw->pw_dir[0] != '/')
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0,
                             "no home folder: HOME is unset and uid %u "
                             "has no entry in the password database",
                             (unsigned)getuid());
    *out = xstrdup(pw->pw_dir);
    return 0;
}

int cp_conch_home(int create, char **out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    const char *env = getenv("CONCH_HOME");
    if (env != NULL && env[0] != '\0') {
        if (env[0] != '/')
            return cp_error_make(err, CP_ERR_USAGE, 0, "CONCH_HOME='%s' is not an absolute path",
                                 env);
        dir = xstrdup(env);
    } else {
        cleanup_free char *home = NULL;
        if (cp_home_dir(&home, err) < 0)
            return cp_error_code(err);
        dir = xasprintf("%s/.conch", home);
    }
    if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    *out = steal_pointer(&dir);
    return 0;
}

int cp_workplaces_dir(char **out, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_conch_home(1, &home, err) < 0)
        return cp_error_code(err);
    cleanup_free char *dir = xasprintf("%s/workplaces", home);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    *out = steal_pointer(&dir);
    return 0;
}

char *cp_home_mark(void)
{
    cleanup_free char *wp = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_workplaces_dir(&wp, &err) < 0)
        return NULL;
    cleanup_free char *real = realpath(wp, NULL);
    const char *name = real != NULL ? real : wp;
    uint8_t sum[CP_SHA256_LEN];
    cp_sha256(name, strlen(name), sum);
    char hex[17];
    for (size_t i = 0; i < 8; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    return xstrdup(hex);
}

char *cp_person_dir(void)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char *dir = xdg != NULL && xdg[0] == '/'
                    ? xasprintf("%s/conch-place", xdg)
                    : xasprintf("/tmp/conch-place-%u", (unsigned)geteuid());
    cleanup_error cp_error_t err = NULL;
    if (cp_unix_private_dir(dir, &err) < 0) {
        free(dir);
        return NULL;
    }
    return dir;
}

int cp_write_file_atomic(const char *path, const char *data, size_t len, unsigned mode,
                         cp_error_t *err)
{
    cleanup_free char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    cleanup_close int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write %s", tmp);
    if (fchmod(fd, mode) < 0 || cp_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
        int e = errno;
        unlink(tmp);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot write %s", tmp);
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot replace %s", path);
    }
    return 0;
}

int cp_read_fd(const char *path, int fd, size_t max, char **out, size_t *len_out, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, max);
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read %s", path);
        if (n == 0)
            break;
        if (cp_buf_append(&b, chunk, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s is larger than %zu bytes", path, max);
    }
    if (len_out != NULL)
        *len_out = b.len;
    *out = cp_buf_steal(&b);
    return 0;
}

int cp_read_file(const char *path, size_t max, char **out, size_t *len_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cp_error_make(err, errno == ENOENT ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, errno,
                             "cannot read %s", path);
    return cp_read_fd(path, fd, max, out, len_out, err);
}

/* Why real may not be the work folder: it is home, holds it, or is /, so every key and
 * setting of the person's would be in the command's reach, more than the protected places can
 * name. NULL when it may. */
static char *too_wide(const char *real, const char *home)
{
    if (strcmp(real, "/") == 0)
        return xstrdup("the work folder is /, which holds every folder of this computer");
    cleanup_free char *h = home && home[0] == '/' ? realpath(home, NULL) : NULL;
    size_t n = strlen(real);
    if (h == NULL || strncmp(h, real, n) != 0 || (h[n] != '\0' && h[n] != '/'))
        return NULL;
    return h[n] == '\0' ? xasprintf("the work folder %s is your home folder", real)
                        : xasprintf("the work folder %s holds your home folder %s", real, h);
}

int cp_workdir_resolve(const char *asked, char **out, cp_error_t *err)
{
    const char *dir = asked ? asked : ".";
    cleanup_free char *real = realpath(dir, NULL);
    if (real == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used", dir);
    struct passwd *pw = getpwuid(getuid());
    cleanup_free char *why = too_wide(real, getenv("HOME"));
    if (why == NULL)
        why = too_wide(real, pw ? pw->pw_dir : NULL);
    if (why != NULL) {
        cp_error_make(err, CP_ERR_FAILED, 0,
                      "%s: a command there would reach every key and setting you have", why);
        cp_error_hint(err, "Run it in the project's own folder (cd there, or --workdir DIR).");
        return CP_ERR_FAILED;
    }
    *out = steal_pointer(&real);
    return 0;
}

char *cp_path_dots_resolved(const char *rel)
{
    char *out = xmalloc(strlen(rel) + 1);
    size_t n = 0;
    for (const char *c = rel; *c != '\0';) {
        while (*c == '/')
            c++;
        size_t len = strcspn(c, "/");
        if (len == 2 && c[0] == '.' && c[1] == '.') {
            if (n == 0) {
                free(out);
                return NULL;
            }
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
        } else if (len > 0 && !(len == 1 && c[0] == '.')) {
            if (n > 0)
                out[n++] = '/';
            memcpy(out + n, c, len);
            n += len;
        }
        c += len;
    }
    out[n] = '\0';
    return out;
}
