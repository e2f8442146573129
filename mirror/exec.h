/* What a remote place gives the shared run (mirror/remote-run.h): a way to connect, run the
 * person's command there, and stop it. The mirror knows no place; ssh:HOST and cloud
 * implement these ops, a test a fake one over the local transport. */
#ifndef CONCH_MIRROR_EXEC_H
#define CONCH_MIRROR_EXEC_H

#include <stdbool.h>

#include "mirror/transport.h"
#include "src/base/error.h"

/* What connecting gives; all of it the place's, valid until the place frees its state. */
struct cp_remote_link {
    struct cp_transport *transport; /* the far scripts' way there */
    const char *far_root;           /* the copy there, as the far shell names it */
    const char *far_lock;           /* the copy's lock file there */
    const char *place_id;           /* the copy's place as the manifest remembers it */
    const char *where;              /* the far side in words: "box", "sandbox ID" */
};

/* One command to run in the copy, as the shared run hands it to the place's exec. */
struct cp_remote_exec {
    char *const *argv; /* the person's command, NULL-terminated */
    const char *far_root;
    bool interactive; /* -i: standard input passed on; else the command reads none */
    int stop_fd;      /* readable: stop the command (a signal, or the keeper's client) */
    /* The exec calls stop when stop_fd becomes readable, before it lets go of the command, and
     * then returns CP_ERR_INTERRUPTED: it ends the far command's group (the place's stop). */
    void (*stop)(const struct cp_remote_exec *x);
    /* A leased lock (cloud) must be renewed while the command runs: the exec calls renew at
     * least every 30 s. Non-zero: the lease was lost, the run ends. */
    int (*renew)(const struct cp_remote_exec *x, cp_error_t *err);
    void *run; /* the shared run's own, for stop and renew */
};

struct cp_remote_ops {
    /* false: the far lock is held by a far shell while its stream is open (ssh); true: it is a
     * lease renewed by every far script and during the command (cloud: no stream outlives a
     * request). */
    bool lease;
    /* Connects (or takes up a kept connection), after the lock here. stop_fd as in exec. */
    int (*connect)(void *place, int stop_fd, struct cp_remote_link *out, cp_error_t *err);
    /* With a lease: the shell text to put before every far script from now on (it renews the
     * lease, or ends the script when the lease is lost). NULL when the lock is held. */
    void (*guard)(void *place, const char *guard);
    /* Runs x->argv in x->far_root: its standard output to ours, its error to ours, kept apart;
     * our standard input passed on with x->interactive. *status_out is its exit code, or
     * 128 + the signal that ended it. */
    int (*exec)(void *place, const struct cp_remote_exec *x, int *status_out, cp_error_t *err);
    /* Ends the far command's process group (Ctrl-C, SIGTERM). NULL: the exec's own ending
     * of the command suffices. */
    void (*stop)(void *place);
    /* Called once before the far lock is let go, to bound the waits of letting go. NULL: none. */
    void (*closing)(void *place);
    /* The signal a stop came with. NULL: this process's (cp_signals_caught). */
    int (*stop_signal)(void *place);
};

#endif
