/* What the folder's host-run settings name, read as their tools read them, from the files as
 * text: git's config (its includes, core.hooksPath, core.fsmonitor) and yarnPath. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "src/base/git-hooks.h"
#include "src/base/paths.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

/* A config file past this is not read: git's own are a few kB. */
#define CONFIG_MAX (1024 * 1024)
/* git's own bound on nested includes (config.c's MAX_INCLUDE_DEPTH), and on the files one
 * reading opens (a file that includes itself twice would double them at each depth). */
#define INCLUDE_DEPTH 10
#define FILES_MAX     64
/* Submodules looked at, and how deep their names' folders nest under .git/modules. */
#define MODULES_MAX   256
#define MODULES_DEPTH 8

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* The section of a "[name]", "[name \"sub\"]" or "[name.sub]" header, lower-cased: "core",
 * "include", "includeif" (whatever its condition), or "" for any other (a subsection of core
 * is another section). *after_out: where the line goes on past the ']' (a key may follow). */
static void section_of(const char *p, const char *end, char out[16], const char **after_out)
{
    out[0] = '\0';
    const char *close = memchr(p, ']', (size_t)(end - p));
    *after_out = close ? close + 1 : end;
    p = skip_space(p + 1, end);
    const char *name = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '-'))
        p++;
    size_t n = (size_t)(p - name);
    bool sub = p < end && (*p == '.' || *p == ' ' || *p == '\t' || *p == '"');
    if (n >= 16 || close == NULL)
        return;
    char low[16];
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = '\0';
    if ((strcmp(low, "core") == 0 || strcmp(low, "include") == 0) && !sub)
        memcpy(out, low, n + 1);
    else if (strcmp(low, "includeif") == 0 && sub)
        memcpy(out, low, n + 1);
}

/* The value after '=' to a comment or the line's end, quotes removed, \" \\ \t \n read as git
 * reads them, and a '\' at a line's end joining the next line. *next_out: the line after. */
static char *value_at(const char *p, const char *end, const char **next_out)
{
    char *out = xmalloc((size_t)(end - p) + 1);
    size_t n = 0, kept = 0;
    bool quoted = false;
    for (p = skip_space(p, end); p < end; p++) {
        if (*p == '\n')
            break;
        if (*p == '"') {
            quoted = !quoted;
        } else if (*p == '\\' && p + 1 < end) {
            char c = *++p;
            if (c == '\r' && p + 1 < end && p[1] == '\n')
                c = *++p;
            if (c == '\n')
                continue; /* the value goes on on the next line */
            out[n++] = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'b' ? '\b' : c;
            kept = n;
        } else if (!quoted && (*p == '#' || *p == ';')) {
            p = memchr(p, '\n', (size_t)(end - p));
            p = p ? p : end;
            break;
        } else {
            out[n++] = *p;
            if (quoted || (*p != ' ' && *p != '\t' && *p != '\r'))
                kept = n;
        }
    }
    out[kept] = '\0';
    *next_out = p < end ? p + 1 : end;
    return out;
}

/* What one config file (and what it includes) says that runs code here. */
struct found {
    struct cp_strvec includes; /* absolute paths of the files included */
    struct cp_strvec hooks;    /* core.hooksPath values, as written */
    struct cp_strvec fsmonitor;
    char *worktree; /* the last core.worktree */
    size_t files;   /* read so far */
};

static void found_dispose(struct found *f)
{
    cp_strvec_dispose(&f->includes);
    cp_strvec_dispose(&f->hooks);
    cp_strvec_dispose(&f->fsmonitor);
    free(f->worktree);
}

static void read_config(const char *path, struct found *f, int depth);

/* An include's path: "~/" from $HOME, a relative one from the including file's folder. */
static char *include_target(const char *from, const char *v)
{
    const char *home = getenv("HOME");
    if (v[0] == '/')
        return xstrdup(v);
    if (v[0] == '~' && v[1] == '/')
        return home ? xasprintf("%s%s", home, v + 1) : NULL;
    const char *slash = strrchr(from, '/');
    return slash ? xasprintf("%.*s/%s", (int)(slash - from), from, v) : xstrdup(v);
}

