/* Manifest files: "conch-mirror-manifest 2\n", "copy ID\n" and "place IDENTITY\n" (the far
 * copy's identity, "-" when none; version 1 had neither), then per file its name, a NUL, and ten
 * decimal fields ending in a newline. Names may hold any byte but NUL, so they end with one. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mirror/manifest.h"
#include "src/base/buf.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define MANIFEST_HEADER    "conch-mirror-manifest 2\n"
#define MANIFEST_HEADER_V1 "conch-mirror-manifest 1\n"
#define MANIFEST_MAX       (256u * 1024 * 1024)

void cp_manifest_dispose(struct cp_manifest *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    free(m->copy_id);
    free(m->place_id);
    m->v = NULL;
    m->copy_id = m->place_id = NULL;
    m->n = m->cap = 0;
}

void cp_manifest_set_identity(struct cp_manifest *m, const char *copy_id, const char *place_id)
{
    free(m->copy_id);
    free(m->place_id);
    m->copy_id = copy_id != NULL ? xstrdup(copy_id) : NULL;
    m->place_id = place_id != NULL ? xstrdup(place_id) : NULL;
}

static int mentry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct cp_mentry *)a)->path, ((const struct cp_mentry *)b)->path);
}

/* Sorts, and keeps one record of a name put twice (callers put each name once; a
 * damaged manifest is the only other source of twins). */
void cp_manifest_sort(struct cp_manifest *m)
{
    if (m->n == 0)
        return;
    size_t k = 1; /* a saved manifest is already in order: one pass says so */
    while (k < m->n && strcmp(m->v[k - 1].path, m->v[k].path) < 0)
        k++;
    if (k < m->n)
        qsort(m->v, m->n, sizeof(*m->v), mentry_cmp);
    size_t w = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (i + 1 < m->n && strcmp(m->v[i].path, m->v[i + 1].path) == 0) {
            free(m->v[i].path);
            continue;
        }
        m->v[w++] = m->v[i];
    }
    m->n = w;
}

const struct cp_mentry *cp_manifest_find(const struct cp_manifest *m, const char *path)
{
    struct cp_mentry key = {.path = (char *)path};
    if (m->n == 0)
        return NULL;
    return bsearch(&key, m->v, m->n, sizeof(*m->v), mentry_cmp);
}

void cp_manifest_put(struct cp_manifest *m, const char *path, const struct cp_sig *here,
                     const struct cp_sig *there)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
    }
    struct cp_mentry *e = &m->v[m->n++];
    e->path = xstrdup(path);
    e->here = *here;
    e->there = *there;
}

/* A place or chat name as one safe file-name component: anything but [A-Za-z0-9_-] as %XX. */
static char *safe_component(const char *s)
{
    struct cp_buf b;
    cp_buf_init(&b, 1024);
    for (const unsigned char *p = (const unsigned char *)s; *p != 0; p++) {
        char hex[4];
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '_' || *p == '-';
        snprintf(hex, sizeof(hex), "%%%02X", *p);
        if (cp_buf_append(&b, plain ? (const char *)p : hex, plain ? 1 : 3) < 0)
            break;
    }
    return cp_buf_steal(&b);
}

int cp_manifest_path(const char *place, const char *chat, int create, char **out, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_conch_home(create, &home, err) < 0)
        return cp_error_wrap(err, "while finding the mirror's manifest");
    cleanup_free char *splace = safe_component(place);
    cleanup_free char *schat = safe_component(chat);
    cleanup_free char *dir = xasprintf("%s/workplaces", home);
    cleanup_free char *pdir = xasprintf("%s/%s", dir, splace);
    if (create &&
        ((mkdir(dir, 0700) < 0 && errno != EEXIST) || (mkdir(pdir, 0700) < 0 && errno != EEXIST)))
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", pdir);
    *out = xasprintf("%s/%s.manifest", pdir, schat);
    return 0;
}

/* Decimal digits of v, written backwards from end; returns where they start. */
static char *put_u64(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

static char *put_i64(char *end, int64_t v)
{
    if (v >= 0)
        return put_u64(end, (uint64_t)v);
    end = put_u64(end, -(uint64_t)v);
    *--end = '-';
    return end;
}

/* "SIZE MTIME CTIME INO MODEOCTAL" and sep; built from the end, as snprintf is slow here. */
static void append_sig(struct cp_buf *b, const struct cp_sig *s, char sep, int *ok)
{
    char line[160], *end = line + sizeof(line), *p = end;
    *--p = sep;
    uint32_t mode = s->mode;
    do {
        *--p = (char)('0' + (mode & 7));
        mode >>= 3;
    } while (mode != 0);
    *--p = ' ';
    p = put_u64(p, s->ino);
    *--p = ' ';
    p = put_i64(p, s->ctime_ns);
    *--p = ' ';
    p = put_i64(p, s->mtime_ns);
    *--p = ' ';
    p = put_u64(p, s->size);
    if (cp_buf_append(b, p, (size_t)(end - p)) < 0)
        *ok = 0;
}

int cp_manifest_save(const char *path, const struct cp_manifest *m, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, MANIFEST_MAX);
    int ok = cp_buf_append(&b, MANIFEST_HEADER, strlen(MANIFEST_HEADER)) == 0;
    cleanup_free char *ident = xasprintf("copy %s\nplace %s\n", m->copy_id ? m->copy_id : "-",
                                         m->place_id ? m->place_id : "-");
    if (strpbrk(m->copy_id ? m->copy_id : "", "\n") ||
        strpbrk(m->place_id ? m->place_id : "", "\n"))
        return cp_error_make(err, CP_ERR_FAILED, 0, "a copy's identity holds a new line");
    ok = ok && cp_buf_append(&b, ident, strlen(ident)) == 0;
    for (size_t i = 0; ok && i < m->n; i++) {
        ok = cp_buf_append(&b, m->v[i].path, strlen(m->v[i].path) + 1) == 0;
        append_sig(&b, &m->v[i].here, ' ', &ok);
        append_sig(&b, &m->v[i].there, '\n', &ok);
    }
    if (!ok)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the manifest would pass %u bytes",
                             MANIFEST_MAX);
    if (cp_write_file_atomic(path, b.data, b.len, 0600, err) < 0)
        return cp_error_wrap(err, "while saving the mirror's manifest");
    return 0;
}

