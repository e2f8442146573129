/* ${NAME} in a sign-in's value, replaced from conch-place's environment as npm, Yarn and Bun do:
 * a token is often kept in a variable rather than in the file. */
#include "config.h"

#include <string.h>

#include "places/container/allow/sign-ins-sources.h"
#include "src/base/log.h"
#include "src/base/util.h"

static bool name_char(char c, bool first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
}

/* The variable at p ("${NAME}", "${NAME?}" or, bare, "$NAME"): its length, its name in
 * name_out, whether unset means empty; 0 when p starts none. */
static size_t variable_at(const char *p, bool bare, char **name_out, bool *optional_out)
{
    *optional_out = false;
    if (p[0] != '$')
        return 0;
    if (p[1] == '{') {
        size_t n = 0;
        while (name_char(p[2 + n], n == 0))
            n++;
        *optional_out = p[2 + n] == '?';
        size_t close = 2 + n + (*optional_out ? 1 : 0);
        if (n == 0 || p[close] != '}')
            return 0;
        *name_out = strndup(p + 2, n);
        return close + 1;
    }
    size_t n = 0;
    while (bare && name_char(p[1 + n], n == 0))
        n++;
    if (n == 0)
        return 0;
    *name_out = strndup(p + 1, n);
    return 1 + n;
}

char *cp_sign_in_expand(const char *value, bool bare, char **missing_out)
{
    size_t cap = strlen(value) + 1, len = 0;
    char *out = xmalloc(cap);
    *missing_out = NULL;
    for (const char *p = value; *p;) {
        cleanup_free char *name = NULL;
        bool optional = false;
        size_t skip = p[0] == '\\' && p[1] == '$' ? 0 : variable_at(p, bare, &name, &optional);
        const char *val = skip ? getenv(name) : NULL;
        if (skip && val == NULL && !optional) {
            explicit_bzero(out, cap); /* not yet terminated: its length is not strlen's */
            free(out);
            *missing_out = steal_pointer(&name);
            return NULL;
        }
        if (p[0] == '\\' && p[1] == '$')
            p++; /* \$ is a dollar, not a variable */
        const char *piece = skip ? (val ? val : "") : p;
        size_t pn = skip ? strlen(piece) : 1;
        if (len + pn + 1 > cap) {
            char *grown = xmalloc(cap = 2 * (len + pn + 1));
            memcpy(grown, out, len);
            explicit_bzero(out, len);
            free(out);
            out = grown;
        }
        memcpy(out + len, piece, pn);
        len += pn;
        p += skip ? skip : 1;
    }
    out[len] = '\0';
    return out;
}

/* value expanded, or NULL with a debug line (the variable's name, never a value). */
char *cp_sign_in_expanded(const char *value, bool bare, const char *source, const char *what)
{
    cleanup_free char *missing = NULL;
    char *v = cp_sign_in_expand(value, bare, &missing);
    if (v == NULL)
        cp_debug("%s: %s names ${%s}, which is not set in conch-place's environment: no "
                 "sign-in from it",
                 source, what, missing);
    return v;
}
