/* Finding images, and importing a root filesystem as one (no registry is needed). */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "places/container/engine/images.h"
#include "places/container/engine/rootless.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

int cp_image_present(struct cp_engine *e, const char *image, char **id_out, cp_error_t *err)
{
    cleanup_free char *esc = cp_engine_escape(image);
    cleanup_free char *path = xasprintf("/images/%s/json", esc);
    long status = 0;
    cleanup_json json_object *reply = NULL;
    if (cp_engine_call_status(e, "GET", path, NULL, &status, &reply, err) < 0)
        return cp_error_code(err);
    if (status == 200) {
        const char *id = cp_json_str(reply, "Id");
        if (id_out != NULL)
            *id_out = xstrdup(id ? id : image);
        return 1;
    }
    if (status == 404)
        return 0;
    return cp_error_make(err, CP_ERR_FAILED, 0, "the engine could not look up image %s (HTTP %ld)",
                         image, status);
}

static int absent(const char *image, const char *kind, const char *where, cp_error_t *err)
{
    cp_error_make(err, CP_ERR_NOT_FOUND, 0, "the image %s is not on %s", image, where);
    if (strcmp(image, CP_IMAGE_WORK) == 0 || strcmp(image, CP_IMAGE_UPSTREAM) == 0)
        cp_error_hint(err,
                      "Make it with 'conch-place image build work --engine %s' (a few minutes, "
                      "from Debian's packages), or pull %s where a registry is reachable.",
                      kind, CP_IMAGE_UPSTREAM);
    else
        cp_error_hint(err,
                      "Pull or build %s on %s, or choose another with --image or "
                      "'conch-place config set image IMAGE'.",
                      image, kind);
    return CP_ERR_NOT_FOUND;
}

int cp_image_choose(struct cp_engine *e, const char *asked, const char *saved, char **out,
                    char **id_out, cp_error_t *err)
{
    const char *want = asked ? asked : saved;
    if (want == NULL) {
        int r = cp_image_present(e, CP_IMAGE_WORK, NULL, err);
        if (r < 0)
            return r;
        want = r ? CP_IMAGE_WORK : CP_IMAGE_UPSTREAM;
    }
    int r = cp_image_present(e, want, id_out, err);
    if (r < 0)
        return r;
    if (r == 0)
        return absent(want, e->kind, "this computer's engine", err);
    *out = xstrdup(want);
    return 0;
}

/* The images to look for, in order of preference: the one asked for or saved, else the work
 * image, then the upstream one. */
static void wanted_images(const char *asked, const char *saved, const char *out[3])
{
    const char *want = asked ? asked : saved;
    out[0] = want ? want : CP_IMAGE_WORK;
    out[1] = want ? NULL : CP_IMAGE_UPSTREAM;
    out[2] = NULL;
}

/* The first engine, in discovery order, that has the first wanted image; else the next image. */
static int find_image(struct cp_engine **engines, const char *const *images, size_t *engine_out,
                      char **image_out, char **id_out, cp_error_t *err)
{
    for (size_t i = 0; images[i] != NULL; i++) {
        for (size_t j = 0; engines[j] != NULL; j++) {
            cleanup_free char *id = NULL;
            int r = cp_image_present(engines[j], images[i], &id, err);
            if (r < 0)
                return r;
            if (r == 0) {
                cp_debug("image %s: not on %s (%s)", images[i], engines[j]->kind,
                         engines[j]->socket);
                continue;
            }
            *engine_out = j;
            *image_out = xstrdup(images[i]);
            *id_out = steal_pointer(&id);
            return 1;
        }
    }
    return 0;
}

static char *engine_names(struct cp_engine **engines)
{
    char *names = xstrdup("");
    for (size_t j = 0; engines[j] != NULL; j++) {
        char *longer =
            xasprintf("%s%s%s on %s", names, j ? ", " : "", engines[j]->kind, engines[j]->socket);
        free(names);
        names = longer;
    }
    return names;
}

