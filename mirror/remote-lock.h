/* The locks and words of a remote run (issue 9), for every place whose copy lives elsewhere
 * (ssh:HOST and cloud): the locks here and there, the copy's identity with the lock's answer,
 * and the words for far-side failures, chosen from codes. cp_remote_run (mirror/remote-run.h)
 * strings them together; they are apart so that each can be tested alone. */
#ifndef CONCH_MIRROR_REMOTE_LOCK_H
#define CONCH_MIRROR_REMOTE_LOCK_H

#include <stdbool.h>

#include "mirror/sync.h"
#include "mirror/transport.h"
#include "src/base/error.h"

/* Takes the lock here on MANIFEST.lock (a flock: it ends with this process), waiting while
 * another command of this computer holds it; stop_fd (-1: this process's signals) becomes
 * readable to give up (CP_ERR_INTERRUPTED). */
int cp_remote_lock_here(const char *manifest_path, const char *place, int stop_fd, int *fd_out,
                        cp_error_t *err);

/* The copy's lock there, an object of the run's: the place only gives the transport. Its kind
 * follows the transport. Where a far script lives as long as its streams (ssh, local), a far
 * shell holds the lock for as long as its stream is open, so a cut connection or a killed
 * conch-place frees it by itself. Where no stream outlives a request (a batch transport:
 * cloud), it is a lease of 2 minutes: the guard renews it before every far script, and the
 * place's exec renews it while the command runs. */
struct cp_far_lock {
    struct cp_transport *t;     /* borrowed: the way there, to renew and let go */
    struct cp_far_proc *holder; /* held: the far shell that holds it; NULL once released */
    char *path, *root, *token;
    bool lease, held;
    bool after; /* held: the holder sends the copy's listing once the command ended */
};

/* Takes the copy's lock there (far/lock.sh), waiting while another command holds it; stop_fd
 * as for the lock here. Its answer names the copy there and lists it, into s (the push needs
 * no probe of its own). */
int cp_far_lock_take(struct cp_transport *t, const char *lock_path, const char *far_root,
                     const char *place, int stop_fd, struct cp_mirror_session *s,
                     struct cp_far_lock *out, cp_error_t *err);
/* A held lock's fifo there (LOCK.done) that the command's far script writes its status to once
 * the command ended (cp_far_exec's done_path): the holder then sends the copy's listing on its
 * stream, unasked. NULL when the holder sends none (a lease, a far side without mkfifo). */
char *cp_far_lock_done_path(const struct cp_far_lock *l);
/* A held lock's fifo there (LOCK.pushed) that the push's unpack writes its status to, and a
 * command sent on the push's heels waits for; NULL where there is none. */
char *cp_far_lock_pushed_path(const struct cp_far_lock *l);
/* That listing, read from the holder's stream into s (once per lock): the pull needs no probe
 * of its own, one round trip less. */
int cp_far_lock_after(struct cp_far_lock *l, struct cp_mirror_session *s, cp_error_t *err);
/* A lease pushed 2 minutes on; nothing for a held lock. At least every 30 s while a command
 * runs. CP_ERR_DENIED: the lease was taken from this run, which ends. */
int cp_far_lock_renew(struct cp_far_lock *l, cp_error_t *err);
/* A lease's guard: shell text that renews the lease, or leaves with 123 when this run no
 * longer holds it; the run has the transport put it before every far script
 * (cp_transport_guard). NULL for a held lock. */
char *cp_far_lock_guard(const struct cp_far_lock *l);
/* Lets the lock go (best effort: a lease ends by itself, a holder with its stream), the
 * transport told that the run is closing first. */
void cp_far_lock_release(struct cp_far_lock *l);

/* Wraps err with "while WHAT" and sets the next step from the failure's code: the far disk
 * full (ENOSPC), the connection broken or silent (unreachable, timeout). */
int cp_remote_words(cp_error_t *err, const char *place, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
