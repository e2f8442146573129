/* A folder's sidecar's two locks, in the person's own folder (every CONCH_HOME's runs see the
 * same): the lock that makes one run at a time make its network and sidecar, and the use lock
 * that a run holds shared while it joins the sidecar, which clean must take alone. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "places/container/seal/sidecar.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* A folder's network and sidecar are made by one run at a time: the engine's CheckDuplicate is
 * no compare-and-swap, and Docker made four networks of one name for four first runs at once
 * (the relay's 50 tickets), after which every run met "network ... is ambiguous". The lock is
 * the person's, not the CONCH_HOME's: networks are the engine's, and two CONCH_HOMEs that each
 * held a lock of their own made twin networks for one folder just the same. */
/* The person's folder for a sidecar's locks (every CONCH_HOME's runs see the same), else this
 * CONCH_HOME's. */
static char *lock_path(const char *name, const char *suffix, cp_error_t *err)
{
    cleanup_free char *dir = cp_person_dir();
    if (dir == NULL && cp_workplaces_dir(&dir, err) < 0)
        return NULL;
    return xasprintf("%s/%s%s", dir, name, suffix);
}

int cp_sidecar_use_lock(const char *name, int how)
{
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *path = lock_path(name, ".use", &err);
    int fd = path != NULL ? open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    while (fd >= 0 && flock(fd, how) < 0) {
        if (errno == EINTR && !(how & LOCK_NB))
            continue;
        close(fd);
        return -1;
    }
    return fd;
}

int cp_sidecar_lock(const char *name, cp_error_t *err)
{
    cleanup_free char *path = lock_path(name, ".lock", err);
    if (path == NULL)
        return cp_error_code(err);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    if (flock(fd, LOCK_EX) < 0) { /* EINTR: a signal, which the caller's wait reports */
        int e = errno;
        close(fd);
        return cp_error_make(err, e == EINTR ? CP_ERR_INTERRUPTED : CP_ERR_FAILED, e,
                             "cannot lock %s", path);
    }
    return fd;
}
