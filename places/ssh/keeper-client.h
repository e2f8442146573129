/* The keeper's client (keeper-client.c): a background conch-place (keeper.c) holds one
 * authenticated session for later runs, reached over a unix socket only its own user can open;
 * a run that finds it hands it the whole run. */
#ifndef CONCH_SSH_KEEPER_CLIENT_H
#define CONCH_SSH_KEEPER_CLIENT_H

#include "places/place.h"
#include "places/ssh/config-host.h"
#include "src/base/error.h"

/* A connection to h's keeper that has accepted to serve, in *fd_out: 0. Else the run goes
 * alone: 1 when there is no keeper (start one once connected), -1 when it is busy or off
 * (CONCH_SSH_KEEPER=0). */
int cp_ssh_keeper_reach(const struct cp_ssh_host *h, int *fd_out);
/* Starts `conch-place ssh-keeper ALIAS`, detached; it exits at once if one is there. */
void cp_ssh_keeper_spawn(const char *alias);
/* The whole run (push, command, pull) done by the keeper reached on fd. */
int cp_ssh_keeper_run(int fd, const struct cp_run_request *req, int *status_out, cp_error_t *err);

#endif