int cp_image_engine(const char *want, const char *asked, const char *saved,
                    struct cp_engine **engine_out, char **image_out, char **id_out, cp_error_t *err)
{
    cleanup_engines struct cp_engine **engines = NULL;
    if (cp_engine_connect_all(want, &engines, err) < 0)
        return cp_error_code(err);
    const char *images[3];
    wanted_images(asked, saved, images);
    size_t which = 0;
    int r = find_image(engines, images, &which, image_out, id_out, err);
    if (r < 0)
        return r;
    if (r == 0) {
        cleanup_free char *names = engine_names(engines);
        return absent(images[0], engines[0]->kind, names, err);
    }
    cp_debug("engine: %s on %s, which has %s", engines[which]->kind, engines[which]->socket,
             *image_out);
    *engine_out = steal_pointer(&engines[which]);
    /* The vector stays NULL-terminated at its end: close the gap the stolen one left. */
    for (size_t j = which; engines[j] != NULL; j++)
        engines[j] = engines[j + 1];
    return 0;
}

/* Not ready: the engine's own failure, unless a person without root lacks a step for rootless
 * Podman, which is then the one to take first. */
static char *not_ready_step(const cp_error_t err)
{
    cleanup_free char *step = cp_error_code(&err) == CP_ERR_UNREACHABLE ? cp_rootless_step() : NULL;
    if (step != NULL)
        return xasprintf("%s. The step: %s", err->msg, step);
    return err->hint ? xasprintf("%s. %s", err->msg, err->hint) : xstrdup(err->msg);
}

json_object *cp_container_readiness(const struct cp_config *cfg)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "place", json_object_new_string("container"));
    const char *want = cfg ? cp_config_get(cfg, "engine") : NULL;
    const char *saved = cfg ? cp_config_get(cfg, "image") : NULL;
    cleanup_engine struct cp_engine *e = NULL;
    cleanup_free char *image = NULL, *id = NULL;
    cleanup_error cp_error_t err = NULL;
    bool ready = cp_image_engine(want, NULL, saved, &e, &image, &id, &err) == 0;
    cleanup_free char *what = ready ? cp_engine_describe(e) : NULL, *limits = NULL;
    if (ready && e->rootless && !cp_config_limits_may_miss(cfg))
        limits = cp_rootless_limits_step();
    json_object_object_add(o, "ready", json_object_new_boolean(ready && limits == NULL));
    if (ready) {
        json_object_object_add(o, "engine", json_object_new_string(what));
        json_object_object_add(o, "image", json_object_new_string(image));
    }
    if (limits != NULL) {
        cleanup_free char *next =
            xasprintf("sealed boxes need their limits, and %s; or accept boxes without them: "
                      "conch-place config set container.limits allow-missing",
                      limits);
        json_object_object_add(o, "next", json_object_new_string(next));
    } else if (!ready) {
        cleanup_free char *next = not_ready_step(err);
        json_object_object_add(o, "next", json_object_new_string(next));
    }
    return o;
}

/* The tar is spooled to an unlinked temporary file, then streamed with a known end. */
struct spool {
    int fd;
    struct cp_progress *pr;
};

static long spool_read(void *ctx, char *buf, size_t len)
{
    struct spool *s = ctx;
    ssize_t n;
    do
        n = read(s->fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n > 0 && s->pr != NULL)
        cp_progress_add(s->pr, (uint64_t)n);
    return n;
}

static int archive_fail(struct archive *a, const char *what, cp_error_t *err)
{
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s: %s", what,
                         archive_error_string(a) ? archive_error_string(a) : "libarchive failed");
}

static int copy_entry_data(struct archive *disk, struct archive *tar, struct cp_progress *pr,
                           cp_error_t *err)
{
    const void *buf;
    size_t size;
    la_int64_t offset;
    int r;
    while ((r = archive_read_data_block(disk, &buf, &size, &offset)) == ARCHIVE_OK) {
        if (archive_write_data(tar, buf, size) < 0)
            return archive_fail(tar, "writing the image tar", err);
        if (pr != NULL)
            cp_progress_add(pr, size);
    }
    return r == ARCHIVE_EOF ? 0 : archive_fail(disk, "reading the root filesystem", err);
}

