/* The key list the readers fill (mirror/keys.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mirror/keys.h"
#include "src/base/util.h"

int cp_keys_add(struct cp_keys *k, const char *name, size_t nlen, const char *value, size_t vlen)
{
    if (k->n >= CP_KEYS_MAX)
        return -1;
    if (k->n % 64 == 0)
        k->v = xrealloc(k->v, (k->n + 64) * sizeof(*k->v));
    char *n = xmalloc(nlen + 1), *v = xmalloc(vlen + 1);
    memcpy(n, name, nlen);
    n[nlen] = '\0';
    memcpy(v, value, vlen);
    v[vlen] = '\0';
    k->v[k->n++] = (struct cp_key){.name = n, .value = v};
    return 0;
}

void cp_keys_dispose(struct cp_keys *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->v[i].name);
        free(k->v[i].value);
    }
    free(k->v);
    *k = (struct cp_keys){0};
}

static bool bare(const char *seg, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = seg[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

static int put(char *buf, size_t cap, size_t *at, const char *s, size_t n)
{
    if (*at + n + 1 > cap)
        return -1;
    memcpy(buf + *at, s, n);
    *at += n;
    buf[*at] = '\0';
    return 0;
}

int cp_keys_join(char *buf, size_t cap, const char *seg, size_t len)
{
    size_t at = strlen(buf);
    if (at > 0 && put(buf, cap, &at, ".", 1) < 0)
        return -1;
    if (bare(seg, len))
        return put(buf, cap, &at, seg, len);
    if (put(buf, cap, &at, "\"", 1) < 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)seg[i];
        char esc[8];
        int n = c == '"' || c == '\\'   ? snprintf(esc, sizeof(esc), "\\%c", c)
                : c < 0x20 || c >= 0x7f ? snprintf(esc, sizeof(esc), "\\x%02x", c)
                                        : snprintf(esc, sizeof(esc), "%c", c);
        if (put(buf, cap, &at, esc, (size_t)n) < 0)
            return -1;
    }
    return put(buf, cap, &at, "\"", 1);
}