static void take_key(const char *from, const char *section, const char *key, size_t klen, char *v,
                     struct found *f, int depth)
{
#define KEY_IS(k) (klen == strlen(k) && strncasecmp(key, k, klen) == 0)
    if (strcmp(section, "core") == 0 && KEY_IS("hookspath")) {
        cp_strvec_push_owned(&f->hooks, v);
    } else if (strcmp(section, "core") == 0 && KEY_IS("fsmonitor")) {
        cp_strvec_push_owned(&f->fsmonitor, v);
    } else if (strcmp(section, "core") == 0 && KEY_IS("worktree")) {
        free(f->worktree);
        f->worktree = v;
    } else if (section[0] == 'i' && KEY_IS("path") && v[0] != '\0') {
        /* An includeIf's condition is not weighed: whatever it may include counts. */
        char *target = include_target(from, v);
        free(v);
        if (target != NULL) {
            cp_strvec_push(&f->includes, target);
            read_config(target, f, depth + 1);
            free(target);
        }
    } else {
        free(v);
    }
#undef KEY_IS
}

/* git's config syntax: sections, keys case-insensitive, '=' and a value or a bare key. */
static void scan_config(const char *from, const char *text, size_t len, struct found *f, int depth)
{
    const char *p = text, *end = text + len;
    char section[16] = "";
    while (p < end) {
        const char *q = skip_space(p, end);
        if (q < end && *q == '[') {
            const char *eol = memchr(q, '\n', (size_t)(end - q));
            section_of(q, eol ? eol : end, section, &q);
            q = skip_space(q, end);
        }
        const char *key = q;
        while (q < end && (isalnum((unsigned char)*q) || *q == '-'))
            q++;
        size_t klen = (size_t)(q - key);
        q = skip_space(q, end);
        if (klen > 0 && section[0] != '\0' && q < end && *q == '=') {
            char *v = value_at(q + 1, end, &p);
            take_key(from, section, key, klen, v, f, depth);
            continue;
        }
        const char *eol = memchr(q, '\n', (size_t)(end - q));
        p = eol ? eol + 1 : end;
    }
}

static char *read_text(const char *path, size_t *len_out)
{
    cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX)
        return NULL;
    char *text = xmalloc((size_t)st.st_size + 1);
    ssize_t n = read(fd, text, (size_t)st.st_size);
    if (n < 0) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len_out = (size_t)n;
    return text;
}

static void read_config(const char *path, struct found *f, int depth)
{
    size_t len = 0;
    if (path == NULL || depth > INCLUDE_DEPTH || f->files >= FILES_MAX)
        return;
    f->files++;
    cleanup_free char *text = read_text(path, &len);
    if (text != NULL)
        scan_config(path, text, len, f, depth);
}

char *cp_git_hooks_value(const char *text, size_t len)
{
    struct found f __attribute__((cleanup(found_dispose))) = {0};
    scan_config("", text, len, &f, INCLUDE_DEPTH + 1); /* includes are not followed */
    return f.hooks.n > 0 ? xstrdup(f.hooks.v[f.hooks.n - 1]) : NULL;
}

/* ---- where a path lands in the work folder ---- */

/* abs relative to workdir when it lies inside it ("." for the folder itself), else NULL. Both
 * the real path (links followed, as the tool will) and the text's own are tried; *text_out gets
 * the second where it differs and lies inside too. */
static char *inside_one(const char *p, const char *workdir)
{
    size_t n = strlen(workdir);
    if (strncmp(p, workdir, n) != 0 || (p[n] != '\0' && p[n] != '/'))
        return NULL;
    return xstrdup(p[n] == '\0' ? "." : p + n + 1);
}

