/* Finds key files and key folders anywhere in the work folder, so the box never sees them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "src/base/keyless.h"
#include "places/container/box/protect.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/protected.h"
#include "src/base/util.h"

#define SCAN_MAX_ENTRIES 500000
#define SCAN_MAX_DEPTH   64
#define KEYLESS_PREFIX   "keyless-"

/* Never entered: they are large, and a dependency's own test keys are not the person's. A
 * .git found in one is not made read-only either (DESIGN.md's limit, docs/container.md's seal). */
static const char *const skipped_dirs[] = {"node_modules", ".venv",   "venv", "target",
                                           "__pycache__",  ".gradle", ".tox", NULL};

const char *const *cp_protect_patterns(const struct cp_config *cfg, char ***owned_out)
{
    return cp_protected_in_force(cfg, owned_out);
}

struct scan {
    const char *const *patterns;
    struct cp_protected *out;
    size_t root_len; /* the work folder's path, before each entry's relative one */
    size_t ndirs, nfiles, ngits, nsettings, seen;
};

static void push(char ***v, size_t *n, char *s)
{
    *v = xrealloc(*v, (*n + 2) * sizeof(char *));
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

/* Takes full. Whether the entry was one to cover, seal or copy (and is not to be entered). */
static bool sort_entry(struct scan *s, char *full, const char *name, bool is_dir)
{
    const char *rel = full + s->root_len + 1;
    if (cp_protected_is(s->patterns, rel)) {
        if (is_dir)
            push(&s->out->dirs, &s->ndirs, full);
        else
            push(&s->out->files, &s->nfiles, full);
        return true;
    }
    /* Git runs a repository's hooks and fsmonitor at the next git command here: every .git
     * (a submodule's or a worktree's file too) is read-only, not only the top one. */
    if (strcasecmp(name, ".git") == 0) {
        push(&s->out->gits, &s->ngits, full);
        return true;
    }
    if (!is_dir && cp_keyless_is(name)) {
        push(&s->out->settings, &s->nsettings, full);
        return true;
    }
    free(full);
    return false;
}

/* Git follows a .git that is a link: where it leads inside the work folder is read-only too
 * (outside it, the box cannot reach it). */
static void git_link(struct scan *s, const char *full)
{
    cleanup_free char *real = realpath(full, NULL);
    struct stat st;
    if (real == NULL || strncmp(real, full, s->root_len) != 0 || real[s->root_len] != '/' ||
        stat(real, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
        return;
    push(&s->out->gits, &s->ngits, steal_pointer(&real));
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
    if ((is_dir || S_ISREG(st.st_mode)) && sort_entry(s, xstrdup(full), de->d_name, is_dir))
        return 0;
    if (S_ISLNK(st.st_mode) && strcasecmp(de->d_name, ".git") == 0)
        git_link(s, full);
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
    const char *root = strcmp(workdir, "/") == 0 ? "" : workdir;
    struct scan s = {.patterns = patterns, .out = out, .root_len = strlen(root)};
    int fd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the work folder %s", workdir);
    if (walk(&s, fd, root, 0, err) < 0) {
        cp_protected_dispose(out);
        return cp_error_code(err);
    }
    return 0;
}

/* The copy's bytes: the file read without following a link, its keys taken out. NULL when
 * it cannot be read as a settings file (over CP_KEYLESS_MAX too), so it is covered instead. */
static char *keyless_of(const char *path)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    return cp_keyless_of_fd(fd);
}

static int write_named(const char *dir, const char *name, const char *text, char **out,
                       cp_error_t *err)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, name);
    cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || cp_write_all(fd, text, strlen(text)) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write %s", path);
    *out = steal_pointer(&path);
    return 0;
}

static int write_copy(const char *dir, size_t i, const char *text, char **out, cp_error_t *err)
{
    cleanup_free char *name = xasprintf("%zu", i);
    return write_named(dir, name, text, out, err);
}

/* The box's copy folder, made at its first copy. */
static int copy_dir(struct cp_protected *p, const char *box, cp_error_t *err)
{
    if (p->copy_dir != NULL)
        return 0;
    cleanup_free char *home = NULL;
    if (cp_workplaces_dir(&home, err) < 0)
        return cp_error_code(err);
    char *dir = xasprintf("%s/" KEYLESS_PREFIX "%s", home, box);
    if (mkdir(dir, 0700) < 0) {
        int e = errno;
        free(dir);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot make the keyless copies' folder");
    }
    p->copy_dir = dir;
    return 0;
}

int cp_protect_make_copies(struct cp_protected *p, const char *box, cp_error_t *err)
{
    size_t n = cp_strv_len(p->settings);
    if (n == 0)
        return 0;
    if (copy_dir(p, box, err) < 0)
        return cp_error_code(err);
    size_t nfiles = cp_strv_len(p->files), ncopies = 0, nsettings = 0;
    char **settings = steal_pointer(&p->settings);
    for (size_t i = 0; i < n; i++) {
        cleanup_free char *text = keyless_of(settings[i]);
        if (text == NULL) { /* unreadable as settings: covered like a key */
            push(&p->files, &nfiles, steal_pointer(&settings[i]));
            continue;
        }
        char *copy = NULL;
        if (write_copy(p->copy_dir, i, text, &copy, err) < 0) {
            cp_strv_free(settings);
            return cp_error_code(err);
        }
        push(&p->copies, &ncopies, copy);
        push(&p->settings, &nsettings, steal_pointer(&settings[i]));
    }
    for (size_t i = 0; i < n; i++)
        free(settings[i]);
    free(settings);
    return 0;
}

