/* git's config files read as text, as git reads them: sections, keys case-insensitive, quoted
 * values, the keys whose value runs code here (git_keys), and the files they include, followed
 * (git-hooks-int.h). */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/git-hooks/git-hooks-int.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

/* A config file past this is not read: git's own are a few kB. */
#define CONFIG_MAX (1024 * 1024)
/* git's own bound on nested includes (config.c's MAX_INCLUDE_DEPTH), and on the files one
 * reading opens (a file that includes itself twice would double them at each depth). */
#define INCLUDE_DEPTH 10
#define FILES_MAX     64
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

void cp_git_hooks_found_dispose(struct found *f)
{
    cp_strvec_dispose(&f->includes);
    cp_strvec_dispose(&f->hooks);
    cp_strvec_dispose(&f->commands);
    cp_strvec_dispose(&f->paths);
    free(f->worktree);
}

/* An include's path: "~/" from $HOME, a relative one from the including file's folder. */
char *cp_git_hooks_include_target(const char *from, const char *v)
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
        char *target = cp_git_hooks_include_target(from, v);
        free(v);
        cp_git_hooks_read_config(target, f, depth + 1);
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

char *cp_git_hooks_read_text(const char *path, size_t *len_out)
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

void cp_git_hooks_read_config(const char *path, struct found *f, int depth)
{
    size_t len = 0;
    if (path == NULL || depth > INCLUDE_DEPTH || f->files >= FILES_MAX)
        return;
    f->files++;
    /* A file git reads that lies in the folder is host-run whether it exists yet or not: a key
     * added there would run here. */
    if (!cp_strvec_has(&f->includes, path))
        cp_strvec_push(&f->includes, path);
    cleanup_free char *text = cp_git_hooks_read_text(path, &len);
    if (text != NULL)
        scan_config(path, text, len, f, depth);
}

char *cp_git_hooks_value(const char *text, size_t len)
{
    struct found f __attribute__((cleanup(cp_git_hooks_found_dispose))) = {0};
    scan_config("", text, len, &f, INCLUDE_DEPTH + 1); /* includes are not followed */
    return f.hooks.n > 0 ? xstrdup(f.hooks.v[f.hooks.n - 1]) : NULL;
}
