/* Builds tar streams byte by byte, hostile ones included, so tests carry no binary blobs. */
#ifndef CONCH_TESTS_TARBUILD_H
#define CONCH_TESTS_TARBUILD_H

#include <stddef.h>
#include <stdint.h>

struct tb {
    unsigned char *data;
    size_t len, cap;
};

void tb_init(struct tb *t);
void tb_free(struct tb *t);
/* A ustar header (name and link up to 100 bytes) and its body, padded to 512. */
void tb_entry(struct tb *t, const char *name, char type, const char *link, const void *body,
              size_t len);
/* A header whose size field says `declared`, followed by `len` bytes of body. */
void tb_entry_lying(struct tb *t, const char *name, char type, const char *link, uint64_t declared,
                    const void *body, size_t len);
void tb_file(struct tb *t, const char *name, const char *text);
/* A PAX extended ('x') or global ('g') header holding one record; val may hold a NUL. */
void tb_pax(struct tb *t, char type, const char *key, const char *val, size_t vlen);
/* A GNU long-name ('L') header for the next entry. */
void tb_gnu_longname(struct tb *t, const char *name, size_t len);
/* The end-of-archive marker: two zero blocks. */
void tb_end(struct tb *t);
/* Sets the mode field of the header that starts at offset (for set-id tests). */
void tb_set_mode(struct tb *t, size_t header_offset, unsigned mode);

#endif
