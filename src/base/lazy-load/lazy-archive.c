/* libarchive's functions that conch-place calls, as stubs that load it on the first call
 * (lazy-load.h): the mirror's tar streams and the images load it; a container run does not. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/base/lazy-load/lazy-load.h"

CP_LAZY_VOID(CP_LAZY_ARCHIVE, archive_entry_copy_pathname,
             (struct archive_entry * a, const char *b), (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, mode_t, archive_entry_filetype, (struct archive_entry * a), (a))
CP_LAZY_VOID(CP_LAZY_ARCHIVE, archive_entry_free, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, const char *, archive_entry_hardlink, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, time_t, archive_entry_mtime, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, long, archive_entry_mtime_nsec, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, struct archive_entry *, archive_entry_new, (void), ())
CP_LAZY(CP_LAZY_ARCHIVE, const char *, archive_entry_pathname, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, mode_t, archive_entry_perm, (struct archive_entry * a), (a))
CP_LAZY_VOID(CP_LAZY_ARCHIVE, archive_entry_set_filetype,
             (struct archive_entry * a, unsigned int b), (a, b))
CP_LAZY_VOID(CP_LAZY_ARCHIVE, archive_entry_set_mtime, (struct archive_entry * a, time_t b, long c),
             (a, b, c))
CP_LAZY_VOID(CP_LAZY_ARCHIVE, archive_entry_set_perm, (struct archive_entry * a, mode_t b), (a, b))
CP_LAZY_VOID(CP_LAZY_ARCHIVE, archive_entry_set_size, (struct archive_entry * a, la_int64_t b),
             (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, la_int64_t, archive_entry_size, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_entry_size_is_set, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, const char *, archive_entry_symlink, (struct archive_entry * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, const char *, archive_error_string, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, la_ssize_t, archive_read_data, (struct archive * a, void *b, size_t c),
        (a, b, c))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_data_block,
        (struct archive * a, const void **b, size_t *c, la_int64_t *d), (a, b, c, d))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_data_skip, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_disk_descend, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, struct archive *, archive_read_disk_new, (void), ())
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_disk_open, (struct archive * a, const char *b), (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_disk_set_standard_lookup, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_disk_set_symlink_physical, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_free, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, struct archive *, archive_read_new, (void), ())
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_next_header,
        (struct archive * a, struct archive_entry **b), (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_open,
        (struct archive * a, void *b, archive_open_callback *c, archive_read_callback *d,
         archive_close_callback *e),
        (a, b, c, d, e))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_open_memory,
        (struct archive * a, const void *b, size_t c), (a, b, c))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_read_support_format_tar, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_add_filter_none, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_close, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, la_ssize_t, archive_write_data,
        (struct archive * a, const void *b, size_t c), (a, b, c))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_free, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_header, (struct archive * a, struct archive_entry *b),
        (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, struct archive *, archive_write_new, (void), ())
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_open,
        (struct archive * a, void *b, archive_open_callback *c, archive_write_callback *d,
         archive_close_callback *e),
        (a, b, c, d, e))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_open_fd, (struct archive * a, int b), (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_set_bytes_in_last_block, (struct archive * a, int b),
        (a, b))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_set_format_gnutar, (struct archive * a), (a))
CP_LAZY(CP_LAZY_ARCHIVE, int, archive_write_set_format_pax_restricted, (struct archive * a), (a))

/* Variadic: the message is made here and passed on whole. */
void archive_set_error(struct archive *a, int code, const char *fmt, ...)
{
    static void *cache;
    void (*real)(struct archive *, int, const char *, ...) =
        (void (*)(struct archive *, int, const char *, ...))cp_lazy_sym(&cache, CP_LAZY_ARCHIVE,
                                                                        "archive_set_error");
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    real(a, code, "%s", msg != NULL ? msg : "out of memory");
    free(msg);
}
