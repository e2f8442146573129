/* An in-memory file system for the ssh_config reader. */
#include "config.h"

#include <fnmatch.h>
#include <string.h>

#include "src/base/util.h"
#include "tests/ssh/memfs.h"

static int mem_read(void *ctx, const char *path, char **out, size_t *len_out, cp_error_t *err)
{
    struct memfs *m = ctx;
    m->reads++;
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->files[i].path, path) != 0)
            continue;
        *out = xmalloc(m->files[i].len + 1);
        memcpy(*out, m->files[i].data, m->files[i].len);
        (*out)[m->files[i].len] = '\0';
        *len_out = m->files[i].len;
        return 0;
    }
    return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "%s: no such file", path);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int mem_glob(void *ctx, const char *pattern, size_t max, char ***out, cp_error_t *err)
{
    struct memfs *m = ctx;
    char **v = xcalloc(m->n + 1, sizeof(char *));
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (fnmatch(pattern, m->files[i].path, FNM_PATHNAME) == 0)
            v[n++] = xstrdup(m->files[i].path);
    qsort(v, n, sizeof(char *), cmp_str);
    if (n > max) {
        cp_strv_free(v);
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s matches too many files", pattern);
    }
    *out = v;
    return 0;
}

void memfs_init(struct memfs *m, struct cp_ssh_fs *fs)
{
    memset(m, 0, sizeof(*m));
    fs->read = mem_read;
    fs->glob = mem_glob;
    fs->ctx = m;
    fs->home = "/home/u";
    fs->local_user = "u";
}

void memfs_add(struct memfs *m, const char *path, const char *data, size_t len)
{
    if (m->n >= ARRAY_SIZE(m->files))
        return;
    struct memfs_file *f = &m->files[m->n++];
    f->path = xstrdup(path);
    f->data = xmalloc(len + 1);
    memcpy(f->data, data, len);
    f->len = len;
}

void memfs_add_str(struct memfs *m, const char *path, const char *text)
{
    memfs_add(m, path, text, strlen(text));
}

void memfs_dispose(struct memfs *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->files[i].path);
        free(m->files[i].data);
    }
    m->n = 0;
}
