/* A sign-in's words taken out of the host's answers (scrub.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "egress/sign-ins/scrub.h"
#include "src/base/digest.h"
#include "src/base/util.h"

void cp_scrub_init(struct cp_scrub *s)
{
    memset(s, 0, sizeof(*s));
}

bool cp_scrub_active(const struct cp_scrub *s)
{
    return s->n > 0;
}

static void wipe_free(char *p, size_t len)
{
    if (p == NULL)
        return;
    explicit_bzero(p, len);
    free(p);
}

/* Keeps form (the scrubber's now) unless it is too short, cannot be in a header, or is there. */
static void keep(struct cp_scrub *s, char *form, size_t len)
{
    bool unfit = len < CP_SCRUB_MIN || memchr(form, '\r', len) || memchr(form, '\n', len) ||
                 strlen(form) != len;
    for (size_t i = 0; !unfit && i < s->n; i++)
        unfit = s->form_len[i] == len && memcmp(s->form[i], form, len) == 0;
    if (unfit) {
        wipe_free(form, len);
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->form = xrealloc(s->form, s->cap * sizeof(*s->form));
        s->form_len = xrealloc(s->form_len, s->cap * sizeof(*s->form_len));
    }
    s->form[s->n] = form;
    s->form_len[s->n++] = len;
    if (len > s->longest)
        s->longest = len;
}

enum escape { PCT_UPPER, PCT_LOWER, PCT_UPPER_SLASH, PCT_LOWER_SLASH, FORM, JSON, ESCAPES };

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

/* base[0..len) written as an echo of kind e would write it; the caller's, NUL-terminated. */
static char *escaped(const char *base, size_t len, enum escape e, size_t *out_len)
{
    char *o = xmalloc(len * 3 + 1);
    size_t n = 0;
    const char *hex =
        e == PCT_LOWER || e == PCT_LOWER_SLASH ? "0123456789abcdef" : "0123456789ABCDEF";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)base[i];
        if (e == JSON) {
            if (c == '/' || c == '"' || c == '\\')
                o[n++] = '\\';
            o[n++] = (char)c;
        } else if (unreserved(c) || (c == '/' && (e == PCT_UPPER_SLASH || e == PCT_LOWER_SLASH))) {
            o[n++] = (char)c;
        } else if (c == ' ' && e == FORM) {
            o[n++] = '+';
        } else {
            o[n++] = '%';
            o[n++] = hex[c >> 4];
            o[n++] = hex[c & 15];
        }
    }
    o[n] = '\0';
    *out_len = n;
    return o;
}

/* One base form and the ways an echo writes it. */
static void add_base(struct cp_scrub *s, const char *base, size_t len)
{
    if (len == 0)
        return;
    char *copy = xmalloc(len + 1);
    memcpy(copy, base, len);
    copy[len] = '\0';
    keep(s, copy, len);
    for (int e = 0; e < ESCAPES; e++) {
        size_t n = 0;
        char *form = escaped(base, len, (enum escape)e, &n);
        keep(s, form, n);
    }
}

void cp_scrub_add_authorization(struct cp_scrub *s, const char *value)
{
    size_t len = strlen(value);
    add_base(s, value, len);
    const char *sp = strchr(value, ' ');
    if (sp == NULL)
        return;
    const char *cred = sp + strspn(sp, " ");
    add_base(s, cred, strlen(cred));
    if ((size_t)(sp - value) != 5 || strncasecmp(value, "basic", 5) != 0)
        return;
    unsigned char *pair = NULL;
    size_t pair_len = 0;
    if (cp_base64_decode(cred, strlen(cred), &pair, &pair_len) < 0)
        return;
    add_base(s, (const char *)pair, pair_len);
    const char *colon = memchr(pair, ':', pair_len);
    if (colon != NULL)
        add_base(s, colon + 1, pair_len - (size_t)(colon + 1 - (const char *)pair));
    wipe_free((char *)pair, pair_len);
}

void cp_scrub_mask(const struct cp_scrub *s, char *data, size_t len)
{
    for (size_t i = 0; i < s->n; i++) {
        size_t m = s->form_len[i];
        for (char *at = data; (size_t)(at - data) + m <= len;) {
            char *hit = memmem(at, len - (size_t)(at - data), s->form[i], m);
            if (hit == NULL)
                break;
            memset(hit, CP_SCRUB_MASK, m);
            at = hit + m;
        }
    }
}

int cp_scrub_feed(struct cp_scrub *s, const char *data, size_t len, cp_scrub_out_fn out, void *ctx)
{
    if (len == 0)
        return 0;
    if (s->held_len + len > s->held_cap) {
        size_t cap = s->held_len + len;
        char *grown = xmalloc(cap);
        if (s->held_len > 0)
            memcpy(grown, s->held, s->held_len);
        wipe_free(s->held, s->held_cap);
        s->held = grown;
        s->held_cap = cap;
    }
    memcpy(s->held + s->held_len, data, len);
    s->held_len += len;
    cp_scrub_mask(s, s->held, s->held_len);
    /* A form that begins in the last longest - 1 bytes may end in bytes still to come. */
    size_t keep_back = s->longest > 0 ? s->longest - 1 : 0;
    if (s->held_len <= keep_back)
        return 0;
    size_t ready = s->held_len - keep_back;
    int r = out(ctx, s->held, ready);
    memmove(s->held, s->held + ready, keep_back);
    s->held_len = keep_back;
    return r;
}

int cp_scrub_finish(struct cp_scrub *s, cp_scrub_out_fn out, void *ctx)
{
    size_t n = s->held_len;
    s->held_len = 0;
    return n > 0 ? out(ctx, s->held, n) : 0;
}

void cp_scrub_dispose(struct cp_scrub *s)
{
    for (size_t i = 0; i < s->n; i++)
        wipe_free(s->form[i], s->form_len[i]);
    free(s->form);
    free(s->form_len);
    wipe_free(s->held, s->held_cap);
    cp_scrub_init(s);
}
