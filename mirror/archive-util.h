/* Cleanup attributes for libarchive handles, and the one reader the mirror trusts. */
#ifndef CONCH_MIRROR_ARCHIVE_UTIL_H
#define CONCH_MIRROR_ARCHIVE_UTIL_H

#include <archive.h>

void cp_cleanup_archive_readp(struct archive **a);
void cp_cleanup_archive_writep(struct archive **a);
#define cleanup_archive_read  __attribute__((cleanup(cp_cleanup_archive_readp)))
#define cleanup_archive_write __attribute__((cleanup(cp_cleanup_archive_writep)))

/* A reader of the tar format alone, with no filter: libarchive's other formats have had memory
 * bugs, and its filters may run external programs found on PATH (abuse case 38). */
struct archive *cp_archive_reader_new(void);

#endif
