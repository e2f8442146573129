/* Tar streams for tests, written field by field after POSIX ustar. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mirror/tarbuild.h"

void tb_init(struct tb *t)
{
    t->data = NULL;
    t->len = t->cap = 0;
}

void tb_free(struct tb *t)
{
    free(t->data);
    tb_init(t);
}

static void put(struct tb *t, const void *p, size_t n)
{
    if (t->len + n > t->cap) {
        t->cap = (t->len + n) * 2 + 4096;
        t->data = realloc(t->data, t->cap);
        if (t->data == NULL)
            abort();
    }
    memcpy(t->data + t->len, p, n);
    t->len += n;
}

static void pad(struct tb *t)
{
    static const unsigned char zero[512];
    if (t->len % 512)
        put(t, zero, 512 - t->len % 512);
}

static void octal(unsigned char *field, size_t width, uint64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%0*llo", (int)(width - 1), (unsigned long long)v);
    memcpy(field, tmp, width - 1);
    field[width - 1] = 0;
}

static void checksum(unsigned char *h)
{
    unsigned sum = 0;
    memset(h + 148, ' ', 8);
    for (int i = 0; i < 512; i++)
        sum += h[i];
    char tmp[8];
    snprintf(tmp, sizeof(tmp), "%06o", sum);
    memcpy(h + 148, tmp, 6);
    h[154] = 0;
    h[155] = ' ';
}

static void header(struct tb *t, const char *name, char type, const char *link, uint64_t size)
{
    unsigned char h[512] = {0};
    strncpy((char *)h, name, 100);
    octal(h + 100, 8, 0644);
    octal(h + 108, 8, 1000);
    octal(h + 116, 8, 1000);
    octal(h + 124, 12, size);
    octal(h + 136, 12, 1700000000);
    h[156] = (unsigned char)type;
    if (link != NULL)
        strncpy((char *)h + 157, link, 100);
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    checksum(h);
    put(t, h, 512);
}

void tb_entry_lying(struct tb *t, const char *name, char type, const char *link, uint64_t declared,
                    const void *body, size_t len)
{
    header(t, name, type, link, declared);
    if (len > 0)
        put(t, body, len);
    pad(t);
}

void tb_entry(struct tb *t, const char *name, char type, const char *link, const void *body,
              size_t len)
{
    tb_entry_lying(t, name, type, link, len, body, len);
}

void tb_file(struct tb *t, const char *name, const char *text)
{
    tb_entry(t, name, '0', NULL, text, strlen(text));
}

void tb_pax(struct tb *t, char type, const char *key, const char *val, size_t vlen)
{
    /* A record is "LEN KEY=VALUE\n" where LEN counts itself. */
    size_t base = strlen(key) + vlen + 3, total = base + 1;
    while (total != base + (size_t)snprintf(NULL, 0, "%zu", total))
        total = base + (size_t)snprintf(NULL, 0, "%zu", total);
    char *rec = malloc(total + 1);
    int n = snprintf(rec, total + 1, "%zu %s=", total, key);
    memcpy(rec + n, val, vlen);
    rec[total - 1] = '\n';
    tb_entry(t, "PaxHeader", type, NULL, rec, total);
    free(rec);
}

void tb_gnu_longname(struct tb *t, const char *name, size_t len)
{
    char *body = malloc(len + 1);
    memcpy(body, name, len);
    body[len] = 0;
    tb_entry(t, "././@LongLink", 'L', NULL, body, len + 1);
    free(body);
}

void tb_end(struct tb *t)
{
    static const unsigned char zero[1024];
    put(t, zero, sizeof(zero));
}

void tb_set_mode(struct tb *t, size_t off, unsigned mode)
{
    octal(t->data + off + 100, 8, mode);
    checksum(t->data + off);
}
