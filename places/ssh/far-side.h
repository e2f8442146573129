/* The ssh:HOST place's side of the shared remote run (far-side.c): its far place ops
 * (mirror/far-place.h), connect and exec (which ends the far command's group itself on a stop),
 * and the far layout they share. Used by the place (a run alone) and by the keeper (a run over
 * its kept session); it calls neither. */
#ifndef CONCH_SSH_FAR_SIDE_H
#define CONCH_SSH_FAR_SIDE_H

#include "places/place.h"
#include "places/ssh/config-host.h"
#include "places/ssh/session.h"
#include "src/base/error.h"

/* How one run reaches the host. */
struct cp_ssh_reach {
    const struct cp_ssh_fs *fs;
    const struct cp_ssh_host *host;
    struct cp_ssh_session *kept; /* the keeper's session, or NULL: connect for this run */
    int stop_fd;                 /* the keeper's client (its byte says the signal); -1: ours */
    void (*connected)(const char *alias); /* NULL, or called once a new session is up */
};

/* The host of req->place resolved from ~/.ssh/config into *h (fs made first). A bad config
 * is the config's fault (CP_ERR_FAILED), never the command line's. */
int cp_ssh_remote_resolve(const char *place, struct cp_ssh_fs *fs, struct cp_ssh_host *h,
                          cp_error_t *err);

/* The whole run of req on the host (cp_remote_run with the ssh ops). */
int cp_ssh_remote_run(const struct cp_run_request *req, const struct cp_ssh_reach *reach,
                      int *status_out, cp_error_t *err);

/* name as one far path component: itself when plain (letters, digits, '.', '_', '-', not
 * starting with '.'), else fallback-HASH. */
char *cp_ssh_far_component(const char *name, const char *fallback);

#endif
