/* Packing for a push. Each file is opened by the walk with O_NOFOLLOW and must still be the
 * inode the listing saw, so a file swapped for a link is never read (abuse cases 48, 49). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "mirror/archive-util.h"
#include "mirror/pack.h"
#include "mirror/walk.h"
#include "src/base/buf.h"
#include "src/base/keyless.h"
#include "src/base/util.h"
#include "src/base/report.h"

struct sink {
    struct cp_far_proc *r;
    cp_error_t *err;
    struct cp_progress *progress; /* or NULL */
};

static la_ssize_t sink_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
    struct sink *s = ctx;
    if (cp_far_proc_write(s->r, buf, len, s->err) < 0) {
        archive_set_error(a, EIO, "the far side stopped reading");
        return -1;
    }
    if (s->progress != NULL)
        cp_progress_add(s->progress, len);
    return (la_ssize_t)len;
}

static int write_failed(struct archive *a, cp_error_t *err)
{
    if (cp_error_code(err) != CP_OK)
        return cp_error_code(err);
    return cp_error_make(err, CP_ERR_FAILED, 0, "cannot write the archive: %s",
                         archive_error_string(a) ? archive_error_string(a) : "unknown error");
}

static int write_header(struct archive *a, const char *path, uint64_t size, uint32_t mode,
                        int64_t mtime_ns, cp_error_t *err)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_copy_pathname(e, path);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, mode & 0777);
    archive_entry_set_size(e, (la_int64_t)size);
    archive_entry_set_mtime(e, mtime_ns / 1000000000LL, mtime_ns % 1000000000LL);
    int r = archive_write_header(a, e);
    archive_entry_free(e);
    return r < ARCHIVE_WARN ? write_failed(a, err) : 0;
}

/* Copies exactly size bytes; a file that shrank meanwhile is padded and *same cleared. */
static int copy_body(struct archive *a, int fd, uint64_t size, bool *same, cp_error_t *err)
{
    char buf[64 * 1024];
    while (size > 0) {
        size_t want = size < sizeof(buf) ? (size_t)size : sizeof(buf);
        ssize_t n = fd < 0 ? 0 : read(fd, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            memset(buf, 0, want);
            n = (ssize_t)want;
            *same = false;
            fd = -1;
        }
        if (archive_write_data(a, buf, (size_t)n) < 0)
            return write_failed(a, err);
        size -= (uint64_t)n;
    }
    return 0;
}

static bool still_listed(int fd, const struct cp_entry *e)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_ino == e->sig.ino &&
           (uint64_t)st.st_dev == e->dev && (uint64_t)st.st_size == e->sig.size &&
           st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec == e->sig.mtime_ns &&
           st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec == e->sig.ctime_ns;
}

static int open_listed(int rootfd, const struct cp_entry *e)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(rootfd, e->dev, e->path, false, &dirfd, &base, &why) < 0)
        return -1;
    cleanup_close int fd =
        openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || !still_listed(fd, e))
        return -1;
    return steal_fd(&fd);
}

#define CHANGED "changed while being read; it goes next time"

static void not_sent(const struct cp_entry *e, const char *why, bool *sent,
                     struct cp_mirror_report *rep)
{
    cleanup_free char *shown = cp_escape(e->path);
    cp_report(rep, "not sent: %s (%s)", shown, why);
    cp_run_report_file("refused_send", e->path, why);
    *sent = false;
}

/* A settings file goes as its keyless copy, the one the sealed box sees; a file that cannot
 * be read as settings does not go (its keys could not be taken out). */
