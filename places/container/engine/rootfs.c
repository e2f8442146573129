/* The one way conch-place makes an image: a script lays out a root filesystem, the API imports. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/engine/images.h"
#include "places/container/engine/engine-start.h"
#include "places/container/engine/rootfs.h"
#include "src/base/log.h"
#include "src/base/progress.h"
#include "src/base/spawn.h"
#include "src/base/strvec.h"
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

/* The last line a child wrote to its log so far, for the progress line's note. */
static void last_line(int log_fd, struct cp_progress *pr)
{
    char buf[257];
    off_t end = lseek(log_fd, 0, SEEK_END);
    off_t from = end > 256 ? end - 256 : 0;
    ssize_t n = end > 0 ? pread(log_fd, buf, (size_t)(end - from), from) : 0;
    if (n <= 0)
        return;
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    char *nl = strrchr(buf, '\n');
    cp_progress_note(pr, nl ? nl + 1 : buf);
}

/* What the child wrote, shown when it failed (a quiet build says nothing otherwise). */
static void show_log_tail(int log_fd)
{
    char buf[4096];
    off_t end = lseek(log_fd, 0, SEEK_END);
    off_t from = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
    ssize_t n = end > 0 ? pread(log_fd, buf, (size_t)(end - from), from) : 0;
    if (n > 0)
        (void)cp_write_all(STDERR_FILENO, buf, (size_t)n);
}

/* Waits for the child, drawing the progress line meanwhile when it is on. */
static int wait_child(struct cp_child *c, int log_fd, struct cp_progress *pr, int *st,
                      cp_error_t *err)
{
    if (!pr->on)
        return cp_child_wait(c, st, err);
    for (;;) {
        int r = cp_child_try_wait(c, st, err);
        if (r != 0)
            return r < 0 ? r : 0;
        if (log_fd >= 0)
            last_line(log_fd, pr);
        cp_progress_tick(pr);
        usleep(100 * 1000);
    }
}

/* log_fd >= 0 takes the child's output (shown only if it fails); -1 lets it through. */
static int run(const char *const argv[], const char *binary, int log_fd, struct cp_progress *pr,
               cp_error_t *err)
{
    static const char *const drop[] = {"CONCH_EGRESS_BINARY=", NULL};
    cleanup_strvec struct cp_strvec env = {0};
    if (binary != NULL) {
        cleanup_free char *var = xasprintf("CONCH_EGRESS_BINARY=%s", binary);
        cp_spawn_env(&env, drop, (const char *const[]){var, NULL});
    }
    struct cp_stdio log = {log_fd >= 0 ? CP_STDIO_FD : CP_STDIO_KEEP, log_fd};
    /* Only the three streams go on: mmdebstrap hands apt a fresh descriptor for `cat >&N`,
     * which dash cannot write past 9, and this process's own would push N past it. */
    struct cp_spawn_opts opts = {.out = log, .err = log, .env = env.v, .close_others = true};
    cleanup_child struct cp_child child = CP_CHILD_INIT;
    if (cp_spawn((char *const *)argv, &opts, &child, err) < 0)
        return cp_error_code(err);
    int st = 0;
    if (wait_child(&child, log_fd, pr, &st, err) < 0)
        return cp_error_code(err);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        cp_progress_end(pr);
        if (log_fd >= 0)
            show_log_tail(log_fd);
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "%s %s failed (status %d); its output above "
                             "says why",
                             argv[0], argv[1] ? argv[1] : "", cp_wait_status_code(st));
    }
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
    struct cp_progress pr;
    cleanup_free char *what = xasprintf("making %s", image);
    cp_progress_begin(&pr, STDERR_FILENO, what);
    /* Quiet unless -v: the script's output is kept, and shown only when it fails. */
    cleanup_close int log_fd =
        cp_log_verbose ? -1 : open("/var/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    cp_progress_step(&pr, "laying out its root filesystem", 0);
    int r = run((const char *const[]){"/bin/sh", path, tmpl, NULL}, binary, log_fd, &pr, err);
    if (r == 0)
        r = cp_engine_keep_up(e, err);
    if (r == 0)
        r = cp_image_import_progress(e, tmpl, image, changes, &pr, err);
    cp_progress_end(&pr);
    cleanup_error cp_error_t rm_err = NULL;
    struct cp_progress quiet = {0};
    run((const char *const[]){"/bin/rm", "-rf", "--one-file-system", "--", tmpl, NULL}, NULL, -1,
        &quiet, &rm_err);
    return r;
}
