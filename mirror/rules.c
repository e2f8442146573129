/* The mirror's name rules, applied the same way to what goes out and to what comes back. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "mirror/rules.h"
#include "src/base/buf.h"
#include "src/base/protected.h"
#include "src/base/util.h"

/* Dependency folders: rebuilt where they are used, never carried (DESIGN.md). */
static const char *const dep_folders[] = {
    "node_modules", ".venv", "venv", "target", "__pycache__", ".gradle", ".tox", NULL,
};

const char *const *cp_rules_default_protected(void)
{
    return cp_protected_default;
}

bool cp_rules_is_dep_folder(const char *name)
{
    for (size_t i = 0; dep_folders[i] != NULL; i++)
        if (strcasecmp(name, dep_folders[i]) == 0)
            return true;
    return false;
}

/* Zero-width and direction-changing code points let ".g<U+200C>it" pass for ".git" on some
 * file systems and hide a name's real shape from a reader (Git CVE-2014-9390). */
static bool invisible_at(const unsigned char *p)
{
    if (p[0] == 0xc2 && p[1] == 0xad)
        return true; /* U+00AD */
    if (p[0] == 0xe2 && p[1] == 0x80 && p[2] != 0 &&
        ((p[2] >= 0x8b && p[2] <= 0x8f) || (p[2] >= 0xaa && p[2] <= 0xae)))
        return true; /* U+200B..U+200F, U+202A..U+202E */
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa0 && p[2] <= 0xaf)
        return true; /* U+2060..U+206F */
    if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
        return true; /* U+FEFF */
    return false;
}

static const char *component_syntax(const char *c, size_t len)
{
    if (len == 0)
        return "empty component";
    if (len > CP_NAME_MAX)
        return "component too long";
    if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
        return "'.' or '..' component";
    return NULL;
}

static const char *bytes_syntax(const unsigned char *p)
{
    for (; *p != 0; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return "control character in name";
        if (*p >= 0xc2 && invisible_at(p))
            return "invisible code point in name";
    }
    return NULL;
}

const char *cp_rules_syntax(const char *path)
{
    if (path == NULL || path[0] == '\0')
        return "empty name";
    size_t total = strlen(path);
    if (total > CP_PATH_MAX)
        return "name too long";
    if (path[0] == '/')
        return "absolute path";
    const char *why = bytes_syntax((const unsigned char *)path);
    if (why != NULL)
        return why;
    for (const char *c = path;;) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if ((why = component_syntax(c, len)) != NULL)
            return why;
        if (slash == NULL)
            return NULL;
        c = slash + 1;
    }
}

/* One component judged with what follows it: folders and files differ only for .git. The
 * protected places are judged on the whole path up to it, since some span folders
 * (".config/gh/"). */
static const char *component_place(const struct cp_rules *r, const char *path, size_t upto,
                                   const char *comp, const char *next, bool last)
{
    const char *const *pats = r && r->protected ? r->protected : cp_protected_default;
    if (cp_protected_is_n(pats, path, upto))
        return "protected place";
    if (!last && !(r && r->deps_land) && cp_rules_is_dep_folder(comp))
        return "dependency folder";
    if (strcasecmp(comp, ".git") == 0) {
        if (last)
            return ".git that is a file";
        if (strncasecmp(next, "hooks", 5) == 0 && (next[5] == '/' || next[5] == '\0'))
            return ".git/hooks";
        if (strcasecmp(next, "config") == 0)
            return ".git/config";
    }
    if (strncmp(comp, CP_STAGING_PREFIX, strlen(CP_STAGING_PREFIX)) == 0 ||
        strcmp(comp, CP_DELETIONS_NAME) == 0 || strcmp(comp, CP_SENT_NAME) == 0)
        return "name reserved by the mirror";
    return NULL;
}

const char *cp_rules_place(const struct cp_rules *r, const char *path)
{
    char comp[CP_NAME_MAX + 1];
    for (const char *c = path;;) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if (len > CP_NAME_MAX)
            return "component too long";
        memcpy(comp, c, len);
        comp[len] = '\0';
        const char *why = component_place(r, path, (size_t)(c - path) + len, comp,
                                          slash ? slash + 1 : "", slash == NULL);
        if (why != NULL || slash == NULL)
            return why;
        c = slash + 1;
    }
}

const char *cp_rules_check(const struct cp_rules *r, const char *path)
{
    const char *why = cp_rules_syntax(path);
    return why != NULL ? why : cp_rules_place(r, path);
}

/* Coming back, the far side may not write git's own files: whatever is in a .git folder can
 * run code at the next git command here (hooks, core.fsmonitor, a module's config). */
