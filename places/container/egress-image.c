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
#include "places/container/rootfs.h"
#include "places/egress/auth.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define BINARY_MAX (256 * 1024 * 1024)

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

int cp_egress_image_build(struct cp_engine *e, char **name_out, cp_error_t *err)
{
    cleanup_free char *name = NULL, *binary = cp_self_path();
    if (cp_egress_image_name(&name, err) < 0)
        return cp_error_code(err);
    if (binary == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot find this binary to copy");
    static const char *const changes[] = {"ENTRYPOINT [\"/conch-place\", \"egress-proxy\"]",
                                          "USER 65534:65534", NULL};
    if (cp_rootfs_image(e, "egress-rootfs.sh", name, changes, binary, err) < 0)
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
