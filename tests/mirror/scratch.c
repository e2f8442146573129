/* Scratch trees for the mirror tests. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/paths.h"
#include "src/base/util.h"
#include "tests/mirror/scratch.h"

int scratch_make(struct scratch *s)
{
    snprintf(s->top, sizeof(s->top), "/tmp/conch-mirror-XXXXXX");
    if (mkdtemp(s->top) == NULL)
        return -1;
    snprintf(s->work, sizeof(s->work), "%s/work", s->top);
    snprintf(s->out, sizeof(s->out), "%s/outside", s->top);
    if (mkdir(s->work, 0755) < 0 || mkdir(s->out, 0755) < 0)
        return -1;
    put_file(s->out, "canary", CANARY_TEXT);
    s->workfd = open(s->work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return s->workfd < 0 ? -1 : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void rm_tree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void scratch_remove(struct scratch *s)
{
    if (s->workfd >= 0)
        close(s->workfd);
    s->workfd = -1;
    rm_tree(s->top);
}

void put_file(const char *dir, const char *rel, const char *text)
{
    char *path = xasprintf("%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    cleanup_error cp_error_t err = NULL;
    unlink(path);
    if (cp_write_file_atomic(path, text, strlen(text), 0644, &err) < 0)
        abort();
    free(path);
}

char *get_file(const char *dir, const char *rel)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, rel);
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return NULL;
    char *data = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_read_file(path, 1 << 26, &data, NULL, &err) < 0)
        return NULL;
    return data;
}

bool exists_nofollow(const char *dir, const char *rel)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, rel);
    struct stat st;
    return lstat(path, &st) == 0;
}

static size_t count_in(int fd)
{
    DIR *d = fdopendir(fd);
    size_t n = 0;
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        n++;
        int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (sub >= 0)
            n += count_in(sub);
    }
    if (d != NULL)
        closedir(d);
    return n;
}

size_t count_tree(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    return fd < 0 ? 0 : count_in(fd);
}

bool outside_untouched(const struct scratch *s)
{
    cleanup_free char *canary = get_file(s->out, "canary");
    return canary != NULL && strcmp(canary, CANARY_TEXT) == 0 && count_tree(s->out) == 1 &&
           count_tree(s->top) == 2 + count_tree(s->work) + 1;
}
