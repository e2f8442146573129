/* Builds the sidecar's image from /proc/self/exe with images/egress-rootfs.sh. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "places/container/seal/egress-image.h"
#include "places/container/engine/engine.h"
#include "src/base/digest.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define BINARY_MAX (256 * 1024 * 1024)

#define ROOTS_FILE "/etc/ssl/certs/ca-certificates.crt"
#define ROOTS_MAX  (16 * 1024 * 1024)

/* Named after this binary and this computer's trusted roots (egress-rootfs.sh copies both in):
 * roots updated here make another image, so the sidecar never checks hosts against old ones. */
static int hash_name(char **out, cp_error_t *err)
{
    cleanup_free char *data = NULL, *roots = NULL;
    size_t len = 0, rlen = 0;
    if (cp_read_file("/proc/self/exe", BINARY_MAX, &data, &len, err) < 0)
        return cp_error_wrap(err, "while naming the egress image after this binary");
    if (cp_read_file(ROOTS_FILE, ROOTS_MAX, &roots, &rlen, err) < 0) {
        cp_error_wrap(err, "the sidecar checks hosts against this computer's trusted roots");
        cp_error_hint(err, "Install them: apt-get install ca-certificates.");
        return cp_error_code(err);
    }
    data = xrealloc(data, len + rlen);
    memcpy(data + len, roots, rlen);
    len += rlen;
    uint8_t digest[32];
    cp_sha256(data, len, digest);
    char hex[13];
    for (size_t i = 0; i < 6; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    *out = xasprintf("%s:%s", CP_IMAGE_EGRESS_REPO, hex);
    return 0;
}

/* A file told apart without reading it: device, inode, size, and its modification and change
 * times (a binary replaced by a rename has another inode; one written in place, other times).
 * NULL when it cannot be looked at. */
static char *identity(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return NULL;
    return xasprintf("%ju.%ju.%jd.%lld.%ld.%lld.%ld", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
                     (intmax_t)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                     (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

static bool name_shaped(const char *name)
{
    size_t n = strlen(CP_IMAGE_EGRESS_REPO);
    return strncmp(name, CP_IMAGE_EGRESS_REPO ":", n + 1) == 0 && strlen(name + n + 1) == 12 &&
           strspn(name + n + 1, "0123456789abcdef") == 12;
}

/* Hashing the binary (2.7 MB) and the roots cost every sealed run ~20-30 ms here: the name is
 * kept in workplaces/egress-image-name beside both files' identities, and made again only when
 * either changed. The folder is the person's own (0700), as everything conch-place keeps. */
int cp_egress_image_name(char **out, cp_error_t *err)
{
    cleanup_free char *self = identity("/proc/self/exe"), *roots = identity(ROOTS_FILE);
    cleanup_free char *dir = NULL, *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t cache_err = NULL;
    if (self == NULL || roots == NULL || cp_workplaces_dir(&dir, &cache_err) < 0)
        return hash_name(out, err);
    cleanup_free char *path = xasprintf("%s/egress-image-name", dir);
    cleanup_free char *want = xasprintf("%s %s ", self, roots);
    if (cp_read_file(path, 512, &text, &len, &cache_err) == 0 && len > strlen(want) &&
        strncmp(text, want, strlen(want)) == 0) {
        char *name = text + strlen(want);
        name[strcspn(name, "\n")] = '\0';
        if (name_shaped(name)) {
            *out = xstrdup(name);
            return 0;
        }
    }
    if (hash_name(out, err) < 0)
        return cp_error_code(err);
    cleanup_free char *line = xasprintf("%s%s\n", want, *out);
    cp_error_free(&cache_err);
    if (cp_write_file_atomic(path, line, strlen(line), 0600, &cache_err) < 0)
        cp_debug("%s", cache_err->msg);
    return 0;
}

#define IMAGE_LABEL        "conch.egress.image"
#define OTHER_BINARY_GRACE 3600
static const char *const entrypoint[] = {"/conch-place", "egress-proxy", NULL};

static bool is_egress_repo(const char *tag)
{
    const char *colon = tag != NULL ? strrchr(tag, ':') : NULL;
    size_t n = colon != NULL ? (size_t)(colon - tag) : 0;
    static const char *const prefixes[] = {"", "localhost/", "docker.io/"}; /* Podman's names */
    for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
        size_t p = strlen(prefixes[i]);
        if (n == p + strlen(CP_IMAGE_EGRESS_REPO) && strncmp(tag, prefixes[i], p) == 0 &&
            strncmp(tag + p, CP_IMAGE_EGRESS_REPO, n - p) == 0)
            return true;
    }
    return false;
}

/* Images made before the label (or whose tag went to a newer one) are told by their
 * entrypoint, this binary's proxy. */
static bool runs_the_proxy(struct cp_engine *e, const char *id)
{
    cleanup_free char *path = xasprintf("/images/%s/json", id);
    cleanup_json json_object *img = NULL;
    cleanup_error cp_error_t err = NULL;
    json_object *config = NULL, *ep = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &img, &err) < 0 ||
        !json_object_object_get_ex(img, "Config", &config) ||
        !json_object_object_get_ex(config, "Entrypoint", &ep) ||
        !json_object_is_type(ep, json_type_array) || json_object_array_length(ep) != 2)
        return false;
    for (size_t i = 0; i < 2; i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(ep, i)), entrypoint[i]) != 0)
            return false;
    return true;
}

