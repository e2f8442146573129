/* The text of ssh_config, each routine the twin of an openssh one where it has one: argument
 * splitting, patterns, tokens, times, the names that may go into a command, ProxyJump's hops,
 * and errors worded file:line. The rest of the config reads through these; they read none of
 * it. */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "places/ssh/config-text.h"
#include "src/base/strvec.h"
#include "src/base/buf.h"
#include "src/base/util.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Copies one word starting at s[*i] into arg, removing quotes and escapes. -1: open quote. */
static int split_one(const char *s, size_t *i, char *arg)
{
    size_t j = 0;
    char quote = 0;
    for (; s[*i] != '\0'; (*i)++) {
        char c = s[*i], next = s[*i + 1];
        if (c == '\\' &&
            (next == '\'' || next == '"' || next == '\\' || (quote == 0 && next == ' '))) {
            (*i)++;
            arg[j++] = next;
        } else if (quote == 0 && is_blank(c)) {
            break;
        } else if (quote == 0 && (c == '"' || c == '\'')) {
            quote = c;
        } else if (quote != 0 && c == quote) {
            quote = 0;
        } else {
            arg[j++] = c;
        }
    }
    arg[j] = '\0';
    return quote != 0 ? -1 : 0;
}

int cp_ssh_split_args(const char *s, size_t max, char ***out, size_t *n_out)
{
    cleanup_strvec struct cp_strvec v = {0};
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        if (is_blank(s[i])) {
            i++;
            continue;
        }
        if (s[i] == '#')
            break;
        if (v.n >= max)
            return -1;
        char *arg = xmalloc(len - i + 1);
        cp_strvec_push_owned(&v, arg);
        if (split_one(s, &i, arg) < 0)
            return -1;
    }
    *n_out = v.n;
    *out = cp_strvec_steal(&v);
    return 0;
}

bool cp_ssh_pattern_match(const char *p, const char *s)
{
    const char *star_p = NULL, *star_s = NULL;
    for (;;) {
        if (*p == '*') {
            star_p = ++p;
            star_s = s;
            continue;
        }
        if (*s == '\0')
            return *p == '\0';
        if (*p != '\0' && (*p == '?' || *p == *s)) {
            p++;
            s++;
            continue;
        }
        if (star_p == NULL)
            return false;
        p = star_p;
        s = ++star_s;
    }
}

static bool pattern_match_nocase(const char *p, size_t plen, const char *s)
{
    cleanup_free char *lp = xmalloc(plen + 1);
    cleanup_free char *ls = xstrdup(s);
    for (size_t i = 0; i < plen; i++)
        lp[i] = (char)tolower((unsigned char)p[i]);
    lp[plen] = '\0';
    for (char *c = ls; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    return cp_ssh_pattern_match(lp, ls);
}

int cp_ssh_pattern_list_match(const char *list, const char *s)
{
    int got = 0;
    while (*list != '\0') {
        size_t len = strcspn(list, ",");
        bool negated = list[0] == '!';
        const char *p = list + negated;
        size_t plen = len - negated;
        if (pattern_match_nocase(p, plen, s)) {
            if (negated)
                return -1;
            got = 1;
        }
        list += len;
        if (*list == ',')
            list++;
    }
    return got;
}

bool cp_ssh_has_wildcard(const char *s)
{
    return strpbrk(s, "*?") != NULL;
}

bool cp_ssh_tokens_valid(const char *s, const char *allowed, char *bad_out)
{
    for (const char *p = strchr(s, '%'); p != NULL; p = strchr(p, '%')) {
        char t = p[1];
        if (t != '%' && (t == '\0' || strchr(allowed, t) == NULL)) {
            *bad_out = t;
            return false;
        }
        p += 2;
    }
    return true;
}

char *cp_ssh_expand(const char *s, const struct cp_ssh_tokens *t)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, (size_t)64 * 1024);
    if (t->home != NULL && s[0] == '~' && (s[1] == '\0' || s[1] == '/')) {
        cp_buf_append(&b, t->home, strlen(t->home));
        s++;
    }
    for (; *s != '\0'; s++) {
        const char *key = (*s == '%' && s[1] != '\0') ? strchr(t->keys, s[1]) : NULL;
        if (*s == '%' && s[1] == '%') {
            cp_buf_append(&b, "%", 1);
            s++;
        } else if (key != NULL) {
            const char *v = t->values[key - t->keys];
            cp_buf_append(&b, v, strlen(v));
            s++;
        } else {
            cp_buf_append(&b, s, 1);
        }
    }
    return cp_buf_steal(&b);
}

static long time_unit(char c)
{
    switch (c) {
    case '\0':
    case 's':
    case 'S':
        return 1;
    case 'm':
    case 'M':
        return 60;
    case 'h':
    case 'H':
        return 3600;
    case 'd':
    case 'D':
        return 86400;
    case 'w':
    case 'W':
        return 604800;
    default:
        return -1;
    }
}

int cp_ssh_parse_time(const char *s, long *out)
{
    long total = 0;
    if (*s == '\0')
        return -1;
    while (*s != '\0') {
        if (!isdigit((unsigned char)*s))
            return -1;
        long v = 0;
        while (isdigit((unsigned char)*s)) {
            if (v > (INT_MAX - 9) / 10)
                return -1;
            v = v * 10 + (*s++ - '0');
        }
        long unit = time_unit(*s);
        if (unit < 0 || v > (INT_MAX - total) / unit)
            return -1;
        total += v * unit;
        if (*s != '\0')
            s++;
    }
    *out = total;
    return 0;
}

