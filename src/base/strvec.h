/* A growable vector of owned strings, always NULL-terminated, so v can be handed to execv,
 * posix_spawn or anything else that takes a char ** without a copy. */
#ifndef CONCH_STRVEC_H
#define CONCH_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialised ({0}) is a valid empty vector. v[0..n-1] are the strings, each the
 * vector's own (malloc'd); v[n] is NULL whenever v is not NULL (v stays NULL until the first
 * push, so read an empty vector through n, or steal it). cap is how many pointers v has room
 * for, the NULL included. Allocation failure aborts, as xmalloc does: a push cannot fail. */
struct cp_strvec {
    char **v;
    size_t n;
    size_t cap;
};

/* Appends a copy of s. */
void cp_strvec_push(struct cp_strvec *sv, const char *s);
/* Appends s itself, which the vector now owns (it is freed with the vector). */
void cp_strvec_push_owned(struct cp_strvec *sv, char *s);
/* Appends the formatted string. */
void cp_strvec_pushf(struct cp_strvec *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends a copy of each string of the NULL-terminated v (NULL: nothing). */
void cp_strvec_push_all(struct cp_strvec *sv, const char *const *v);
/* Whether an entry equals s. */
bool cp_strvec_has(const struct cp_strvec *sv, const char *s);

/* Frees every string and the array; the struct is left empty ({0}) and may be reused. */
void cp_strvec_dispose(struct cp_strvec *sv);
#define cleanup_strvec __attribute__((cleanup(cp_strvec_dispose)))

/* The NULL-terminated array, the caller's (free it with cp_strv_free, or cleanup_strv); never
 * NULL: an empty vector gives an array holding only NULL. The struct is left empty. */
char **cp_strvec_steal(struct cp_strvec *sv);

#endif
