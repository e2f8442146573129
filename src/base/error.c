/* The error object: made at the failure site, wrapped on the way up, printed by main. */
#include "config.h"

#include "src/base/error.h"
#include "src/base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
    char *out = NULL;
    if (vasprintf(&out, fmt, ap) < 0)
        return NULL;
    return out;
}

int cp_error_make(cp_error_t *err, int code, int sys_errno, const char *fmt, ...)
{
    if (err == NULL)
        return code;
    if (*err != NULL)
        return (*err)->code;
    struct cp_error *e = calloc(1, sizeof(*e));
    if (e == NULL)
        abort();
    va_list ap;
    va_start(ap, fmt);
    cleanup_free char *base = vformat(fmt, ap);
    va_end(ap);
    if (base == NULL)
        abort();
    if (sys_errno != 0) {
        if (asprintf(&e->msg, "%s: %s", base, strerror(sys_errno)) < 0)
            abort();
    } else {
        e->msg = steal_pointer(&base);
    }
    e->code = code;
    e->sys_errno = sys_errno;
    *err = e;
    return code;
}

int cp_error_wrap(cp_error_t *err, const char *fmt, ...)
{
    if (err == NULL || *err == NULL)
        return CP_ERR_FAILED;
    va_list ap;
    va_start(ap, fmt);
    cleanup_free char *ctx = vformat(fmt, ap);
    va_end(ap);
    char *joined = NULL;
    if (ctx == NULL || asprintf(&joined, "%s: %s", ctx, (*err)->msg) < 0)
        abort();
    free((*err)->msg);
    (*err)->msg = joined;
    return (*err)->code;
}

void cp_error_hint(cp_error_t *err, const char *fmt, ...)
{
    if (err == NULL || *err == NULL || (*err)->hint != NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    (*err)->hint = vformat(fmt, ap);
    va_end(ap);
}

int cp_error_code(const cp_error_t *err)
{
    return (err == NULL || *err == NULL) ? CP_OK : (*err)->code;
}

void cp_error_free(cp_error_t *err)
{
    if (err == NULL || *err == NULL)
        return;
    free((*err)->msg);
    free((*err)->hint);
    free(*err);
    *err = NULL;
}

void cp_cleanup_error(cp_error_t *err)
{
    cp_error_free(err);
}

void cp_error_print(const cp_error_t *err)
{
    if (err == NULL || *err == NULL)
        return;
    if ((*err)->hint != NULL)
        fprintf(stderr, "conch-place: %s.\n%s\n", (*err)->msg, (*err)->hint);
    else
        fprintf(stderr, "conch-place: %s.\n", (*err)->msg);
}
