/* The ssh:HOST place's one public header: what code outside places/ssh uses, the keeper's entry
 * for the `ssh-keeper` command. Everything else in the folder is private to it, and the place
 * itself is reached through places/place.h's table. */
#ifndef CONCH_SSH_SSH_H
#define CONCH_SSH_SSH_H

#include "places/place.h"
#include "src/base/error.h"

/* The run step (src/run/run.h's cp_run_resolved), handed down by the command: the keeper runs
 * each request through it, with its kept session in req->kept. */
typedef int (*cp_ssh_keeper_run_fn)(const struct cp_run_request *req, cp_error_t *err);

/* `conch-place ssh-keeper HOST`: connects, then serves runs through run until idle. */
int cp_ssh_keeper_main(const char *alias, cp_ssh_keeper_run_fn run, cp_error_t *err);

#endif
