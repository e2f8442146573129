/* A far place: what a remote place gives the shared run (mirror/remote-run.h), a way to
 * connect, and a way to run the person's command there (a far exec). The mirror knows no
 * place; ssh:HOST and cloud implement these ops, a test a fake one over the local transport.
 *
 * Nothing else is the place's. The copy's lock there is the run's (mirror/remote-lock.h):
 * whether it is a lease follows the transport, and the run has the transport guard every far
 * script with it. A stop is the run's too: stop_fd, handed to both ops, and the signal it
 * carries. There is no stop op: a stop comes while the exec waits on its command, and only the
 * exec can end that command before it lets go of it (ssh: its group killed on a channel of its
 * own, then the command's channel closed; cloud: its session deleted). */
#ifndef CONCH_MIRROR_FAR_PLACE_H
#define CONCH_MIRROR_FAR_PLACE_H

#include <stdbool.h>

#include "mirror/remote-lock.h"
#include "mirror/transport.h"
#include "src/base/error.h"

/* What connecting gives; all of it the place's, valid until the place frees its state. */
struct cp_far_link {
    struct cp_transport *transport; /* the far scripts' way there */
    const char *far_root;           /* the copy there, as the far shell names it */
    const char *far_lock;           /* the copy's lock file there */
    const char *place_id;           /* the copy's place as the manifest remembers it */
    const char *where;              /* the far side in words: "box", "sandbox ID" */
};

/* One command to run in the copy, as the shared run hands it to the place's exec. */
struct cp_far_exec {
    char *const *argv; /* the person's command, NULL-terminated */
    const char *far_root;
    bool interactive; /* -i: standard input passed on; else the command reads none */
    int stop_fd;      /* readable: stop the command (a signal, or the keeper's client) */
    /* The copy's lock there. A lease must be renewed while the command runs: the exec calls
     * cp_far_lock_renew at least every 30 s (nothing for a held lock); a failure ends it. */
    struct cp_far_lock *lock;
    /* The lock's fifo there (cp_far_lock_done_path), or NULL. When set, the exec's far script
     * writes the command's status to it once the command ended, whatever the status, so the
     * lock's holder sends the copy's listing at once. */
    const char *done_path;
    /* exec_start's: the lock's fifo there that the push's unpack writes its status to. */
    const char *pushed_path;
};

struct cp_far_place_ops {
    /* Connects (or takes up a kept connection), after the lock here. Every wait of the
     * transport it gives ends when stop_fd becomes readable (CP_ERR_INTERRUPTED). */
    int (*connect)(void *place, int stop_fd, struct cp_far_link *out, cp_error_t *err);
    /* Runs x->argv in x->far_root: its standard output to ours, its error to ours, kept apart;
     * our standard input passed on with x->interactive. *status_out is its exit code, or
     * 128 + the signal that ended it. When x->stop_fd becomes readable, the exec ends the far
     * command's process group before it lets go of it, and returns CP_ERR_INTERRUPTED. */
    int (*exec)(void *place, const struct cp_far_exec *x, int *status_out, cp_error_t *err);
    /* Optional, for a command without -i: sends it while the push's pack is on its way, one
     * round trip less. Its far script waits for the unpack's status at x->pushed_path and runs
     * the command only after a whole push; if the push fails or the run ends first, it ends
     * without running it (the lock's holder answers for an unpack that never came). The exec
     * that follows takes it up. A failure here is none of the run's: exec starts it then. */
    int (*exec_start)(void *place, const struct cp_far_exec *x, cp_error_t *err);
};

#endif