/* Reads one field ending in sep; strict: digits only, no sign unless allowed. */
static int field(const char **p, const char *end, char sep, int base, int neg_ok, int64_t *out)
{
    const char *s = *p;
    int neg = 0;
    if (neg_ok && s < end && *s == '-')
        neg = 1, s++;
    uint64_t v = 0;
    const char *start = s;
    for (; s < end && *s >= '0' && *s < '0' + base; s++) {
        if (v > (UINT64_MAX - 9) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + (uint64_t)(*s - '0');
    }
    if (s == start || s >= end || *s != sep || v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *p = s + 1;
    return 0;
}

static int parse_sig(const char **p, const char *end, char last, struct cp_sig *s)
{
    int64_t size, mt, ct, ino, mode;
    if (field(p, end, ' ', 10, 0, &size) < 0 || field(p, end, ' ', 10, 1, &mt) < 0 ||
        field(p, end, ' ', 10, 1, &ct) < 0 || field(p, end, ' ', 10, 0, &ino) < 0 ||
        field(p, end, last, 8, 0, &mode) < 0 || mode > 07777)
        return -1;
    *s = (struct cp_sig){(uint64_t)size, mt, ct, (uint64_t)ino, (uint32_t)mode};
    return 0;
}

/* "KEY VALUE\n" at *p; VALUE "-" is none. */
static int ident_line(const char **p, const char *end, const char *key, char **out)
{
    size_t k = strlen(key);
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (nl == NULL || (size_t)(nl - *p) <= k + 1 || memcmp(*p, key, k) != 0 || (*p)[k] != ' ')
        return -1;
    const char *v = *p + k + 1;
    if (memchr(v, '\0', (size_t)(nl - v)) != NULL)
        return -1;
    if (!(nl - v == 1 && v[0] == '-'))
        *out = xasprintf("%.*s", (int)(nl - v), v);
    *p = nl + 1;
    return 0;
}

static int parse_manifest(const char *data, size_t len, bool v2, struct cp_manifest *out)
{
    const char *p = data + strlen(MANIFEST_HEADER), *end = data + len;
    if (v2 && (ident_line(&p, end, "copy", &out->copy_id) < 0 ||
               ident_line(&p, end, "place", &out->place_id) < 0))
        return -1;
    while (p < end) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        struct cp_sig here, there;
        if (nul == NULL || nul == p)
            return -1;
        const char *name = p;
        p = nul + 1;
        if (parse_sig(&p, end, ' ', &here) < 0 || parse_sig(&p, end, '\n', &there) < 0)
            return -1;
        cp_manifest_put(out, name, &here, &there);
    }
    return 0;
}

int cp_manifest_load(const char *path, struct cp_manifest *out, cp_error_t *err)
{
    cleanup_free char *data = NULL;
    size_t len = 0;
    cleanup_error cp_error_t rerr = NULL;
    if (cp_read_file(path, MANIFEST_MAX, &data, &len, &rerr) < 0) {
        if (cp_error_code(&rerr) == CP_ERR_NOT_FOUND)
            return 0;
        return cp_error_make(err, cp_error_code(&rerr), 0, "%s", rerr->msg);
    }
    bool v2 = len >= strlen(MANIFEST_HEADER) &&
              memcmp(data, MANIFEST_HEADER, strlen(MANIFEST_HEADER)) == 0;
    bool v1 = len >= strlen(MANIFEST_HEADER_V1) &&
              memcmp(data, MANIFEST_HEADER_V1, strlen(MANIFEST_HEADER_V1)) == 0;
    if ((!v1 && !v2) || parse_manifest(data, len, v2, out) < 0) {
        cp_manifest_dispose(out);
        int code =
            cp_error_make(err, CP_ERR_FAILED, 0, "the mirror's manifest %s is damaged", path);
        cp_error_hint(err, "Delete it; the next run sends the whole folder again.");
        return code;
    }
    cp_manifest_sort(out);
    return 0;
}
