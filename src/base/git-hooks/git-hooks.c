/* What the folder's host-run settings name, read as their tools read them, from the files as
 * text: git's config (its includes, core.hooksPath, the commands it runs: core.fsmonitor,
 * core.pager, diff drivers, filters, aliases, ...) and yarnPath. */
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

#include "src/base/git-hooks/git-hooks.h"
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
/* The longest section name looked at ("includeif", "sendemail", "mergetool"). */
#define SECTION_MAX 16

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* The section of a "[name]", "[name \"sub\"]" or "[name.sub]" header, lower-cased, or "" for
 * one too long to be any git reads here; *sub_out: whether it has a subsection (a subsection of
 * core is another section). *after_out: where the line goes on past the ']' (a key may follow). */
static void section_of(const char *p, const char *end, char out[SECTION_MAX], bool *sub_out,
                       const char **after_out)
{
    out[0] = '\0';
    *sub_out = false;
    const char *close = memchr(p, ']', (size_t)(end - p));
    *after_out = close ? close + 1 : end;
    p = skip_space(p + 1, end);
    const char *name = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '-'))
        p++;
    size_t n = (size_t)(p - name);
    if (n >= SECTION_MAX || close == NULL)
        return;
    *sub_out = p < end && (*p == '.' || *p == ' ' || *p == '\t' || *p == '"');
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)name[i]);
    out[n] = '\0';
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
    struct cp_strvec includes; /* absolute paths of the config files read or included */
    struct cp_strvec hooks;    /* core.hooksPath values, as written */
    struct cp_strvec commands; /* command lines git runs (core.fsmonitor, core.pager, ...) */
    struct cp_strvec paths;    /* programs or folders named as a path (mergetool.*.path, ...) */
    char *worktree;            /* the last core.worktree */
    size_t files;              /* read so far */
};