static int write_tree(struct archive *disk, struct archive *tar, struct cp_progress *pr,
                      cp_error_t *err)
{
    struct archive_entry *entry;
    for (;;) {
        int r = archive_read_next_header(disk, &entry);
        if (r == ARCHIVE_EOF)
            return 0;
        if (r < ARCHIVE_WARN)
            return archive_fail(disk, "reading the root filesystem", err);
        archive_read_disk_descend(disk);
        const char *p = archive_entry_pathname(entry);
        /* Names relative to the rootfs: "./usr/bin/x" as an image tar wants them. */
        if (strcmp(p, ".") == 0)
            continue;
        if (archive_write_header(tar, entry) < ARCHIVE_WARN)
            return archive_fail(tar, "writing the image tar", err);
        if (archive_entry_filetype(entry) == AE_IFREG && archive_entry_size(entry) > 0 &&
            copy_entry_data(disk, tar, pr, err) < 0)
            return cp_error_code(err);
    }
}

static int make_tar(const char *rootfs, int fd, struct cp_progress *pr, cp_error_t *err)
{
    struct archive *disk = archive_read_disk_new();
    struct archive *tar = archive_write_new();
    archive_read_disk_set_symlink_physical(disk);
    archive_read_disk_set_standard_lookup(disk);
    archive_write_set_format_pax_restricted(tar);
    int r = -1;
    if (chdir(rootfs) < 0)
        r = cp_error_make(err, CP_ERR_FAILED, errno, "cannot enter %s", rootfs);
    else if (archive_read_disk_open(disk, ".") != ARCHIVE_OK)
        r = archive_fail(disk, rootfs, err);
    else if (archive_write_open_fd(tar, fd) != ARCHIVE_OK)
        r = archive_fail(tar, "the image tar", err);
    else
        r = write_tree(disk, tar, pr, err);
    if (r == 0 && archive_write_close(tar) != ARCHIVE_OK)
        r = archive_fail(tar, "the image tar", err);
    archive_read_free(disk);
    archive_write_free(tar);
    return r;
}

static char *import_path(const char *name, const char *const *changes)
{
    cleanup_free char *repo = cp_engine_escape(name);
    char *path = xasprintf("/images/create?fromSrc=-&repo=%s", repo);
    for (size_t i = 0; changes != NULL && changes[i] != NULL; i++) {
        cleanup_free char *c = cp_engine_escape(changes[i]);
        char *longer = xasprintf("%s&changes=%s", path, c);
        free(path);
        path = longer;
    }
    return path;
}

/* The tree as an image tar in fd: packed here, or the one a script made without root. */
static int image_tar(const char *rootfs, struct cp_progress *pr, int *fd_out, cp_error_t *err)
{
    cleanup_free char *made = xasprintf("%s/" CP_ROOTFS_TAR, rootfs);
    int fd = open(made, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        *fd_out = fd;
        return 0;
    }
    cleanup_free char *cwd = getcwd(NULL, 0);
    fd = open("/var/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a temporary file in /var/tmp");
    *fd_out = fd;
    if (pr != NULL)
        cp_progress_step(pr, "packing its files", 0);
    int r = make_tar(rootfs, fd, pr, err);
    if (cwd != NULL && chdir(cwd) < 0)
        r = r < 0 ? r : cp_error_make(err, CP_ERR_FAILED, errno, "cannot return to %s", cwd);
    return r;
}

int cp_image_import_progress(struct cp_engine *e, const char *rootfs, const char *name,
                             const char *const *changes, struct cp_progress *pr, cp_error_t *err)
{
    cleanup_close int fd = -1;
    if (image_tar(rootfs, pr, &fd, err) < 0)
        return cp_error_code(err);
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0 || lseek(fd, 0, SEEK_SET) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "rewinding the image tar");
    cleanup_free char *path = import_path(name, changes);
    cleanup_free char *step = xasprintf("sending it to %s", e->kind);
    if (pr != NULL)
        cp_progress_step(pr, step, (uint64_t)size);
    struct spool s = {.fd = fd, .pr = pr};
    cp_debug("importing %s: %lld bytes", name, (long long)size);
    if (cp_engine_upload(e, path, "application/x-tar", spool_read, &s, 0, err) < 0)
        return cp_error_wrap(err, "importing %s", name);
    return 0;
}

int cp_image_import(struct cp_engine *e, const char *rootfs, const char *name,
                    const char *const *changes, cp_error_t *err)
{
    return cp_image_import_progress(e, rootfs, name, changes, NULL, err);
}