static bool untagged(json_object *tags)
{
    size_t n = json_object_is_type(tags, json_type_array) ? json_object_array_length(tags) : 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(tags, i)), "<none>:<none>") !=
            0)
            return false;
    return true;
}

/* An egress image other than the one just made: untagged (the same name made again), told by
 * our label or its entrypoint; or tagged for another binary an hour or more ago. A younger one
 * may be another conch-place's, built for runs going on now beside ours. */
static bool old_egress(struct cp_engine *e, json_object *img, const char *keep_id)
{
    const char *id = cp_json_str(img, "Id");
    json_object *tags = NULL, *labels = NULL;
    json_object_object_get_ex(img, "RepoTags", &tags);
    json_object_object_get_ex(img, "Labels", &labels);
    if (id == NULL || strcmp(id, keep_id) == 0)
        return false;
    if (untagged(tags))
        return cp_json_str(labels, IMAGE_LABEL) != NULL || runs_the_proxy(e, id);
    if ((int64_t)time(NULL) - cp_json_int(img, "Created", 0) < OTHER_BINARY_GRACE)
        return false;
    for (size_t i = 0; i < json_object_array_length(tags); i++)
        if (is_egress_repo(json_object_get_string(json_object_array_get_idx(tags, i))))
            return true;
    return false;
}

/* Each egress image of an older binary goes when a new one is made (one test run left five of
 * 60 MB behind). The engine keeps one a container still uses (409): an older binary's sidecar
 * goes on. */
static void remove_old(struct cp_engine *e, const char *keep)
{
    cleanup_free char *keep_id = NULL;
    cleanup_json json_object *list = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_image_present(e, keep, &keep_id, &err) != 1 ||
        cp_engine_call(e, "GET", "/images/json", NULL, &list, &err) < 0)
        return;
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *img = json_object_array_get_idx(list, i);
        if (!old_egress(e, img, keep_id))
            continue;
        cleanup_free char *path = xasprintf("/images/%s", cp_json_str(img, "Id"));
        long status = 0;
        cleanup_error cp_error_t rm = NULL;
        if (cp_engine_call_status(e, "DELETE", path, NULL, &status, NULL, &rm) == 0)
            cp_debug("old egress image %.19s: HTTP %ld", cp_json_str(img, "Id"), status);
    }
}

int cp_egress_image_build(struct cp_engine *e, char **name_out, cp_error_t *err)
{
    cleanup_free char *name = NULL, *binary = cp_self_path();
    if (cp_egress_image_name(&name, err) < 0)
        return cp_error_code(err);
    if (binary == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot find this binary to copy");
    static const char *const changes[] = {"ENTRYPOINT [\"/conch-place\", \"egress-proxy\"]",
                                          "USER 65534:65534", "LABEL " IMAGE_LABEL "=1", NULL};
    if (cp_rootfs_image(e, "egress-rootfs.sh", name, changes, binary, err) < 0)
        return cp_error_wrap(err, "while making the egress image");
    remove_old(e, name);
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