const char *cp_rules_check_back(const struct cp_rules *r, const char *path)
{
    const char *why = cp_rules_check(r, path);
    if (why != NULL)
        return why;
    for (const char *c = path;;) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if (len == 4 && strncasecmp(c, ".git", 4) == 0)
            return slash ? "under a .git folder" : ".git that is a file";
        if (slash == NULL)
            break;
        c = slash + 1;
    }
    return cp_rules_host_run(r, path) ? CP_RULES_HOST_RUN : NULL;
}

/* The hooks git runs (githooks(5)): with core.hooksPath at the folder itself, only these names
 * there are hooks. */
static bool git_hook_name(const char *name)
{
    static const char *const hooks[] = {"applypatch-msg",
                                        "pre-applypatch",
                                        "post-applypatch",
                                        "pre-commit",
                                        "pre-merge-commit",
                                        "prepare-commit-msg",
                                        "commit-msg",
                                        "post-commit",
                                        "pre-rebase",
                                        "post-checkout",
                                        "post-merge",
                                        "pre-push",
                                        "pre-receive",
                                        "update",
                                        "proc-receive",
                                        "post-receive",
                                        "post-update",
                                        "reference-transaction",
                                        "push-to-checkout",
                                        "pre-auto-gc",
                                        "post-rewrite",
                                        "sendemail-validate",
                                        "fsmonitor-watchman",
                                        "p4-changelist",
                                        "p4-prepare-changelist",
                                        "p4-post-changelist",
                                        "p4-pre-submit",
                                        "post-index-change",
                                        NULL};
    for (size_t i = 0; hooks[i] != NULL; i++)
        if (strcmp(name, hooks[i]) == 0)
            return true;
    return false;
}

/* Whether path is named (a path relative to the work folder) or lies under it; "." is a hooks
 * folder at the top, where only the hooks' names are hooks. */
static bool under_named(const char *named, const char *path)
{
    if (named == NULL || named[0] == '\0')
        return false;
    if (strcmp(named, ".") == 0)
        return strchr(path, '/') == NULL && git_hook_name(path);
    size_t n = strlen(named);
    /* Case folded like the tables: a case-insensitive file system reaches the folder so too. */
    return strncasecmp(path, named, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool cp_rules_python_start(const char *path)
{
    return cp_protected_within(cp_host_run_python, path);
}

bool cp_rules_host_run(const struct cp_rules *r, const char *path)
{
    const char *const *table = r && r->host_run ? r->host_run : cp_host_run_default;
    if (cp_protected_within(table, path) || cp_rules_python_start(path) ||
        under_named(r ? r->hooks_path : NULL, path))
        return true;
    for (size_t i = 0; r && r->named && r->named[i] != NULL; i++)
        if (under_named(r->named[i], path))
            return true;
    return false;
}

/* The names git's setup.c (is_git_directory) looks for in a folder it may take for one. */
static bool git_dir_name(const char *c, size_t len)
{
    static const char *const names[] = {"HEAD", "objects", "refs", "commondir", NULL};
    for (size_t i = 0; names[i] != NULL; i++)
        if (len == strlen(names[i]) && strncasecmp(c, names[i], len) == 0)
            return true;
    return false;
}

static bool folder_is_repo_shaped(const char *path, size_t folder_len, cp_rules_present_fn present,
                                  void *ctx)
{
    static const char *const others[] = {"objects", "refs", "commondir", NULL};
    const char *sep = folder_len > 0 ? "/" : "";
    cleanup_free char *head = xasprintf("%.*s%sHEAD", (int)folder_len, path, sep);
    if (!present(ctx, head))
        return false;
    for (size_t i = 0; others[i] != NULL; i++) {
        cleanup_free char *p = xasprintf("%.*s%s%s", (int)folder_len, path, sep, others[i]);
        if (present(ctx, p))
            return true;
    }
    return false;
}

const char *cp_rules_repo_shape(const char *path, cp_rules_present_fn present, void *ctx)
{
    for (const char *c = path;;) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        size_t folder_len = c > path ? (size_t)(c - path) - 1 : 0;
        if (git_dir_name(c, len) && folder_is_repo_shaped(path, folder_len, present, ctx))
            return "it would make a folder git takes for a repository";
        if (slash == NULL)
            return NULL;
        c = slash + 1;
    }
}

char *cp_escape(const char *s)
{
    struct cp_buf b;
    cp_buf_init(&b, 4 * CP_PATH_MAX + 64);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p != 0; p++) {
        char hex[5];
        if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
            if (cp_buf_append(&b, p, 1) < 0)
                break;
            continue;
        }
        snprintf(hex, sizeof(hex), "\\x%02x", *p);
        if (cp_buf_append(&b, hex, 4) < 0)
            break;
    }
    return cp_buf_steal(&b);
}
