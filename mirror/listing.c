/* Listing: a walk of the work folder from its directory handle, never following a link, and
 * the parser of the far side's listing, which pairs stat records with a NUL-separated list. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/listing.h"
#include "src/base/util.h"
#include "src/base/report.h"

/* Deeper than this the walk stops: each level holds one open folder. */
#define WALK_MAX_DEPTH 128

struct walk {
    const struct cp_rules *rules;
    const struct cp_limits *lim;
    struct cp_listing *out;
    struct cp_mirror_report *rep;
    dev_t dev;
};

void cp_listing_dispose(struct cp_listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
    l->bytes = 0;
}

bool cp_sig_equal(const struct cp_sig *a, const struct cp_sig *b)
{
    return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
           a->ino == b->ino && a->mode == b->mode;
}

static struct cp_entry *listing_add(struct cp_listing *l, char *path)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    struct cp_entry *e = &l->v[l->n++];
    memset(e, 0, sizeof(*e));
    e->path = path;
    return e;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct cp_entry *)a)->path, ((const struct cp_entry *)b)->path);
}

const struct cp_entry *cp_listing_find(const struct cp_listing *l, const char *path)
{
    struct cp_entry key = {.path = (char *)path};
    if (l->n == 0)
        return NULL;
    return bsearch(&key, l->v, l->n, sizeof(*l->v), entry_cmp);
}

static int64_t ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static int too_big(struct walk *w, cp_error_t *err)
{
    int code =
        cp_error_make(err, CP_ERR_TOO_BIG, 0,
                      "the work folder has more than %zu files or %" PRIu64 " bytes to mirror",
                      w->lim->max_files, w->lim->max_bytes);
    cp_error_hint(err, "Run this folder in a container (--place container), or move large or "
                       "generated files out of it.");
    return code;
}

static int add_file(struct walk *w, char *rel, const struct stat *st, cp_error_t *err)
{
    cleanup_free char *path = rel;
    const char *why = cp_rules_check(w->rules, path);
    if (why != NULL) {
        cp_run_report_file("refused_send", path, why);
        if (strcmp(why, "protected place") == 0) {
            if (w->rep != NULL)
                w->rep->protected_places++;
            return 0;
        }
        if (w->rep != NULL)
            w->rep->not_carried++;
        cleanup_free char *shown = cp_escape(path);
        cp_report(w->rep, "not carried: %s (%s)", shown, why);
        return 0;
    }
    struct cp_entry *e = listing_add(w->out, steal_pointer(&path));
    e->sig = (struct cp_sig){.size = (uint64_t)st->st_size,
                             .mtime_ns = ts_ns(&st->st_mtim),
                             .ctime_ns = ts_ns(&st->st_ctim),
                             .ino = (uint64_t)st->st_ino,
                             .mode = st->st_mode & 07777};
    e->dev = (uint64_t)st->st_dev;
    w->out->bytes += (uint64_t)st->st_size;
    if (w->out->n > w->lim->max_files || w->out->bytes > w->lim->max_bytes)
        return too_big(w, err);
    return 0;
}

/* A folder is left out when the rules would refuse anything inside it. */
static bool folder_left_out(struct walk *w, const char *rel, const char *name)
{
    if (cp_rules_is_dep_folder(name)) {
        if (w->rep != NULL)
            w->rep->dep_folders++;
        return true;
    }
    cleanup_free char *probe = xasprintf("%s/x", rel);
    const char *why = cp_rules_place(w->rules, probe);
    if (why == NULL || w->rep == NULL)
        return why != NULL;
    if (strcmp(why, "protected place") == 0)
        w->rep->protected_places++;
    else
        w->rep->not_carried++;
    return true;
}

static int walk_dir(struct walk *w, int fd, const char *prefix, int depth, cp_error_t *err);

static int visit(struct walk *w, int parent, const char *prefix, const char *name, int depth,
                 cp_error_t *err)
{
    struct stat st;
    cleanup_free char *rel = prefix[0] ? xasprintf("%s/%s", prefix, name) : xstrdup(name);
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat");
    if (S_ISLNK(st.st_mode)) {
        if (w->rep != NULL)
            w->rep->links++;
        return 0;
    }
    if (S_ISREG(st.st_mode))
        return add_file(w, steal_pointer(&rel), &st, err);
    if (!S_ISDIR(st.st_mode) || folder_left_out(w, rel, name))
        return 0;
    if (st.st_dev != w->dev || depth >= WALK_MAX_DEPTH) {
        cleanup_free char *shown = cp_escape(rel);
        cp_report(w->rep, "not carried: %s/ (%s)", shown,
                  st.st_dev != w->dev ? "another file system is mounted there" : "too deep");
        return 0;
    }
    cleanup_close int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : cp_error_make(err, CP_ERR_FAILED, errno, "cannot open");
    return walk_dir(w, steal_fd(&fd), rel, depth + 1, err);
}

