/* What the ssh place's files share: its run, its keeper's client, its doctor. Not for other
 * modules. */
#ifndef CONCH_PLACE_SSH_INT_H
#define CONCH_PLACE_SSH_INT_H

#include "places/place.h"
#include "places/ssh/ssh_config.h"
#include "places/ssh/ssh_remote.h"
#include "places/ssh/ssh_session.h"
#include "src/base/error.h"
#include "src/base/settings.h"

/* The keeper's client (ssh_keeper_client.c): a background conch-place (ssh_keeper.c) holds
 * one authenticated session for later runs, reached over a unix socket only its own user can
 * open. */

/* A connection to h's keeper that has accepted to serve, in *fd_out: 0. Else the run goes
 * alone: 1 when there is no keeper (start one once connected), -1 when it is busy or off
 * (CONCH_SSH_KEEPER=0). */
int cp_ssh_keeper_reach(const struct cp_ssh_host *h, int *fd_out);
/* Starts `conch-place ssh-keeper ALIAS`, detached; it exits at once if one is there. */
void cp_ssh_keeper_spawn(const char *alias);
/* The whole run (push, command, pull) done by the keeper reached on fd. */
int cp_ssh_keeper_run(int fd, const struct cp_run_request *req, int *status_out, cp_error_t *err);

/* doctor --place ssh:HOST. */
int cp_ssh_check(const char *place, const struct cp_config *cfg, cp_error_t *err);

#endif
