/* Cleanup helpers and allocation that never returns NULL. */
#include "config.h"

#include "src/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <unistd.h>

void cp_cleanup_freep(void *p)
{
    free(*(void **)p);
}

void cp_cleanup_closep(int *fd)
{
    if (*fd >= 0) {
        int saved = errno;
        close(*fd);
        errno = saved;
    }
}

void cp_cleanup_fclosep(FILE **f)
{
    if (*f != NULL)
        fclose(*f);
}

void cp_cleanup_closedirp(DIR **d)
{
    if (*d != NULL)
        closedir(*d);
}

void cp_cleanup_strvp(char ***v)
{
    cp_strv_free(*v);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        abort();
    return p;
}

void *xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (p == NULL)
        abort();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        abort();
    return q;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (p == NULL)
        abort();
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *out = NULL;
    va_start(ap, fmt);
    int r = vasprintf(&out, fmt, ap);
    va_end(ap);
    if (r < 0)
        abort();
    return out;
}

int cp_parse_long(const char *s, long min, long max, long *out)
{
    if (s == NULL || *s == '\0' || (*s != '-' && (*s < '0' || *s > '9')))
        return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cp_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int cp_read_full(int fd, void *buf, size_t len, int wait_ms)
{
    char *p = buf;
    while (len > 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (wait_ms >= 0 && poll(&pfd, 1, wait_ms) <= 0)
            return -1;
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void cp_strv_free(char **v)
{
    if (v == NULL)
        return;
    for (char **p = v; *p != NULL; p++)
        free(*p);
    free(v);
}

size_t cp_strv_len(char *const *v)
{
    size_t n = 0;
    while (v != NULL && v[n] != NULL)
        n++;
    return n;
}

void cp_free_secret(char *s)
{
    if (s == NULL)
        return;
    explicit_bzero(s, strlen(s));
    free(s);
}

/* Double fork: the grandchild belongs to nobody's terminal, holds none of the run's output
 * open, and outlives the run; the caller waits only for the short-lived child. */
static void close_link(int link[2])
{
    for (int i = 0; i < 2; i++)
        if (link[i] >= 0)
            close(link[i]);
}

int cp_detach(pid_t *started)
{
    int link[2] = {-1, -1};
    if (started != NULL && pipe2(link, O_CLOEXEC) < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close_link(link);
        errno = e;
        return -1;
    }
    if (pid > 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        if (started != NULL) {
            close(link[1]);
            if (cp_read_full(link[0], started, sizeof *started, -1) < 0)
                *started = -1;
            close(link[0]);
        }
        return 1;
    }
    setsid();
    pid_t grandchild = fork();
    if (grandchild != 0) {
        /* The caller is told which process it was (-1: none), so it can watch it leave. */
        if (link[1] >= 0)
            (void)!write(link[1], &grandchild, sizeof grandchild);
        _exit(0);
    }
    close_link(link);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    return 0;
}

int cp_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *cp_trim_blanks(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}