static void add_inside(struct cp_strvec *out, const char *abs, const char *workdir, bool folder_ok)
{
    /* The file may not exist yet (the command may be about to make it): its folder's real
     * path then, and the name. */
    cleanup_free char *real = realpath(abs, NULL);
    if (real == NULL) {
        cleanup_free char *dir = xstrdup(abs);
        char *slash = strrchr(dir, '/');
        cleanup_free char *rdir = NULL;
        if (slash != NULL && slash != dir) {
            *slash = '\0';
            rdir = realpath(dir, NULL);
        }
        real = rdir && slash ? xasprintf("%s/%s", rdir, slash + 1) : NULL;
    }
    cleanup_free char *dots = abs[0] == '/' ? cp_path_dots_resolved(abs + 1) : NULL;
    cleanup_free char *text = dots ? xasprintf("/%s", dots) : NULL;
    const char *each[] = {real, text};
    for (size_t i = 0; i < 2; i++) {
        cleanup_free char *rel = each[i] ? inside_one(each[i], workdir) : NULL;
        if (rel != NULL && (folder_ok || strcmp(rel, ".") != 0) && !cp_strvec_has(out, rel))
            cp_strvec_push(out, rel);
    }
}

/* A value git reads as a path, "~/" from $HOME, a relative one from the repository's top. */
static char *from_top(const char *top, const char *v)
{
    const char *home = getenv("HOME");
    if (v[0] == '/')
        return xstrdup(v);
    if (v[0] == '~' && v[1] == '/')
        return home ? xasprintf("%s%s", home, v + 1) : NULL;
    return xasprintf("%s/%s", top, v);
}

static bool bool_word(const char *w, size_t n)
{
    static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "1", "0", NULL};
    for (size_t i = 0; words[i] != NULL; i++)
        if (n == strlen(words[i]) && strncasecmp(w, words[i], n) == 0)
            return true;
    return n == 0;
}

/* core.fsmonitor: a boolean (git's own daemon), else a command run at every status. Each of
 * its words that could be a program or a script it runs counts (the first only with a '/'). */
static void add_fsmonitor(struct cp_strvec *out, const char *top, const char *v,
                          const char *workdir)
{
    bool first = true;
    for (const char *p = v; *p != '\0'; first = false) {
        p += strspn(p, " \t'\"");
        size_t n = strcspn(p, " \t'\";|&<>()");
        /* A first word without '/' is a program the shell finds in PATH, not here. */
        bool in_path = first && memchr(p, '/', n) == NULL;
        if (n > 0 && p[0] != '-' && !in_path && !bool_word(p, n)) {
            cleanup_free char *w = xasprintf("%.*s", (int)n, p);
            cleanup_free char *abs = from_top(top, w);
            if (abs != NULL)
                add_inside(out, abs, workdir, false);
        }
        p += n;
        p += strspn(p, ";|&<>()");
    }
}

/* What one repository's config (and the person's, before it) names, relative to its top. */
static void add_repo(struct cp_strvec *out, const struct found *global, const struct found *f,
                     const char *top, const char *workdir)
{
    const struct found *both[] = {global, f};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < both[k]->includes.n; i++)
            add_inside(out, both[k]->includes.v[i], workdir, false);
        for (size_t i = 0; i < both[k]->hooks.n; i++) {
            cleanup_free char *abs =
                both[k]->hooks.v[i][0] ? from_top(top, both[k]->hooks.v[i]) : NULL;
            if (abs != NULL)
                add_inside(out, abs, workdir, true);
        }
        for (size_t i = 0; i < both[k]->fsmonitor.n; i++)
            add_fsmonitor(out, top, both[k]->fsmonitor.v[i], workdir);
    }
}

/* ---- the repositories git in the work folder reads ---- */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A .git file's "gitdir: X" (X from the file's folder), or NULL. */
static char *gitdir_of_file(const char *dotgit, const char *dir)
{
    size_t len = 0;
    cleanup_free char *text = read_text(dotgit, &len);
    if (text == NULL || strncmp(text, "gitdir:", 7) != 0)
        return NULL;
    char *v = text + 7;
    v += strspn(v, " \t");
    v[strcspn(v, "\r\n")] = '\0';
    return v[0] == '\0' ? NULL : v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", dir, v);
}

/* A git folder's config files: its own config, or its commondir's (a linked worktree's), and
 * the worktree's config.worktree. */
