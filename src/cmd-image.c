/* `image build work|egress|test`: make an image locally, through the engine's API. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/container.h"
#include "src/command.h"
#include "src/base/log.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"

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

/* egress is named after the binary's digest and made by places/container/seal/egress-image.c. */
static const struct kind kinds[] = {
    {"work", CP_IMAGE_WORK, "work-rootfs.sh", work_changes},
    {"egress", NULL, "egress-rootfs.sh", NULL},
    {"test", CP_IMAGE_TEST, "test-rootfs.sh", test_changes},
};

static int build(struct cp_engine *e, const struct kind *k, cp_error_t *err)
{
    if (k->image == NULL) {
        cleanup_free char *name = NULL;
        if (cp_egress_image_build(e, &name, err) < 0)
            return cp_error_code(err);
        printf("%s: made %s on %s\n", k->name, name, cp_engine_kind(e));
        return 0;
    }
    return cp_rootfs_image(e, k->script, k->image, k->changes, NULL, err);
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
        printf("%s: made %s on %s\n", k->name, k->image, cp_engine_kind(e));
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
    .words = {"build", "work egress test"},
};
