/* `image build work|egress|test`: make an image locally, through the engine's API. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/egress-image.h"
#include "places/container/engine.h"
#include "places/container/images.h"
#include "src/command.h"
#include "src/log.h"
#include "src/settings.h"
#include "src/util.h"

extern const struct cp_command cp_cmd_image;

struct kind {
    const char *name;
    const char *image;
    const char *script; /* images/NAME, run as `sh SCRIPT ROOTFS` */
    const char *const *changes;
};

static const char *const work_changes[] = {
    "ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin", "ENV LANG=C.UTF-8",
    "CMD [\"/bin/bash\"]", NULL};
static const char *const test_changes[] = {"ENV PATH=/bin:/usr/bin", "CMD [\"/bin/sh\"]", NULL};

/* egress is named after the binary's digest and made by places/container/egress-image.c. */
static const struct kind kinds[] = {
    {"work", CP_IMAGE_WORK, "work-rootfs.sh", work_changes},
    {"egress", NULL, "egress-rootfs.sh", NULL},
    {"test", CP_IMAGE_TEST, "test-rootfs.sh", test_changes},
};

/* Scripts sit beside an uninstalled binary's source tree, else in the installed data dir. */
static char *find_script(const char *name)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL)
            *slash = '\0';
        char *local = xasprintf("%s/images/%s", self, name);
        if (access(local, R_OK) == 0)
            return local;
        free(local);
    }
    return xasprintf("%s/images/%s", PKGDATADIR, name);
}

static int run_script(const char *script, const char *rootfs, cp_error_t *err)
{
    pid_t pid = fork();
    if (pid < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "fork");
    if (pid == 0) {
        execl("/bin/sh", "sh", script, rootfs, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return cp_error_make(err, CP_ERR_FAILED, errno, "waitpid");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "%s failed (status %d); its output above says "
                             "why",
                             script, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}

static void remove_tree(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/rm", "rm", "-rf", "--one-file-system", "--", dir, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

static int build(struct cp_engine *e, const struct kind *k, cp_error_t *err)
{
    if (k->image == NULL) {
        cleanup_free char *name = NULL;
        if (cp_egress_image_build(e, &name, err) < 0)
            return cp_error_code(err);
        printf("%s: made %s on %s\n", k->name, name, e->kind);
        return 0;
    }
    cleanup_free char *script = find_script(k->script);
    char tmpl[] = "/var/tmp/conch-rootfs-XXXXXX";
    if (mkdtemp(tmpl) == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a folder in /var/tmp");
    cp_say("making the %s root filesystem in %s with %s", k->name, tmpl, script);
    int r = run_script(script, tmpl, err);
    if (r == 0)
        r = cp_image_import(e, tmpl, k->image, k->changes, err);
    remove_tree(tmpl);
    return r;
}

static int image_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest != 2 || strcmp(args->rest[0], "build") != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "image needs 'build work', 'build egress' or 'build test'");
    const struct kind *k = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
        if (strcmp(kinds[i].name, args->rest[1]) == 0)
            k = &kinds[i];
    if (k == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "'%s' is not an image conch-place makes "
                             "(work, egress, test)",
                             args->rest[1]);
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    const char *engine = cp_arg(args, &cp_cmd_image, "engine");
    cleanup_engine struct cp_engine *e = NULL;
    if (cp_engine_connect(engine ? engine : cp_config_get(&cfg, "engine"), &e, err) < 0)
        return cp_error_code(err);
    if (build(e, k, err) < 0)
        return cp_error_code(err);
    if (k->image != NULL)
        printf("%s: made %s on %s\n", k->name, k->image, e->kind);
    return 0;
}

static const struct cp_option options[] = {
    {"engine", 0, "NAME", "docker | podman | auto (default: saved, else auto)"},
    {0},
};

const struct cp_command cp_cmd_image = {
    .name = "image",
    .synopsis = "build work|egress|test [--engine NAME]",
    .summary = "make an image locally, through the engine's API, from Debian's packages",
    .options = options,
    .handler = image_handler,
    .failure_status = 1,
};
