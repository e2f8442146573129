/* Bounded buffers for bodies, captured output and request headers (STYLE.md §8). */
#include "config.h"

#include "src/base/buf.h"
#include "src/base/util.h"

void cp_buf_init(struct cp_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

int cp_buf_append(struct cp_buf *b, const void *data, size_t len)
{
    if (len > b->max || b->len > b->max - len)
        return -1;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + len + 1)
            cap *= 2;
        if (cap > b->max + 1)
            cap = b->max + 1;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (len > 0)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

void cp_buf_consume(struct cp_buf *b, size_t len)
{
    if (len >= b->len) {
        b->len = 0;
    } else {
        memmove(b->data, b->data + len, b->len - len);
        b->len -= len;
    }
    if (b->data != NULL)
        b->data[b->len] = '\0';
}

void cp_buf_dispose(struct cp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *cp_buf_steal(struct cp_buf *b)
{
    if (b->data == NULL)
        cp_buf_append(b, "", 0);
    char *d = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}
