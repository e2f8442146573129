/* .npmrc as npm reads it (the ini package under @npmcli/config): lines end at any CR or LF,
 * a line whose first non-blank is ';' or '#' is a comment, "[name]" opens a section, anything
 * else is key=value (all of the line a key set to true when it has no '='), the key before the
 * first '=', both trimmed; "key[]" adds to a list. npm expands ${VAR} in keys as in values and
 * ini unquotes a quoted key and cuts one at ';' or '#', and JavaScript trims more than blanks:
 * so a key here is plain ASCII of the characters npm's own keys use, or the file is not
 * understood. */
#include "config.h"

#include <string.h>

#include "mirror/keys.h"

static bool key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("._:/@~+-", c) != NULL;
}

/* A key's bytes (an optional trailing "[]" aside) are all key_char. */
static bool plain_key(const char *s, size_t n)
{
    if (n >= 2 && s[n - 2] == '[' && s[n - 1] == ']')
        n -= 2;
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!key_char(s[i]))
            return false;
    return true;
}

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* "[name]" with nothing but blanks after it: the section's name in *sec. */
static int section(const char *line, size_t n, char *sec, size_t cap)
{
    const char *close = memchr(line, ']', n);
    if (close == NULL)
        return -1;
    size_t len = (size_t)(close - line) - 1;
    for (const char *c = close + 1; c < line + n; c++)
        if (*c != ' ' && *c != '\t')
            return -1;
    if (!plain_key(line + 1, len) || len + 1 > cap)
        return -1;
    memcpy(sec, line + 1, len);
    sec[len] = '\0';
    return 0;
}

/* One line that is not blank or a comment. A section's keys are named "section.key", and the
 * section itself is a key "[section]": npm's own keys hold no '.', so none of them matches. */
static int line_keys(const char *line, size_t n, char *sec, size_t cap, struct cp_keys *out)
{
    if (line[0] == '[') {
        if (section(line, n, sec, cap) < 0)
            return -1;
        char name[300];
        size_t len = strlen(sec) + 2;
        if (len >= sizeof(name))
            return -1;
        name[0] = '[';
        memcpy(name + 1, sec, len - 2);
        name[len - 1] = ']';
        return cp_keys_add(out, name, len, "", 0);
    }
    const char *eq = memchr(line, '=', n);
    const char *key = line, *val = eq ? eq + 1 : "true";
    size_t klen = eq ? (size_t)(eq - line) : n, vlen = eq ? n - klen - 1 : 4;
    trim(&key, &klen);
    trim(&val, &vlen);
    if (!plain_key(key, klen))
        return -1;
    char name[512];
    size_t slen = strlen(sec);
    if (slen + 1 + klen >= sizeof(name))
        return -1;
    size_t at = 0;
    if (slen > 0) {
        memcpy(name, sec, slen);
        name[slen] = '.';
        at = slen + 1;
    }
    memcpy(name + at, key, klen);
    return cp_keys_add(out, name, at + klen, val, vlen);
}

static bool clean_bytes(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            return false;
    }
    return true;
}

static int read_lines(const char *text, size_t len, struct cp_keys *out)
{
    char sec[256] = "";
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n' && text[end] != '\r')
            end++;
        const char *line = text + at;
        size_t n = end - at, skip = 0;
        at = end + 1;
        while (skip < n && (line[skip] == ' ' || line[skip] == '\t'))
            skip++;
        if (skip == n || line[skip] == ';' || line[skip] == '#')
            continue;
        if (line_keys(line, n, sec, sizeof(sec), out) < 0)
            return -1;
    }
    return 0;
}

int cp_keys_read_npmrc(const char *text, size_t len, struct cp_keys *out)
{
    *out = (struct cp_keys){0};
    if (len > CP_KEYS_FILE_MAX || !clean_bytes(text, len) || read_lines(text, len, out) < 0) {
        cp_keys_dispose(out);
        return -1;
    }
    return 0;
}