static void read_gitdir(const char *gitdir, struct found *f, char **common_out)
{
    size_t len = 0;
    cleanup_free char *cpath = xasprintf("%s/commondir", gitdir);
    cleanup_free char *cd = read_text(cpath, &len);
    if (cd != NULL)
        cd[strcspn(cd, "\r\n")] = '\0';
    char *common = cd && cd[0] ? (cd[0] == '/' ? xstrdup(cd) : xasprintf("%s/%s", gitdir, cd))
                               : xstrdup(gitdir);
    cleanup_free char *config = xasprintf("%s/config", common);
    cleanup_free char *wt = xasprintf("%s/config.worktree", gitdir);
    read_config(config, f, 0);
    read_config(wt, f, 0);
    *common_out = common;
}

/* The repository's top (the folder holding .git) at or above workdir, and its git folder. */
static char *find_repo(const char *workdir, char **gitdir_out)
{
    cleanup_free char *dir = xstrdup(workdir);
    for (;;) {
        cleanup_free char *dotgit = xasprintf("%s/.git", dir);
        struct stat st;
        if (lstat(dotgit, &st) == 0) {
            *gitdir_out =
                S_ISDIR(st.st_mode) ? steal_pointer(&dotgit) : gitdir_of_file(dotgit, dir);
            return *gitdir_out ? steal_pointer(&dir) : NULL;
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return NULL;
        *slash = '\0';
    }
}

struct modules {
    struct cp_strvec *out;
    const struct found *global;
    const char *workdir;
    size_t seen;
};

/* Each submodule's git folder under modules/ (a name may hold '/'): its config, read from its
 * core.worktree's top, then its own submodules. */
static void walk_modules(struct modules *m, const char *dir, int depth)
{
    if (depth > MODULES_DEPTH || m->seen >= MODULES_MAX)
        return;
    __attribute__((cleanup(cp_cleanup_closedirp))) DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && m->seen < MODULES_MAX;) {
        if (e->d_name[0] == '.')
            continue;
        cleanup_free char *sub = xasprintf("%s/%s", dir, e->d_name);
        cleanup_free char *head = xasprintf("%s/HEAD", sub);
        if (!is_dir(sub))
            continue;
        if (!is_file(head)) {
            walk_modules(m, sub, depth + 1);
            continue;
        }
        m->seen++;
        struct found f __attribute__((cleanup(found_dispose))) = {0};
        cleanup_free char *common = NULL;
        read_gitdir(sub, &f, &common);
        cleanup_free char *top = f.worktree ? include_target(head, f.worktree) : NULL;
        if (top != NULL)
            add_repo(m->out, m->global, &f, top, m->workdir);
        cleanup_free char *nested = xasprintf("%s/modules", sub);
        walk_modules(m, nested, depth + 1);
    }
}

static void read_person(struct found *global)
{
    const char *home = getenv("HOME");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    read_config("/etc/gitconfig", global, 0);
    cleanup_free char *xdg_file = xdg && *xdg ? xasprintf("%s/git/config", xdg)
                                  : home      ? xasprintf("%s/.config/git/config", home)
                                              : NULL;
    read_config(xdg_file, global, 0);
    cleanup_free char *person = home ? xasprintf("%s/.gitconfig", home) : NULL;
    read_config(person, global, 0);
}

/* The person's settings into global, and the repository workdir lies in (its top, the
 * caller's, or NULL) with its own into f; *gitdir its git folder and *common a linked
 * worktree's common one, the caller's. */
static char *read_all(const char *workdir, struct found *global, struct found *f, char **gitdir,
                      char **common)
{
    read_person(global);
    char *top = find_repo(workdir, gitdir);
    if (top != NULL)
        read_gitdir(*gitdir, f, common);
    return top;
}

static void add_git(struct cp_strvec *out, const char *workdir)
{
    struct found global __attribute__((cleanup(found_dispose))) = {0};
    struct found f __attribute__((cleanup(found_dispose))) = {0};
    cleanup_free char *gitdir = NULL, *common = NULL;
    cleanup_free char *top = read_all(workdir, &global, &f, &gitdir, &common);
    add_repo(out, &global, &f, top ? top : workdir, workdir);
    if (common == NULL)
        return;
    /* A linked worktree's submodules have their git folders under its own git folder. */
    struct modules m = {.out = out, .global = &global, .workdir = workdir};
    cleanup_free char *modules = xasprintf("%s/modules", common);
    walk_modules(&m, modules, 0);
    cleanup_free char *own = strcmp(common, gitdir) != 0 ? xasprintf("%s/modules", gitdir) : NULL;
    if (own != NULL)
        walk_modules(&m, own, 0);
}