typedef char *(*keyless_fn)(const char *, size_t);

struct home_copy {
    const char *box_path;
    keyless_fn keyless;
};

/* Takes the file's text through keyless, or NULL: absent, or not a settings file to show. */
static char *home_keyless(const char *path, keyless_fn keyless)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CP_KEYLESS_MAX)
        return NULL;
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (cp_read_fd(path, fd, CP_KEYLESS_MAX, &text, &len, NULL) < 0)
        return NULL;
    char *out = keyless(text, len);
    explicit_bzero(text, len);
    return out;
}

static int add_home_copy(struct cp_protected *p, const char *box, const char *path,
                         const struct home_copy *c, cp_error_t *err)
{
    cleanup_free char *text = home_keyless(path, c->keyless);
    if (text == NULL || text[strspn(text, " \t\r\n")] == '\0')
        return 0; /* nothing to show: no bind, and a warm box may still serve */
    size_t ns = cp_strv_len(p->settings), nc = cp_strv_len(p->copies);
    cleanup_free char *name = xasprintf("home-%s", strrchr(c->box_path, '/') + 1);
    char *copy = NULL;
    if (copy_dir(p, box, err) < 0 || write_named(p->copy_dir, name, text, &copy, err) < 0)
        return cp_error_code(err);
    push(&p->copies, &nc, copy);
    push(&p->settings, &ns, xstrdup(c->box_path));
    return 0;
}

/* pip's own order of the person's files; the first that exists is the one the box sees. */
static char *pip_conf(const char *home, const char *xdg_config)
{
    cleanup_free char *xdg = xdg_config ? xstrdup(xdg_config) : xasprintf("%s/.config", home);
    char *first = xasprintf("%s/pip/pip.conf", xdg);
    struct stat st;
    if (stat(first, &st) == 0)
        return first;
    free(first);
    return xasprintf("%s/.pip/pip.conf", home);
}

int cp_protect_home_copies(struct cp_protected *p, const char *box, const char *home,
                           const char *xdg_config, cp_error_t *err)
{
    /* /etc/pip.conf rather than /tmp/.config/pip/pip.conf: a bind there would make the engine
     * create /tmp/.config as root, and nothing in the box could write its own ~/.config. */
    static const struct home_copy copies[] = {
        {"/tmp/.npmrc", cp_keyless_npmrc_registries},
        {"/etc/pip.conf", cp_keyless_text},
        {"/tmp/.yarnrc.yml", cp_keyless_text},
        {"/tmp/.bunfig.toml", cp_keyless_bunfig},
    };
    char *paths[] = {xasprintf("%s/.npmrc", home), pip_conf(home, xdg_config),
                     xasprintf("%s/.yarnrc.yml", home), xasprintf("%s/.bunfig.toml", home)};
    int r = 0;
    for (size_t i = 0; i < ARRAY_SIZE(copies) && r == 0; i++)
        r = add_home_copy(p, box, paths[i], &copies[i], err);
    for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
        free(paths[i]);
    return r;
}

void cp_protected_dispose(struct cp_protected *p)
{
    for (size_t i = 0; p->copies != NULL && p->copies[i] != NULL; i++)
        unlink(p->copies[i]);
    if (p->copy_dir != NULL)
        rmdir(p->copy_dir);
    cp_strv_free(p->dirs);
    cp_strv_free(p->files);
    cp_strv_free(p->gits);
    cp_strv_free(p->settings);
    cp_strv_free(p->copies);
    free(p->copy_dir);
    *p = (struct cp_protected){0};
}

/* A copy folder holds only the copies (files): each goes, then the folder. Nothing in it is
 * followed. */
static bool remove_copy_dir(int parent, const char *name)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    cleanup_dir DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return false;
    }
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            (void)unlinkat(dirfd(d), de->d_name, 0);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0;
}

int cp_protect_sweep_copies(int *removed_out, cp_error_t *err)
{
    cleanup_free char *conch = NULL;
    if (cp_conch_home(0, &conch, err) < 0)
        return cp_error_code(err);
    cleanup_free char *home = xasprintf("%s/workplaces", conch); /* looked at, never made */
    cleanup_dir DIR *d = opendir(home);
    if (d == NULL && errno == ENOENT)
        return 0;
    if (d == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read %s", home);
    int removed = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        const char *box = de->d_name + strlen(KEYLESS_PREFIX);
        if (strncmp(de->d_name, KEYLESS_PREFIX, strlen(KEYLESS_PREFIX)) != 0 ||
            cp_box_name_alive(box))
            continue;
        if (remove_copy_dir(dirfd(d), de->d_name))
            removed++;
    }
    if (removed_out != NULL)
        *removed_out = removed;
    return 0;
}
