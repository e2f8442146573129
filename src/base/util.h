/* Cleanup attributes for owned resources, ownership transfer, and small helpers. */
#ifndef CONCH_UTIL_H
#define CONCH_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <dirent.h>

static inline void *steal_pointer_impl(void *pp)
{
    void **p = (void **)pp;
    void *v = *p;
    *p = NULL;
    return v;
}
#define steal_pointer(pp) steal_pointer_impl(pp)

static inline int steal_fd(int *fd)
{
    int v = *fd;
    *fd = -1;
    return v;
}

void cp_cleanup_freep(void *p);
void cp_cleanup_closep(int *fd);
void cp_cleanup_fclosep(FILE **f);
void cp_cleanup_closedirp(DIR **d);
void cp_cleanup_strvp(char ***v);

#define cleanup_free   __attribute__((cleanup(cp_cleanup_freep)))
#define cleanup_close  __attribute__((cleanup(cp_cleanup_closep)))
#define cleanup_fclose __attribute__((cleanup(cp_cleanup_fclosep)))
#define cleanup_dir    __attribute__((cleanup(cp_cleanup_closedirp)))
#define cleanup_strv   __attribute__((cleanup(cp_cleanup_strvp)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict decimal parse of the whole string into [min, max]; 0 or -1. */
int cp_parse_long(const char *s, long min, long max, long *out);
/* A hex digit's value (either case), or -1. */
int cp_hex_value(char c);
/* s without its leading spaces and tabs and its trailing spaces, tabs and CR (cut in place). */
char *cp_trim_blanks(char *s);

/* Writes all of buf to fd, retrying on EINTR and short writes; 0 or -1 with errno. */
int cp_write_all(int fd, const void *buf, size_t len);

/* Forks a detached process for work that outlives the run (a box removed, the next one made):
 * 0 in it (stdio on /dev/null; it must _exit), 1 in the caller once it is on its way, -1 when
 * no process could be made. With started, the caller learns the detached process's id (-1 when
 * it could not be made), to watch it leave. */
int cp_detach(pid_t *started);
/* Reads exactly len bytes, waiting at most wait_ms (-1: forever) for each piece; -1 on end of
 * file, an error or the wait running out. */
int cp_read_full(int fd, void *buf, size_t len, int wait_ms);

/* Frees a NULL-terminated string vector. */
void cp_strv_free(char **v);
size_t cp_strv_len(char *const *v);

/* Wipes a secret before it is freed. */
void cp_free_secret(char *s);

#endif
