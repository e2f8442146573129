/* Builds the sidecar's image from /proc/self/exe with images/egress-rootfs.sh. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/egress-image.h"
#include "places/container/images.h"
#include "places/egress/auth.h"
#include "src/log.h"
#include "src/paths.h"
#include "src/util.h"

#define BINARY_MAX (256 * 1024 * 1024)

static char *self_path(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    return xstrdup(self);
}

int cp_egress_image_name(char **out, cp_error_t *err)
{
    cleanup_free char *data = NULL;
    size_t len = 0;
    if (cp_read_file("/proc/self/exe", BINARY_MAX, &data, &len, err) < 0)
        return cp_error_wrap(err, "while naming the egress image after this binary");
    uint8_t digest[32];
    cp_sha256(data, len, digest);
    char hex[13];
    for (size_t i = 0; i < 6; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    *out = xasprintf("%s:%s", CP_IMAGE_EGRESS_REPO, hex);
    return 0;
}

/* Beside an uninstalled binary's source tree, else the installed data folder. */
static char *script_path(void)
{
    cleanup_free char *self = self_path();
    char *slash = self ? strrchr(self, '/') : NULL;
    if (slash != NULL) {
        *slash = '\0';
        char *local = xasprintf("%s/images/egress-rootfs.sh", self);
        if (access(local, R_OK) == 0)
            return local;
        free(local);
    }
    return xasprintf("%s/images/egress-rootfs.sh", PKGDATADIR);
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
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s %s failed (status %d)", argv[0],
                             argv[1] ? argv[1] : "",
                             WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}

int cp_egress_image_build(struct cp_engine *e, char **name_out, cp_error_t *err)
{
    cleanup_free char *name = NULL, *binary = self_path(), *script = script_path();
    if (cp_egress_image_name(&name, err) < 0)
        return cp_error_code(err);
    char tmpl[] = "/var/tmp/conch-egress-XXXXXX";
    if (binary == NULL || mkdtemp(tmpl) == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a folder in /var/tmp");
    cp_debug("making the egress image %s with %s", name, script);
    static const char *const changes[] = {"ENTRYPOINT [\"/conch-place\", \"egress-proxy\"]",
                                          "USER 65534:65534", NULL};
    int r = run((const char *const[]){"/bin/sh", script, tmpl, NULL}, binary, err);
    if (r == 0)
        r = cp_image_import(e, tmpl, name, changes, err);
    cleanup_error cp_error_t rm_err = NULL;
    run((const char *const[]){"/bin/rm", "-rf", "--one-file-system", "--", tmpl, NULL}, NULL,
        &rm_err);
    if (r < 0)
        return cp_error_wrap(err, "while making the egress image");
    *name_out = steal_pointer(&name);
    return 0;
}

int cp_egress_image_ensure(struct cp_engine *e, char **name_out, cp_error_t *err)
{
    cleanup_free char *name = NULL;
    if (cp_egress_image_name(&name, err) < 0)
        return cp_error_code(err);
    int r = cp_image_present(e, name, NULL, err);
    if (r < 0)
        return cp_error_code(err);
    if (r == 1) {
        *name_out = steal_pointer(&name);
        return 0;
    }
    return cp_egress_image_build(e, name_out, err);
}
