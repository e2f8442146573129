/* Finding images, and importing a root filesystem as one (no registry is needed). */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "places/container/images.h"
#include "src/base/json.h"
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

static int absent(const char *image, const char *kind, cp_error_t *err)
{
    cp_error_make(err, CP_ERR_NOT_FOUND, 0, "the image %s is not on this computer's engine", image);
    if (strcmp(image, CP_IMAGE_WORK) == 0 || strcmp(image, CP_IMAGE_UPSTREAM) == 0)
        cp_error_hint(err,
                      "Make it with 'conch-place image build work' (a few minutes, from "
                      "Debian's packages), or pull %s where a registry is reachable.",
                      CP_IMAGE_UPSTREAM);
    else
        cp_error_hint(err,
                      "Pull or build %s, or choose another with --image or "
                      "'conch-place config set image IMAGE'.",
                      image);
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
        return absent(want, e->kind, err);
    *out = xstrdup(want);
    return 0;
}

/* The tar is spooled to an unlinked temporary file, then streamed with a known end. */
struct spool {
    int fd;
};

static long spool_read(void *ctx, char *buf, size_t len)
{
    struct spool *s = ctx;
    ssize_t n;
    do
        n = read(s->fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n;
}

static int archive_fail(struct archive *a, const char *what, cp_error_t *err)
{
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s: %s", what,
                         archive_error_string(a) ? archive_error_string(a) : "libarchive failed");
}

static int copy_entry_data(struct archive *disk, struct archive *tar, cp_error_t *err)
{
    const void *buf;
    size_t size;
    la_int64_t offset;
    int r;
    while ((r = archive_read_data_block(disk, &buf, &size, &offset)) == ARCHIVE_OK)
        if (archive_write_data(tar, buf, size) < 0)
            return archive_fail(tar, "writing the image tar", err);
    return r == ARCHIVE_EOF ? 0 : archive_fail(disk, "reading the root filesystem", err);
}

static int write_tree(struct archive *disk, struct archive *tar, cp_error_t *err)
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
            copy_entry_data(disk, tar, err) < 0)
            return cp_error_code(err);
    }
}

static int make_tar(const char *rootfs, int fd, cp_error_t *err)
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
        r = write_tree(disk, tar, err);
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

int cp_image_import(struct cp_engine *e, const char *rootfs, const char *name,
                    const char *const *changes, cp_error_t *err)
{
    cleanup_free char *cwd = getcwd(NULL, 0);
    cleanup_close int fd = open("/var/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a temporary file in /var/tmp");
    int r = make_tar(rootfs, fd, err);
    if (cwd != NULL && chdir(cwd) < 0)
        r = r < 0 ? r : cp_error_make(err, CP_ERR_FAILED, errno, "cannot return to %s", cwd);
    if (r < 0)
        return r;
    if (lseek(fd, 0, SEEK_SET) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "rewinding the image tar");
    cleanup_free char *path = import_path(name, changes);
    struct spool s = {.fd = fd};
    if (cp_engine_upload(e, path, "application/x-tar", spool_read, &s, 0, err) < 0)
        return cp_error_wrap(err, "importing %s", name);
    return 0;
}