char *cp_ssh_quote_arg(const char *s, bool double_percent)
{
    bool quote = s[0] == '\0' || s[0] == '#' || strpbrk(s, " \t\"'\\") != NULL;
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, (size_t)64 * 1024);
    if (quote)
        cp_buf_append(&b, "\"", 1);
    for (; *s != '\0'; s++) {
        if (quote && (*s == '"' || *s == '\\'))
            cp_buf_append(&b, "\\", 1);
        if (double_percent && *s == '%')
            cp_buf_append(&b, "%", 1);
        cp_buf_append(&b, s, 1);
    }
    if (quote)
        cp_buf_append(&b, "\"", 1);
    return cp_buf_steal(&b);
}

static bool all_in(const char *s, const char *extra)
{
    for (; *s != '\0'; s++)
        if (!isalnum((unsigned char)*s) && strchr(extra, *s) == NULL)
            return false;
    return true;
}

bool cp_ssh_hostname_ok(const char *s)
{
    size_t len = strlen(s);
    return len > 0 && len <= 253 && s[0] != '-' && all_in(s, ".-_:");
}

bool cp_ssh_user_ok(const char *s)
{
    size_t len = strlen(s);
    return len > 0 && len <= 64 && s[0] != '-' && all_in(s, ".-_@+");
}

int cp_ssh_alias_check(const char *alias, cp_error_t *err)
{
    size_t len = strlen(alias);
    if (len == 0 || len > 253)
        return cp_error_make(err, CP_ERR_USAGE, 0, "ssh: needs a host name (ssh:NAME)");
    if (cp_ssh_has_wildcard(alias) || alias[0] == '!') {
        cp_error_make(err, CP_ERR_USAGE, 0, "ssh:%s is a pattern, not a host", alias);
        cp_error_hint(err, "Name one host of ~/.ssh/config, as its Host line spells it.");
        return CP_ERR_USAGE;
    }
    bool ok = alias[0] != '-' && alias[0] != '.';
    for (const char *c = alias; ok && *c != '\0'; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '.' || *c == '_' || *c == '-';
    if (!ok) {
        cp_error_make(err, CP_ERR_USAGE, 0,
                      "the host name after ssh: may hold only letters, digits, '.', '_' and "
                      "'-', and may not start with '-' or '.'");
        cp_error_hint(err, "Name one host of ~/.ssh/config, as its Host line spells it.");
        return CP_ERR_USAGE;
    }
    return 0;
}

/* ---- ProxyJump: a comma list of [user@]host[:port] or ssh://[user@]host[:port] ---- */

#define MAX_HOPS 8

void cp_ssh_hops_free(struct cp_ssh_hop *hops, size_t n)
{
    for (size_t i = 0; hops != NULL && i < n; i++) {
        free(hops[i].user);
        free(hops[i].host);
    }
    free(hops);
}

/* Splits "host", "host:port", "[addr]" or "[addr]:port". */
static int split_host_port(char *s, struct cp_ssh_hop *hop)
{
    char *port = NULL;
    if (s[0] == '[') {
        char *close = strchr(s, ']');
        if (close == NULL || (close[1] != '\0' && close[1] != ':'))
            return -1;
        *close = '\0';
        port = close[1] == ':' ? close + 2 : NULL;
        s++;
    } else if ((port = strchr(s, ':')) != NULL) {
        *port++ = '\0';
    }
    if (!cp_ssh_hostname_ok(s))
        return -1;
    if (port != NULL && cp_parse_long(port, 1, 65535, &hop->port) < 0)
        return -1;
    hop->host = xstrdup(s);
    return 0;
}

static int parse_hop(const char *text, size_t len, struct cp_ssh_hop *hop)
{
    cleanup_free char *s = strndup(text, len);
    if (s == NULL)
        abort();
    char *h = strncmp(s, "ssh://", 6) == 0 ? s + 6 : s;
    char *at = strrchr(h, '@');
    hop->port = -1;
    if (at != NULL) {
        *at = '\0';
        if (!cp_ssh_user_ok(h))
            return -1;
        hop->user = xstrdup(h);
        h = at + 1;
    }
    return split_host_port(h, hop);
}

int cp_ssh_jump_parse(const char *value, struct cp_ssh_hop **out, size_t *n_out, cp_error_t *err)
{
    *out = NULL;
    *n_out = 0;
    if (strcmp(value, "none") == 0)
        return 0;
    struct cp_ssh_hop *hops = xcalloc(MAX_HOPS, sizeof(*hops));
    size_t n = 0;
    for (const char *s = value;; s++) {
        size_t len = strcspn(s, ",");
        if (n >= MAX_HOPS || parse_hop(s, len, &hops[n]) < 0) {
            cp_ssh_hops_free(hops, n + (n < MAX_HOPS));
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "\"%s\" is not a list of at most %d [user@]host[:port]", value,
                                 MAX_HOPS);
        }
        n++;
        s += len;
        if (*s == '\0')
            break;
    }
    *out = hops;
    *n_out = n;
    return 0;
}

int cp_ssh_line_error(const char *file, int line, int code, cp_error_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cleanup_free char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        abort();
    va_end(ap);
    return cp_error_make(err, code, 0, "%s:%d: %s", file, line, msg);
}
