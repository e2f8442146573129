/* The one string vector (strvec.h), where each part used to grow its own char ** by hand. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "src/base/strvec.h"
#include "src/base/util.h"

void cp_strvec_push_owned(struct cp_strvec *sv, char *s)
{
    if (sv->n + 2 > sv->cap) {
        size_t cap = sv->cap < 8 ? 8 : sv->cap * 2;
        sv->v = xrealloc(sv->v, cap * sizeof(char *));
        sv->cap = cap;
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void cp_strvec_push(struct cp_strvec *sv, const char *s)
{
    cp_strvec_push_owned(sv, xstrdup(s));
}

void cp_strvec_pushf(struct cp_strvec *sv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int r = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (r < 0)
        abort();
    cp_strvec_push_owned(sv, s);
}

void cp_strvec_push_all(struct cp_strvec *sv, const char *const *v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        cp_strvec_push(sv, v[i]);
}

bool cp_strvec_has(const struct cp_strvec *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return true;
    return false;
}

void cp_strvec_dispose(struct cp_strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    *sv = (struct cp_strvec){0};
}

char **cp_strvec_steal(struct cp_strvec *sv)
{
    char **v = sv->v != NULL ? sv->v : xcalloc(1, sizeof(char *));
    *sv = (struct cp_strvec){0};
    return v;
}
