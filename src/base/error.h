/* The one error object every layer carries up; only main() decides to exit. */
#ifndef CONCH_ERROR_H
#define CONCH_ERROR_H

#include <stdarg.h>

/* Codes callers branch on. Anything else is CP_ERR_FAILED. */
enum cp_code {
    CP_OK = 0,
    CP_ERR_FAILED = -1,
    CP_ERR_NOT_FOUND = -2,
    CP_ERR_DENIED = -3,
    CP_ERR_TIMEOUT = -4,
    CP_ERR_EGRESS_REFUSED = -5,
    CP_ERR_UNREACHABLE = -6,
    CP_ERR_USAGE = -7,
    CP_ERR_INTERRUPTED = -8,
    CP_ERR_TOO_BIG = -9,
    CP_ERR_UNSAFE = -10,
};

typedef struct cp_error {
    int code;      /* an enum cp_code */
    int sys_errno; /* errno at the failure site, or 0 */
    char *msg;     /* what happened, innermost context last-added first */
    char *hint;    /* the next step for the person, or NULL */
} * cp_error_t;

/* Records a failure; returns code so a caller can `return cp_error_make(...)`.
 * A message already present is never overwritten (the first failure is the real one). */
int cp_error_make(cp_error_t *err, int code, int sys_errno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prefixes context: "while X: <inner message>". Returns the inner code. */
int cp_error_wrap(cp_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets the next step shown after the message, if none is set yet. */
void cp_error_hint(cp_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cp_error_code(const cp_error_t *err);
void cp_error_free(cp_error_t *err);
void cp_cleanup_error(cp_error_t *err);
#define cleanup_error __attribute__((cleanup(cp_cleanup_error)))

/* Prints "conch-place: <msg>\n<hint>" on standard error as one paragraph. */
void cp_error_print(const cp_error_t *err);

#endif
