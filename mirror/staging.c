/* Staging folders that killed runs left in the work folder (staging.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/rules.h"
#include "mirror/staging.h"
#include "src/base/log.h"

int cp_staging_make(int parentfd, const char *name)
{
    if (mkdirat(parentfd, name, 0700) < 0)
        return -1;
    int fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int gi = fd >= 0 ? openat(fd, ".gitignore",
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                     : -1;
    bool written = gi >= 0 && write(gi, "*\n", 2) == 2;
    int saved = errno;
    if (gi >= 0)
        close(gi);
    if (!written) {
        cp_staging_remove(parentfd, name, &fd);
        errno = saved;
        return -1;
    }
    return fd;
}

void cp_staging_remove(int parentfd, const char *name, int *fd)
{
    if (*fd >= 0) {
        unlinkat(*fd, ".gitignore", 0);
        close(*fd);
        *fd = -1;
    }
    unlinkat(parentfd, name, AT_REMOVEDIR);
}

void cp_staging_sweep(int rootfd)
{
    int dfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    size_t plen = strlen(CP_STAGING_PREFIX);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end = NULL;
        if (strncmp(e->d_name, CP_STAGING_PREFIX, plen) != 0)
            continue;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (pid <= 0 || end == NULL || *end != '-' || pid == (long)getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        int sfd = openat(rootfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *sd = sfd >= 0 ? fdopendir(sfd) : NULL;
        for (struct dirent *f; sd != NULL && (f = readdir(sd)) != NULL;)
            if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0)
                unlinkat(sfd, f->d_name, 0);
        if (sd != NULL)
            closedir(sd);
        else if (sfd >= 0)
            close(sfd);
        if (unlinkat(rootfd, e->d_name, AT_REMOVEDIR) == 0)
            cp_debug("mirror: removed %s, left by a run that was killed", e->d_name);
    }
    closedir(d);
}