/* Takes ownership of fd. */
static int walk_dir(struct walk *w, int fd, const char *prefix, int depth, cp_error_t *err)
{
    cleanup_dir DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read folder");
    }
    struct dirent *de;
    while ((errno = 0, de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (visit(w, dirfd(d), prefix, de->d_name, depth, err) < 0) {
            cleanup_free char *shown = cp_escape(prefix[0] ? prefix : ".");
            return cp_error_wrap(err, "while listing %s", shown);
        }
    }
    if (errno != 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read folder");
    return 0;
}

int cp_listing_local(int rootfd, const struct cp_rules *rules, const struct cp_limits *lim,
                     struct cp_listing *out, struct cp_mirror_report *rep, cp_error_t *err)
{
    struct stat st;
    if (fstat(rootfd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat the work folder");
    struct cp_limits defaults = {CP_MAX_FILES, CP_MAX_BYTES};
    struct walk w = {rules, lim ? lim : &defaults, out, rep, st.st_dev};
    int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the work folder");
    if (walk_dir(&w, fd, "", 0, err) < 0)
        return cp_error_code(err);
    if (out->n > 0)
        qsort(out->v, out->n, sizeof(*out->v), entry_cmp);
    return 0;
}

/* ---- the far listing ---- */

struct far_parse {
    const char *p, *end;
};

static int parse_u64(struct far_parse *fp, int base, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = fp->p;
    if (base == 16 && fp->end - s > 2 && s[0] == '0' && s[1] == 'x')
        s += 2;
    const char *start = s;
    for (; s < fp->end && s - start < 20; s++) {
        int d = (*s >= '0' && *s <= '9')                 ? *s - '0'
                : (base == 16 && *s >= 'a' && *s <= 'f') ? *s - 'a' + 10
                : (base == 16 && *s >= 'A' && *s <= 'F') ? *s - 'A' + 10
                                                         : -1;
        if (d < 0 || d >= base)
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (s == start)
        return -1;
    fp->p = s;
    *out = v;
    return 0;
}

/* "SECONDS" or "SECONDS.FRACTION" into nanoseconds. */
static int parse_time(struct far_parse *fp, int64_t *out)
{
    uint64_t sec = 0;
    if (parse_u64(fp, 10, &sec) < 0 || sec > INT64_MAX / 1000000000LL - 1)
        return -1;
    int64_t ns = 0, scale = 100000000;
    if (fp->p < fp->end && *fp->p == '.') {
        fp->p++;
        for (; fp->p < fp->end && *fp->p >= '0' && *fp->p <= '9'; fp->p++, scale /= 10)
            ns += scale * (*fp->p - '0');
    }
    *out = (int64_t)sec * 1000000000LL + ns;
    return 0;
}

static int expect_char(struct far_parse *fp, char c)
{
    if (fp->p >= fp->end || *fp->p != c)
        return -1;
    fp->p++;
    return 0;
}

/* One record "MODEHEX SIZE MTIME CTIME ./NAME\n" for the expected name; fp moves only on a
 * match, so a file that vanished between find and stat is skipped, not misread. */
static int parse_record(struct far_parse *fp, const char *name, size_t nlen, struct cp_sig *sig)
{
    struct far_parse t = *fp;
    uint64_t mode = 0, size = 0;
    if (parse_u64(&t, 16, &mode) < 0 || expect_char(&t, ' ') < 0 || parse_u64(&t, 10, &size) < 0 ||
        expect_char(&t, ' ') < 0 || parse_time(&t, &sig->mtime_ns) < 0 ||
        expect_char(&t, ' ') < 0 || parse_time(&t, &sig->ctime_ns) < 0 || expect_char(&t, ' ') < 0)
        return -1;
    if ((size_t)(t.end - t.p) < nlen + 1 || memcmp(t.p, name, nlen) != 0 || t.p[nlen] != '\n')
        return -1;
    if ((mode & S_IFMT) != S_IFREG)
        return -1;
    t.p += nlen + 1;
    sig->size = size;
    sig->mode = (uint32_t)(mode & 07777);
    sig->ino = 0;
    *fp = t;
    return 0;
}

static int far_bad(cp_error_t *err, const char *what)
{
    return cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side's listing is malformed (%s)", what);
}

/* Drops every copy of a name listed twice: a hostile listing must not choose which one. */
static void drop_duplicates(struct cp_listing *l)
{
    size_t w = 0;
    for (size_t i = 0; i < l->n;) {
        size_t j = i + 1;
        while (j < l->n && strcmp(l->v[i].path, l->v[j].path) == 0)
            j++;
        if (j - i == 1) {
            l->v[w++] = l->v[i];
        } else {
            for (size_t k = i; k < j; k++)
                free(l->v[k].path);
        }
        i = j;
    }
    l->n = w;
}

static bool far_name_ok(const char *n, size_t nlen)
{
    return nlen >= 3 && n[0] == '.' && n[1] == '/';
}

/* Keeps one parsed far entry; n is "./NAME" and ends in a NUL. */
static void far_add(struct cp_listing *out, const char *n, const struct cp_sig *sig)
{
    struct cp_entry *e = listing_add(out, xstrdup(n + 2));
    e->sig = *sig;
    out->bytes += sig->size;
}

/* Form 1: the NUL-separated names, an empty one, then a stat line per name. */
static int parse_far_v1(const char *names, const char *end, size_t max_files,
                        struct cp_listing *out, cp_error_t *err)
{
    const char *stop = names;
    size_t count = 0;
    while (stop < end && *stop != '\0') { /* the names end at an empty one */
        const char *nul = memchr(stop, '\0', (size_t)(end - stop));
        if (nul == NULL)
            return far_bad(err, "a name without its end");
        if (++count > max_files)
            return far_bad(err, "too many names");
        stop = nul + 1;
    }
    if (stop >= end)
        return far_bad(err, "the names do not end");
    struct far_parse fp = {stop + 1, end};
    for (const char *n = names; n < stop; n += strlen(n) + 1) {
        size_t nlen = strlen(n);
        struct cp_sig sig = {0};
        if (far_name_ok(n, nlen) && parse_record(&fp, n, nlen, &sig) == 0)
            far_add(out, n, &sig);
    }
    return 0;
}

/* One form-2 record "TYPE PERMS SIZE MTIME CTIME "; the name follows up to its NUL. */
static int parse_record_v2(struct far_parse *fp, struct cp_sig *sig)
{
    uint64_t perms = 0, size = 0;
    if (expect_char(fp, 'f') < 0 || expect_char(fp, ' ') < 0 || parse_u64(fp, 8, &perms) < 0 ||
        perms > 07777 || expect_char(fp, ' ') < 0 || parse_u64(fp, 10, &size) < 0 ||
        expect_char(fp, ' ') < 0 || parse_time(fp, &sig->mtime_ns) < 0 ||
        expect_char(fp, ' ') < 0 || parse_time(fp, &sig->ctime_ns) < 0 || expect_char(fp, ' ') < 0)
        return -1;
    sig->size = size;
    sig->mode = (uint32_t)perms;
    sig->ino = 0;
    return 0;
}

/* Form 2: self-contained records, each ending in a NUL; a damaged one is skipped whole. */
static int parse_far_v2(const char *p, const char *end, size_t max_files, struct cp_listing *out,
                        cp_error_t *err)
{
    size_t count = 0;
    while (p < end) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        if (nul == NULL)
            return far_bad(err, "a record without its end");
        if (++count > max_files)
            return far_bad(err, "too many names");
        struct far_parse fp = {p, nul};
        struct cp_sig sig = {0};
        if (parse_record_v2(&fp, &sig) == 0 && far_name_ok(fp.p, (size_t)(nul - fp.p)))
            far_add(out, fp.p, &sig);
        p = nul + 1;
    }
    return 0;
}

int cp_listing_parse_far(const char *data, size_t len, size_t max_files, struct cp_listing *out,
                         cp_error_t *err)
{
    static const char v1[] = "conch-list 1\n", v2[] = "conch-list 2\n";
    const char *end = data + len;
    int rc;
    if (len >= sizeof(v1) - 1 && memcmp(data, v1, sizeof(v1) - 1) == 0)
        rc = parse_far_v1(data + sizeof(v1) - 1, end, max_files, out, err);
    else if (len >= sizeof(v2) - 1 && memcmp(data, v2, sizeof(v2) - 1) == 0)
        rc = parse_far_v2(data + sizeof(v2) - 1, end, max_files, out, err);
    else
        return far_bad(err, "no header");
    if (rc < 0)
        return rc;
    if (out->n > 0)
        qsort(out->v, out->n, sizeof(*out->v), entry_cmp);
    drop_duplicates(out);
    return 0;
}
