/* A growable byte buffer with a hard maximum: past it is an error, never a realloc. */
#ifndef CONCH_BUF_H
#define CONCH_BUF_H

#include <stddef.h>

struct cp_buf {
    char *data; /* always NUL-terminated after len */
    size_t len;
    size_t cap;
    size_t max;
};

void cp_buf_init(struct cp_buf *b, size_t max);
/* 0, or -1 when the maximum would be passed (nothing is appended then). */
int cp_buf_append(struct cp_buf *b, const void *data, size_t len);
void cp_buf_consume(struct cp_buf *b, size_t len);
/* Empties the caller's struct. */
void cp_buf_dispose(struct cp_buf *b);
char *cp_buf_steal(struct cp_buf *b);
#define cleanup_buf __attribute__((cleanup(cp_buf_dispose)))

#endif
