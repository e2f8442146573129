/* The one way conch-place makes an image: a script lays out a root filesystem, the API imports. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/images.h"
#include "places/container/rootfs.h"
#include "src/base/log.h"
#include "src/base/util.h"

char *cp_self_path(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    return xstrdup(self);
}

/* Beside an uninstalled binary's source tree, else the installed data folder. */
static char *script_path(const char *name)
{
    cleanup_free char *self = cp_self_path();
    char *slash = self ? strrchr(self, '/') : NULL;
    if (slash != NULL) {
        *slash = '\0';
        char *local = xasprintf("%s/images/%s", self, name);
        if (access(local, R_OK) == 0)
            return local;
        free(local);
    }
    return xasprintf("%s/images/%s", PKGDATADIR, name);
}

static int run(const char *const argv[], const char *binary, cp_error_t *err)
{
    pid_t pid = fork();
    if (pid < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "fork");
    if (pid == 0) {
        if (binary != NULL)
            setenv("CONCH_EGRESS_BINARY", binary, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "waitpid");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "%s %s failed (status %d); its output above "
                             "says why",
                             argv[0], argv[1] ? argv[1] : "",
                             WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}

int cp_rootfs_image(struct cp_engine *e, const char *script, const char *image,
                    const char *const *changes, const char *binary, cp_error_t *err)
{
    cleanup_free char *path = script_path(script);
    char tmpl[] = "/var/tmp/conch-rootfs-XXXXXX";
    if (mkdtemp(tmpl) == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a folder in /var/tmp");
    cp_debug("making %s from a root filesystem in %s with %s", image, tmpl, path);
    int r = run((const char *const[]){"/bin/sh", path, tmpl, NULL}, binary, err);
    if (r == 0)
        r = cp_image_import(e, tmpl, image, changes, err);
    cleanup_error cp_error_t rm_err = NULL;
    run((const char *const[]){"/bin/rm", "-rf", "--one-file-system", "--", tmpl, NULL}, NULL,
        &rm_err);
    return r;
}