static int pack_keyless(struct archive *a, int fd, const struct cp_entry *e, bool *sent,
                        uint64_t *size, struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_free char *text = cp_keyless_of_fd(fd);
    if (text == NULL || !still_listed(fd, e)) {
        not_sent(e,
                 text == NULL ? "a settings file over 1 MB or unreadable: it goes only without "
                                "its keys, and they could not be taken out"
                              : CHANGED,
                 sent, rep);
        return 0;
    }
    *size = strlen(text);
    if (write_header(a, e->path, *size, e->sig.mode, e->sig.mtime_ns, err) < 0)
        return cp_error_code(err);
    if (*size > 0 && archive_write_data(a, text, *size) < 0)
        return write_failed(a, err);
    *sent = true;
    cp_run_report_file("sent", e->path, NULL);
    return 0;
}

static int pack_one(struct archive *a, int rootfd, const struct cp_entry *e, bool *sent,
                    uint64_t *size, struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_close int fd = open_listed(rootfd, e);
    if (fd < 0) {
        not_sent(e, CHANGED, sent, rep);
        return 0;
    }
    bool same = true;
    *size = e->sig.size;
    if (cp_keyless_is(e->path)) {
        if (pack_keyless(a, fd, e, sent, size, rep, err) < 0)
            return cp_error_code(err);
    } else {
        if (write_header(a, e->path, e->sig.size, e->sig.mode, e->sig.mtime_ns, err) < 0 ||
            copy_body(a, fd, e->sig.size, &same, err) < 0)
            return cp_error_code(err);
        *sent = same && still_listed(fd, e);
        cp_run_report_file(*sent ? "sent" : "refused_send", e->path,
                           *sent ? NULL : "changed while sent");
    }
    if (rep != NULL && *sent)
        rep->sent++;
    return 0;
}

/* A member of NUL-separated names, each after prefix: the far script's instructions. */
static int pack_names(struct archive *a, const char *member, const char *prefix,
                      const char *const *names, const bool *keep, size_t n, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 64u * 1024 * 1024);
    for (size_t i = 0; i < n; i++)
        if ((keep == NULL || keep[i]) && (cp_buf_append(&b, prefix, strlen(prefix)) < 0 ||
                                          cp_buf_append(&b, names[i], strlen(names[i]) + 1) < 0))
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the list of names is too long");
    if (write_header(a, member, b.len, 0600, 0, err) < 0)
        return cp_error_code(err);
    if (b.len > 0 && archive_write_data(a, b.data, b.len) < 0)
        return write_failed(a, err);
    return 0;
}

/* The names sent, so that the far side lists only those back, not the whole copy. */
static int pack_sent(struct archive *a, const struct cp_entry *const *files, size_t n,
                     const bool *sent, cp_error_t *err)
{
    const char **names = xcalloc(n + 1, sizeof(*names));
    for (size_t i = 0; i < n; i++)
        names[i] = files[i]->path;
    int rc = pack_names(a, CP_SENT_NAME, "./", names, sent, n, err);
    free(names);
    return rc;
}

int cp_pack_push(struct cp_far_proc *r, int rootfd, const struct cp_entry *const *files, size_t n,
                 const char *const *deletions, size_t ndel, bool *sent, uint64_t *sizes,
                 struct cp_mirror_report *rep, struct cp_progress *progress, cp_error_t *err)
{
    struct sink s = {r, err, progress};
    cleanup_archive_write struct archive *a = archive_write_new();
    if (a == NULL || archive_write_set_format_gnutar(a) != ARCHIVE_OK ||
        archive_write_add_filter_none(a) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
        archive_write_open(a, &s, NULL, sink_write, NULL) != ARCHIVE_OK)
        return write_failed(a, err);
    for (size_t i = 0; i < n; i++)
        if (pack_one(a, rootfd, files[i], &sent[i], &sizes[i], rep, err) < 0)
            return cp_error_wrap(err, "while sending the changes");
    if (ndel > 0 && pack_names(a, CP_DELETIONS_NAME, "", deletions, NULL, ndel, err) < 0)
        return cp_error_code(err);
    if (pack_sent(a, files, n, sent, err) < 0)
        return cp_error_code(err);
    if (archive_write_close(a) != ARCHIVE_OK)
        return write_failed(a, err);
    return 0;
}
