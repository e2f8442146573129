/* The benchmark's driver: makes trees, runs the mirror over the local transport, times any
 * command with its peak memory. Used by bench/mirror; not installed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mirror/listing.h"
#include "mirror/manifest.h"
#include "mirror/sync.h"
#include "src/base/util.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* gen DIR FILES SIZE: FILES files of SIZE bytes, 100 to a folder. */
static int gen(const char *dir, long files, long size)
{
    char *buf = xmalloc((size_t)size);
    unsigned seed = 42;
    mkdir(dir, 0755);
    for (long i = 0; i < files; i++) {
        cleanup_free char *sub = xasprintf("%s/d%04ld", dir, i / 100);
        cleanup_free char *path = xasprintf("%s/f%05ld.txt", sub, i);
        if (i % 100 == 0)
            mkdir(sub, 0755);
        for (long k = 0; k < size; k++)
            buf[k] = (char)('a' + rand_r(&seed) % 26);
        cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || cp_write_all(fd, buf, (size_t)size) < 0)
            return perror(path), 1;
    }
    free(buf);
    return 0;
}

static int sync_one(const char *what, const char *work, const char *far)
{
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *manifest = NULL;
    cleanup_transport struct cp_transport *t = NULL;
    cleanup_close int rootfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0 || cp_manifest_path("bench", "bench", 1, &manifest, &err) < 0 ||
        cp_transport_local_new(&t, &err) < 0)
        return cp_error_print(&err), 1;
    struct cp_mirror_opts o = {.rootfd = rootfd, .far_root = far, .manifest_path = manifest};
    struct cp_mirror_report rep = {0};
    int rc = strcmp(what, "push") == 0 ? cp_mirror_push(t, &o, &rep, &err)
                                       : cp_mirror_pull(t, &o, &rep, &err);
    if (rc < 0)
        return cp_error_print(&err), 1;
    fprintf(stderr, "%s: sent %zu, landed %zu, deleted %zu/%zu\n", what, rep.sent, rep.landed,
            rep.deleted_there, rep.deleted_here);
    return 0;
}

static int list(const char *dir)
{
    cleanup_close int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    cleanup_listing struct cp_listing l = {0};
    cleanup_error cp_error_t err = NULL;
    double t0 = now();
    if (fd < 0 || cp_listing_local(fd, NULL, NULL, &l, NULL, &err) < 0)
        return cp_error_print(&err), 1;
    printf("listed %zu files in %.3f s\n", l.n, now() - t0);
    return 0;
}

/* time LABEL CMD...: wall time and the peak resident memory of the command. */
static int timed(char **argv)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return 1;
    printf("%-28s %8.3f s   peak %7ld KB\n", argv[0], now() - t0, ru.ru_maxrss);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
    long files = 0, size = 0;
    if (argc == 5 && strcmp(argv[1], "gen") == 0 &&
        cp_parse_long(argv[3], 1, 1000000, &files) == 0 &&
        cp_parse_long(argv[4], 0, 1 << 30, &size) == 0)
        return gen(argv[2], files, size);
    if (argc == 4 && (strcmp(argv[1], "push") == 0 || strcmp(argv[1], "pull") == 0))
        return sync_one(argv[1], argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "list") == 0)
        return list(argv[2]);
    if (argc >= 4 && strcmp(argv[1], "time") == 0)
        return timed(argv + 2);
    fprintf(stderr, "usage: mirror-drive gen DIR FILES SIZE | push|pull WORK FAR | list DIR | "
                    "time LABEL CMD...\n");
    return 2;
}
