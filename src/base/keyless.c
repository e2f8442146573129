/* Credential lines out of npm's, Yarn's and pip's settings, so the registry settings still
 * work in the sealed box and at a far copy while the keys that would publish reach neither.
 * Line by line: the three formats differ, but a key always starts a line (after a scope such
 * as "//host/:") and is followed by '=' or ':'. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/keyless.h"
#include "src/base/buf.h"
#include "src/base/util.h"

const char *const cp_keyless_names[] = {".npmrc", ".yarnrc.yml", "pip.conf", NULL};

bool cp_keyless_is(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    for (size_t i = 0; cp_keyless_names[i] != NULL; i++)
        if (strcasecmp(cp_keyless_names[i], name) == 0)
            return true;
    return false;
}

static const char *const secret_keys[] = {
    "_authToken", "_auth", "_password", "npmAuthToken", "npmAuthIdent", NULL,
};

static bool key_boundary_before(const char *line, const char *at)
{
    if (at == line)
        return true;
    /* '{' and ',': a YAML or TOML flow map holds keys after them on one line. */
    return strchr(" \t\"':/{,", at[-1]) != NULL;
}

/* After the key: an optional closing quote, blanks, then '=' or ':'. */
static bool key_boundary_after(const char *p)
{
    if (*p == '"' || *p == '\'')
        p++;
    p += strspn(p, " \t");
    return *p == '=' || *p == ':';
}

static bool credential_line(const char *line)
{
    for (size_t i = 0; secret_keys[i] != NULL; i++) {
        size_t n = strlen(secret_keys[i]);
        for (const char *p = line; (p = strcasestr(p, secret_keys[i])) != NULL; p++)
            if (key_boundary_before(line, p) && key_boundary_after(p + n))
                return true;
    }
    return false;
}

/* scheme://userinfo@host: the userinfo goes, the address stays. */
static void drop_userinfo(char *line)
{
    for (char *p = strstr(line, "://"); p != NULL; p = strstr(p, "://")) {
        char *auth = p + 3;
        size_t alen = strcspn(auth, "/?# \t\"'\r\n");
        char *at = NULL;
        for (size_t i = 0; i < alen; i++)
            if (auth[i] == '@')
                at = auth + i;
        if (at != NULL)
            memmove(auth, at + 1, strlen(at + 1) + 1);
        p = auth;
    }
}

static size_t indent_of(const char *line)
{
    return strspn(line, " \t");
}

char *cp_keyless_text(const char *text, size_t len)
{
    struct cp_buf out;
    cp_buf_init(&out, len + 1);
    bool dropping = false;
    size_t dropped_indent = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        cleanup_free char *line = strndup(text + start, end - start);
        start = end;
        bool blank = line[strspn(line, " \t\r\n")] == '\0';
        /* A value may go on over more-indented lines (YAML's blocks, pip's lists). */
        if (dropping && (blank || indent_of(line) > dropped_indent))
            continue;
        /* Judged before and after the userinfo goes, which can bring a key next to '/'. */
        dropping = credential_line(line);
        drop_userinfo(line);
        dropping = dropping || credential_line(line);
        if (dropping) {
            dropped_indent = indent_of(line);
            continue;
        }
        (void)cp_buf_append(&out, line, strlen(line));
    }
    (void)cp_buf_append(&out, "", 1);
    return cp_buf_steal(&out);
}

typedef bool (*keep_line_fn)(char *line);

/* Each line that keep (which may rewrite it) keeps, with its userinfo gone. */
static char *filter_lines(const char *text, size_t len, keep_line_fn keep)
{
    struct cp_buf out;
    cp_buf_init(&out, len + 1);
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        cleanup_free char *line = strndup(text + start, end - start);
        start = end;
        drop_userinfo(line);
        if (keep(line))
            (void)cp_buf_append(&out, line, strlen(line));
    }
    (void)cp_buf_append(&out, "", 1);
    char *clean = cp_keyless_text(out.data, out.len - 1);
    cp_buf_dispose(&out);
    return clean;
}

static bool npmrc_registry_line(char *line)
{
    const char *p = line + strspn(line, " \t");
    size_t k = strcspn(p, "=");
    if (p[k] != '=')
        return false;
    while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t'))
        k--;
    if (k == 8 && strncasecmp(p, "registry", 8) == 0)
        return true;
    return p[0] == '@' && k > 9 && strncasecmp(p + k - 9, ":registry", 9) == 0;
}

char *cp_keyless_npmrc_registries(const char *text, size_t len)
{
    return filter_lines(text, len, npmrc_registry_line);
}

static const char *const bun_secret_keys[] = {"token", "username", "password", NULL};

/* A bunfig key (bare or quoted) at p that is one of bun_secret_keys, followed by '='. */
static bool bun_secret_key_at(const char *p)
{
    p += strspn(p, " \t\"'");
    for (size_t i = 0; bun_secret_keys[i] != NULL; i++) {
        size_t n = strlen(bun_secret_keys[i]);
        const char *q = p + n;
        if (strncasecmp(p, bun_secret_keys[i], n) != 0)
            continue;
        q += strspn(q, "\"' \t");
        if (*q == '=')
            return true;
    }
    return false;
}

/* `{ ... url = "X" ... }` -> `"X"`, in place; any other inline table holding a secret key
 * loses its line. */
static bool bunfig_line(char *line)
{
    if (bun_secret_key_at(line))
        return false;
    char *open = strchr(line, '{');
    if (open == NULL)
        return true;
    bool secret = false;
    for (char *p = open + 1; *p && !secret; p++)
        secret =
            (p[-1] == '{' || p[-1] == ',' || p[-1] == ' ' || p[-1] == '\t') && bun_secret_key_at(p);
    if (!secret)
        return true;
    char *url = strstr(open, "url");
    char *q1 = url ? strpbrk(url, "\"'") : NULL;
    char *q2 = q1 ? strchr(q1 + 1, *q1) : NULL;
    if (q2 == NULL)
        return false;
    memmove(open, q1, (size_t)(q2 - q1) + 1);
    open[q2 - q1 + 1] = '\n';
    open[q2 - q1 + 2] = '\0';
    return true;
}

char *cp_keyless_bunfig(const char *text, size_t len)
{
    return filter_lines(text, len, bunfig_line);
}

char *cp_keyless_of_fd(int fd)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CP_KEYLESS_MAX)
        return NULL;
    size_t want = (size_t)st.st_size, got = 0;
    cleanup_free char *text = xmalloc(want + 1);
    /* One byte past the size asks whether it grew while read: then it is not the file seen. */
    while (got <= want) {
        ssize_t n = read(fd, text + got, want + 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return NULL;
        if (n == 0)
            return cp_keyless_text(text, got);
        got += (size_t)n;
    }
    return NULL;
}
