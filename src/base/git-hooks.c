/* core.hooksPath, read from git's config files as text. */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/git-hooks.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* A config file past this is not read: git's own are a few kB. */
#define CONFIG_MAX (1024 * 1024)

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* "[core]" or "[core \"sub\"]": whether the section is exactly core (a subsection is another). */
static int section_is_core(const char *p, const char *end)
{
    p = skip_space(p + 1, end);
    const char *name = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '-' || *p == '.'))
        p++;
    p = skip_space(p, end);
    return p < end && *p == ']' && (size_t)(p - name) == 4 && strncasecmp(name, "core", 4) == 0;
}

/* The value after '=' up to a comment or the line's end, quotes removed and '\' escapes kept
 * literal but for \" and \\. */
static char *line_value(const char *p, const char *end)
{
    char *out = xmalloc((size_t)(end - p) + 1);
    size_t n = 0;
    int quoted = 0;
    p = skip_space(p, end);
    for (; p < end; p++) {
        if (*p == '"') {
            quoted = !quoted;
        } else if (*p == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\')) {
            out[n++] = *++p;
        } else if (!quoted && (*p == '#' || *p == ';')) {
            break;
        } else {
            out[n++] = *p;
        }
    }
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\r'))
        n--;
    out[n] = '\0';
    return out;
}

char *cp_git_hooks_value(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    char *found = NULL;
    int in_core = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;
        const char *q = skip_space(p, le);
        if (q < le && *q == '[') {
            in_core = section_is_core(q, le);
        } else if (in_core && (size_t)(le - q) > 9 && strncasecmp(q, "hookspath", 9) == 0) {
            const char *r = skip_space(q + 9, le);
            if (r < le && *r == '=') {
                free(found);
                found = line_value(r + 1, le);
            }
        }
        p = eol ? eol + 1 : end;
    }
    return found;
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

/* A later file's value replaces an earlier one's, as in git. */
static void take_from(const char *path, char **value)
{
    size_t len = 0;
    cleanup_free char *text = path ? read_text(path, &len) : NULL;
    char *v = text ? cp_git_hooks_value(text, len) : NULL;
    if (v != NULL) {
        free(*value);
        *value = v;
    }
}

/* The repository's top (the folder holding .git) at or above workdir, and its config file. */
static char *find_repo(const char *workdir, char **config_out)
{
    cleanup_free char *dir = xstrdup(workdir);
    for (;;) {
        cleanup_free char *dotgit = xasprintf("%s/.git", dir);
        struct stat st;
        if (lstat(dotgit, &st) == 0 && S_ISDIR(st.st_mode)) {
            *config_out = xasprintf("%s/config", dotgit);
            return steal_pointer(&dir);
        }
        if (lstat(dotgit, &st) == 0) { /* a worktree's .git file: its commondir is not read */
            *config_out = NULL;
            return steal_pointer(&dir);
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return NULL;
        *slash = '\0';
    }
}

static char *inside(const char *abs, const char *workdir)
{
    /* The hooks folder may not exist yet (the command may be about to make it). */
    cleanup_free char *real = realpath(abs, NULL);
    cleanup_free char *dots = real ? NULL : cp_path_dots_resolved(abs + 1);
    if (real == NULL && dots == NULL)
        return NULL;
    cleanup_free char *p = real ? xstrdup(real) : xasprintf("/%s", dots);
    size_t n = strlen(workdir);
    if (strncmp(p, workdir, n) != 0 || (p[n] != '\0' && p[n] != '/'))
        return NULL;
    return xstrdup(p[n] == '\0' ? "." : p + n + 1);
}

char *cp_git_hooks_path(const char *workdir)
{
    char *value = NULL;
    const char *home = getenv("HOME");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    take_from("/etc/gitconfig", &value);
    cleanup_free char *xdg_file = xdg && *xdg ? xasprintf("%s/git/config", xdg)
                                  : home      ? xasprintf("%s/.config/git/config", home)
                                              : NULL;
    take_from(xdg_file, &value);
    cleanup_free char *global = home ? xasprintf("%s/.gitconfig", home) : NULL;
    take_from(global, &value);
    cleanup_free char *config = NULL;
    cleanup_free char *top = find_repo(workdir, &config);
    take_from(config, &value);
    cleanup_free char *v = value;
    if (v == NULL || v[0] == '\0')
        return NULL;
    cleanup_free char *abs = v[0] == '/'                          ? xstrdup(v)
                             : v[0] == '~' && v[1] == '/' && home ? xasprintf("%s%s", home, v + 1)
                             : top                                ? xasprintf("%s/%s", top, v)
                                                                  : xasprintf("%s/%s", workdir, v);
    return inside(abs, workdir);
}
