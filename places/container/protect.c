/* Finds key files and key folders anywhere in the work folder, so the box never sees them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/protect.h"
#include "src/base/json.h"
#include "src/base/util.h"

#define SCAN_MAX_ENTRIES 500000
#define SCAN_MAX_DEPTH   64

static const char *const default_patterns[] = {
    ".env",  ".env.*", ".netrc",  ".pypirc",     ".git-credentials",
    "*.pem", "*.key",  "id_rsa*", "id_ed25519*", "id_ecdsa*",
    ".ssh/", ".aws/",  ".gnupg/", ".conch/",     NULL,
};

/* Never entered: they are large, and a dependency's own test keys are not the person's. */
static const char *const skipped_dirs[] = {"node_modules", ".git",    ".venv", "venv", "target",
                                           "__pycache__",  ".gradle", ".tox",  NULL};

const char *const *cp_protect_patterns(const struct cp_config *cfg, char ***owned_out)
{
    json_object *p = NULL;
    *owned_out = NULL;
    if (cfg == NULL || !json_object_object_get_ex(cfg->root, "protected", &p))
        return default_patterns;
    size_t n = json_object_array_length(p);
    char **v = xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        v[i] = xstrdup(json_object_get_string(json_object_array_get_idx(p, i)));
    *owned_out = v;
    return (const char *const *)v;
}

struct scan {
    const char *const *patterns;
    struct cp_protected *out;
    size_t ndirs, nfiles, seen;
};

static void push(char ***v, size_t *n, char *s)
{
    *v = xrealloc(*v, (*n + 2) * sizeof(char *));
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

static bool matches(const char *const *patterns, const char *name, bool is_dir)
{
    for (size_t i = 0; patterns[i] != NULL; i++) {
        size_t len = strlen(patterns[i]);
        bool dir_only = len > 0 && patterns[i][len - 1] == '/';
        if (dir_only && !is_dir)
            continue;
        cleanup_free char *pat = strndup(patterns[i], dir_only ? len - 1 : len);
        if (fnmatch(pat, name, FNM_PERIOD) == 0 || strcmp(pat, name) == 0)
            return true;
    }
    return false;
}

static bool skipped(const char *name)
{
    for (size_t i = 0; skipped_dirs[i] != NULL; i++)
        if (strcmp(skipped_dirs[i], name) == 0)
            return true;
    return false;
}

static int walk(struct scan *s, int dirfd, const char *path, int depth, cp_error_t *err);

static int visit(struct scan *s, int dirfd, const char *path, const struct dirent *de, int depth,
                 cp_error_t *err)
{
    struct stat st;
    if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0; /* gone while we looked: nothing to cover */
    if (++s->seen > SCAN_MAX_ENTRIES)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0,
                             "%s holds more than %d entries to check "
                             "for key files",
                             path, SCAN_MAX_ENTRIES);
    bool is_dir = S_ISDIR(st.st_mode);
    cleanup_free char *full = xasprintf("%s/%s", path, de->d_name);
    if ((is_dir || S_ISREG(st.st_mode)) && matches(s->patterns, de->d_name, is_dir)) {
        if (is_dir)
            push(&s->out->dirs, &s->ndirs, steal_pointer(&full));
        else
            push(&s->out->files, &s->nfiles, steal_pointer(&full));
        return 0;
    }
    if (!is_dir || skipped(de->d_name) || depth >= SCAN_MAX_DEPTH)
        return 0;
    cleanup_close int sub =
        openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return 0; /* unreadable to us is unreadable to the box's uid too */
    return walk(s, steal_fd(&sub), full, depth + 1, err);
}

/* Takes ownership of dirfd. */
static int walk(struct scan *s, int dirfd, const char *path, int depth, cp_error_t *err)
{
    cleanup_dir DIR *d = fdopendir(dirfd);
    if (d == NULL) {
        close(dirfd);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot list %s", path);
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (visit(s, dirfd, path, de, depth, err) < 0)
            return cp_error_code(err);
    }
    return 0;
}

int cp_protect_scan(const char *workdir, const char *const *patterns, struct cp_protected *out,
                    cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    struct scan s = {.patterns = patterns, .out = out};
    int fd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the work folder %s", workdir);
    if (walk(&s, fd, strcmp(workdir, "/") == 0 ? "" : workdir, 0, err) < 0) {
        cp_protected_dispose(out);
        return cp_error_code(err);
    }
    return 0;
}

void cp_protected_dispose(struct cp_protected *p)
{
    cp_strv_free(p->dirs);
    cp_strv_free(p->files);
    p->dirs = p->files = NULL;
}
