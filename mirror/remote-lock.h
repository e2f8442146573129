/* The locks and words of a remote run (issue 9), for every place whose copy lives elsewhere
 * (ssh:HOST and cloud): the locks here and there, the copy's identity with the lock's answer,
 * and the words for far-side failures, chosen from codes. cp_remote_run (mirror/remote-run.h)
 * strings them together; they are apart so that each can be tested alone. */
#ifndef CONCH_MIRROR_REMOTE_LOCK_H
#define CONCH_MIRROR_REMOTE_LOCK_H

#include <stdbool.h>

#include "mirror/mirror.h"
#include "mirror/transport.h"
#include "src/base/error.h"

/* Takes the lock here on MANIFEST.lock (a flock: it ends with this process), waiting while
 * another command of this computer holds it; stop_fd (-1: this process's signals) becomes
 * readable to give up (CP_ERR_INTERRUPTED). */
int cp_remote_lock_here(const char *manifest_path, const char *place, int stop_fd, int *fd_out,
                        cp_error_t *err);

struct cp_far_lock {
    struct cp_remote *holder; /* hold: the far shell that holds it; NULL once released */
    char *path, *root, *token;
    bool lease, held;
};

/* Takes the copy's lock there (far/lock.sh), waiting while another command holds it. Its answer
 * names the copy there and lists it, into s (the push needs no probe of its own).
 *   lease false: held by a far shell for as long as its stream is open (ssh);
 *   lease true:  a lease of 2 minutes, renewed by cp_remote_lock_renew and by the guard
 *                before each far script (cloud). */
int cp_remote_lock_there(struct cp_transport *t, const char *lock_path, const char *far_root,
                         bool lease, const char *place, int stop_fd, struct cp_mirror_session *s,
                         struct cp_far_lock *out, cp_error_t *err);
int cp_remote_lock_renew(struct cp_transport *t, struct cp_far_lock *l, cp_error_t *err);
/* A lease's guard: shell text that renews the lease, or leaves with 123 when this run no
 * longer holds it. A place puts it before every far script it runs. NULL for a held lock. */
char *cp_remote_lock_guard(const struct cp_far_lock *l);
/* Frees the lock there (best effort: a lease ends by itself, a holder with its stream). */
void cp_remote_lock_release(struct cp_transport *t, struct cp_far_lock *l);

/* Wraps err with "while WHAT" and sets the next step from the failure's code: the far disk
 * full (ENOSPC), the connection broken or silent (unreachable, timeout). */
int cp_remote_words(cp_error_t *err, const char *place, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
