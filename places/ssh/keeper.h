/* The ssh keeper's entry, for the `ssh-keeper` command: the one part of the ssh place a command
 * outside it may call (the rest is the place's own). */
#ifndef CONCH_SSH_KEEPER_H
#define CONCH_SSH_KEEPER_H

#include "places/place.h"
#include "src/base/error.h"

/* The run step (src/run/run.h's cp_run_resolved), handed down by the command: the keeper runs
 * each request through it, with its kept session in req->kept. */
typedef int (*cp_ssh_keeper_run_fn)(const struct cp_run_request *req, cp_error_t *err);

/* `conch-place ssh-keeper HOST`: connects, then serves runs through run until idle. */
int cp_ssh_keeper_main(const char *alias, cp_ssh_keeper_run_fn run, cp_error_t *err);

#endif