/* ---- yarnPath ---- */

char *cp_yarnrc_yarn_path(const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_document_t doc = {0};
    char *found = NULL;
    if (!yaml_parser_initialize(&parser))
        return NULL;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (yaml_parser_load(&parser, &doc)) {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        for (yaml_node_pair_t *p =
                 root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
             p != NULL && p < root->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(&doc, p->key);
            yaml_node_t *v = yaml_document_get_node(&doc, p->value);
            if (k && v && k->type == YAML_SCALAR_NODE && v->type == YAML_SCALAR_NODE &&
                strcmp((const char *)k->data.scalar.value, "yarnPath") == 0) {
                free(found);
                found = xstrdup((const char *)v->data.scalar.value);
            }
        }
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    return found;
}

/* Yarn 1's .yarnrc: a line `yarn-path "x"` or `yarn-path x`. */
static char *yarnrc_yarn_path(const char *text)
{
    char *found = NULL;
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        const char *q = p + strspn(p, " \t");
        if (strncmp(q, "yarn-path", 9) == 0 && (q[9] == ' ' || q[9] == '\t')) {
            q += 9 + strspn(q + 9, " \t\"");
            size_t vn = strcspn(q, "\"\r\n");
            free(found);
            found = vn > 0 ? xasprintf("%.*s", (int)vn, q) : NULL;
        }
        p += n + (p[n] == '\n');
    }
    return found;
}

/* Yarn reads the rc files of the folder it runs in and of every folder above it; the path
 * each names runs at the next yarn command, relative to that file's folder. */
static void add_yarn(struct cp_strvec *out, const char *workdir)
{
    cleanup_free char *dir = xstrdup(workdir);
    for (;;) {
        static const char *const rcs[] = {".yarnrc.yml", ".yarnrc", NULL};
        for (size_t i = 0; rcs[i] != NULL; i++) {
            size_t len = 0;
            cleanup_free char *rc = xasprintf("%s/%s", dir, rcs[i]);
            cleanup_free char *text = read_text(rc, &len);
            cleanup_free char *v = text == NULL ? NULL
                                   : i == 0     ? cp_yarnrc_yarn_path(text, len)
                                                : yarnrc_yarn_path(text);
            cleanup_free char *abs = v == NULL || v[0] == '\0' ? NULL
                                     : v[0] == '/'             ? xstrdup(v)
                                                               : xasprintf("%s/%s", dir, v);
            if (abs != NULL)
                add_inside(out, abs, workdir, false);
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return;
        *slash = '\0';
    }
}

char **cp_host_run_named(const char *workdir)
{
    struct cp_strvec out = {0};
    add_git(&out, workdir);
    add_yarn(&out, workdir);
    return cp_strvec_steal(&out);
}

char *cp_git_hooks_path(const char *workdir)
{
    struct found global __attribute__((cleanup(found_dispose))) = {0};
    struct found f __attribute__((cleanup(found_dispose))) = {0};
    cleanup_free char *gitdir = NULL, *common = NULL;
    cleanup_free char *top = read_all(workdir, &global, &f, &gitdir, &common);
    const struct found *last = f.hooks.n > 0 ? &f : &global;
    const char *v = last->hooks.n > 0 ? last->hooks.v[last->hooks.n - 1] : NULL;
    if (v == NULL || v[0] == '\0')
        return NULL;
    struct cp_strvec one __attribute__((cleanup(cp_strvec_dispose))) = {0};
    cleanup_free char *abs = from_top(top ? top : workdir, v);
    if (abs != NULL)
        add_inside(&one, abs, workdir, true);
    return one.n > 0 ? xstrdup(one.v[0]) : NULL;
}