static void found_dispose(struct found *f)
{
    cp_strvec_dispose(&f->includes);
    cp_strvec_dispose(&f->hooks);
    cp_strvec_dispose(&f->commands);
    cp_strvec_dispose(&f->paths);
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

/* The keys whose value git runs as a command here, or reads as a program's or a folder's path
 * (git-config(1)); sub: whether the section has a subsection (0 none, 1 one, 2 either); key NULL:
 * any key of the section. */
enum key_kind {
    KEY_HOOKS,    /* core.hooksPath */
    KEY_WORKTREE, /* core.worktree (a submodule's top) */
    KEY_INCLUDE,  /* include.path, includeIf.*.path */
    KEY_COMMAND,  /* a shell command line (a boolean: none) */
    KEY_BANG,     /* a command only after a '!' (alias.*, submodule.*.update) */
    KEY_PATH,     /* a program or folder named by its path */
};

static const struct git_key {
    const char *section;
    int sub;
    const char *key;
    enum key_kind kind;
} git_keys[] = {
    {"core", 0, "hookspath", KEY_HOOKS},
    {"core", 0, "worktree", KEY_WORKTREE},
    {"include", 0, "path", KEY_INCLUDE},
    {"includeif", 1, "path", KEY_INCLUDE},
    {"core", 0, "fsmonitor", KEY_COMMAND}, /* every git status, a prompt's too */
    {"core", 0, "sshcommand", KEY_COMMAND},
    {"core", 0, "pager", KEY_COMMAND},
    {"core", 0, "editor", KEY_COMMAND},
    {"core", 0, "askpass", KEY_COMMAND},
    {"core", 0, "gitproxy", KEY_COMMAND},
    {"core", 0, "alternaterefscommand", KEY_COMMAND},
    {"pager", 0, NULL, KEY_COMMAND}, /* pager.<command> */
    {"sequence", 0, "editor", KEY_COMMAND},
    {"diff", 0, "external", KEY_COMMAND},
    {"diff", 1, "textconv", KEY_COMMAND},
    {"diff", 1, "command", KEY_COMMAND},
    {"merge", 1, "driver", KEY_COMMAND},
    {"filter", 1, "clean", KEY_COMMAND},
    {"filter", 1, "smudge", KEY_COMMAND},
    {"filter", 1, "process", KEY_COMMAND},
    {"credential", 2, "helper", KEY_COMMAND},
    {"gpg", 2, "program", KEY_COMMAND}, /* gpg.program, gpg.<format>.program */
    {"gpg", 1, "defaultkeycommand", KEY_COMMAND},
    {"interactive", 0, "difffilter", KEY_COMMAND},
    {"difftool", 1, "cmd", KEY_COMMAND},
    {"mergetool", 1, "cmd", KEY_COMMAND},
    {"difftool", 1, "path", KEY_PATH},
    {"mergetool", 1, "path", KEY_PATH},
    {"remote", 1, "uploadpack", KEY_COMMAND}, /* run here for a remote that is a path */
    {"remote", 1, "receivepack", KEY_COMMAND},
    {"tar", 1, "command", KEY_COMMAND},
    {"trailer", 1, "command", KEY_COMMAND},
    {"trailer", 1, "cmd", KEY_COMMAND},
    {"sendemail", 2, "smtpserver", KEY_COMMAND}, /* a path is a sendmail program */
    {"sendemail", 2, "tocmd", KEY_COMMAND},
    {"sendemail", 2, "cccmd", KEY_COMMAND},
    {"sendemail", 2, "headercmd", KEY_COMMAND},
    {"imap", 0, "tunnel", KEY_COMMAND},
    {"uploadpack", 0, "packobjectshook", KEY_COMMAND},
    {"guitool", 1, "cmd", KEY_COMMAND},
    {"browser", 1, "cmd", KEY_COMMAND},
    {"browser", 1, "path", KEY_PATH},
    {"man", 1, "cmd", KEY_COMMAND},
    {"man", 1, "path", KEY_PATH},
    {"init", 0, "templatedir", KEY_PATH}, /* its hooks/ are copied into each new repository */
    {"alias", 0, NULL, KEY_BANG},
    {"submodule", 1, "update", KEY_BANG},
};

static void take_key(const char *from, const char *section, bool sub, const char *key, size_t klen,
                     char *v, struct found *f, int depth)
{
    const struct git_key *k = NULL;
    for (size_t i = 0; k == NULL && i < sizeof(git_keys) / sizeof(git_keys[0]); i++)
        if (strcmp(section, git_keys[i].section) == 0 &&
            (git_keys[i].sub == 2 || git_keys[i].sub == (int)sub) &&
            (git_keys[i].key == NULL ||
             (klen == strlen(git_keys[i].key) && strncasecmp(key, git_keys[i].key, klen) == 0)))
            k = &git_keys[i];
    if (k == NULL || (k->kind == KEY_BANG && v[0] != '!')) {
        free(v);
    } else if (k->kind == KEY_HOOKS) {
        cp_strvec_push_owned(&f->hooks, v);
    } else if (k->kind == KEY_COMMAND) {
        cp_strvec_push_owned(&f->commands, v);
    } else if (k->kind == KEY_BANG) {
        cp_strvec_push(&f->commands, v + 1);
        free(v);
    } else if (k->kind == KEY_PATH) {
        cp_strvec_push_owned(&f->paths, v);
    } else if (k->kind == KEY_WORKTREE) {
        free(f->worktree);
        f->worktree = v;
    } else if (v[0] != '\0') {
        /* An includeIf's condition is not weighed: whatever it may include counts. */
        char *target = include_target(from, v);
        free(v);
        read_config(target, f, depth + 1);
        free(target);
    } else {
        free(v);
    }
}

/* git's config syntax: sections, keys case-insensitive, '=' and a value or a bare key. */
static void scan_config(const char *from, const char *text, size_t len, struct found *f, int depth)
{
    const char *p = text, *end = text + len;
    char section[SECTION_MAX] = "";
    bool sub = false;
    while (p < end) {
        const char *q = skip_space(p, end);
        if (q < end && *q == '[') {
            const char *eol = memchr(q, '\n', (size_t)(end - q));
            section_of(q, eol ? eol : end, section, &sub, &q);
            q = skip_space(q, end);
        }
        const char *key = q;
        while (q < end && (isalnum((unsigned char)*q) || *q == '-'))
            q++;
        size_t klen = (size_t)(q - key);
        q = skip_space(q, end);
        if (klen > 0 && section[0] != '\0' && q < end && *q == '=') {
            char *v = value_at(q + 1, end, &p);
            take_key(from, section, sub, key, klen, v, f, depth);
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
    /* A file git reads that lies in the folder is host-run whether it exists yet or not: a key
     * added there would run here. */
    if (!cp_strvec_has(&f->includes, path))
        cp_strvec_push(&f->includes, path);
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

/* A command line git runs (core.fsmonitor, core.pager, an alias's '!', ...): a boolean is none
 * (git's own daemon, the default pager). Each word that could be a program or a script it runs
 * counts, from the repository's top, where git runs them; a program's word (the first, or one
 * after ; | & or a parenthesis) only with a '/', as without one the shell finds it in PATH. */
static void add_command(struct cp_strvec *out, const char *top, const char *v, const char *workdir)
{
    bool program = true;
    for (const char *p = v; *p != '\0';) {
        p += strspn(p, " \t'\"!");
        size_t n = strcspn(p, " \t'\";|&<>()");
        bool in_path = program && memchr(p, '/', n) == NULL;
        if (n > 0 && p[0] != '-' && !in_path && !bool_word(p, n)) {
            cleanup_free char *w = xasprintf("%.*s", (int)n, p);
            cleanup_free char *abs = from_top(top, w);
            if (abs != NULL)
                add_inside(out, abs, workdir, false);
        }
        p += n;
        size_t seps = strspn(p, ";|&<>()");
        if (n > 0)
            program = false;
        for (size_t i = 0; i < seps; i++)
            program = program || (p[i] != '<' && p[i] != '>');
        p += seps;
    }
}

/* What one repository's config (and the person's, before it) names, relative to its top: the
 * files read, the hooks folder, each command's programs and scripts, and what is named by path
 * (without a '/', a program in PATH). */
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
        for (size_t i = 0; i < both[k]->commands.n; i++)
            add_command(out, top, both[k]->commands.v[i], workdir);
        for (size_t i = 0; i < both[k]->paths.n; i++) {
            const char *v = both[k]->paths.v[i];
            cleanup_free char *abs = strchr(v, '/') != NULL ? from_top(top, v) : NULL;
            if (abs != NULL)
                add_inside(out, abs, workdir, false);
        }
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

/* An .npmrc's (ini) last `pnpmfile=` or `global-pnpmfile=` value, quotes taken off. */
static char *npmrc_pnpmfile(const char *text)
{
    char *found = NULL;
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        const char *q = p + strspn(p, " \t");
        size_t k = strncmp(q, "pnpmfile", 8) == 0           ? 8
                   : strncmp(q, "global-pnpmfile", 15) == 0 ? 15
                                                            : 0;
        const char *eq = k > 0 ? q + k + strspn(q + k, " \t") : NULL;
        if (eq != NULL && *eq == '=') {
            eq += 1 + strspn(eq + 1, " \t\"'");
            size_t vn = strcspn(eq, "\"'\r\n");
            while (vn > 0 && (eq[vn - 1] == ' ' || eq[vn - 1] == '\t'))
                vn--;
            free(found);
            found = vn > 0 ? xasprintf("%.*s", (int)vn, eq) : NULL;
        }
        p += n + (p[n] == '\n');
    }
    return found;
}

/* Yarn reads the rc files of the folder it runs in and of every folder above it, and pnpm the
 * .npmrc files; the path each names (yarnPath, yarn-path, pnpmfile) runs at the next yarn
 * command or pnpm install (--ignore-scripts too), relative to that file's folder. */
static void add_yarn(struct cp_strvec *out, const char *workdir)
{
    cleanup_free char *dir = xstrdup(workdir);
    for (;;) {
        static const char *const rcs[] = {".yarnrc.yml", ".yarnrc", ".npmrc", NULL};
        for (size_t i = 0; rcs[i] != NULL; i++) {
            size_t len = 0;
            cleanup_free char *rc = xasprintf("%s/%s", dir, rcs[i]);
            cleanup_free char *text = read_text(rc, &len);
            cleanup_free char *v = text == NULL ? NULL
                                   : i == 0     ? cp_yarnrc_yarn_path(text, len)
                                   : i == 1     ? yarnrc_yarn_path(text)
                                                : npmrc_pnpmfile(text);
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
