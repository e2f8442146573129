/* What the ssh place's files share: its run, its doctor. Not for other modules. */
#ifndef CONCH_PLACE_SSH_INT_H
#define CONCH_PLACE_SSH_INT_H

#include "places/place.h"
#include "places/ssh/ssh_config.h"
#include "places/ssh/ssh_session.h"
#include "src/base/error.h"
#include "src/base/settings.h"

/* `exec /bin/sh -c SCRIPT NAME ARGS...` quoted for the far login shell. *out is the caller's. */
char *cp_ssh_shell_command(const char *script, const char *name, char *const *args);

/* name as one far path component: itself when plain (letters, digits, '.', '_', '-', not
 * starting with '.'), else fallback-HASH. */
char *cp_ssh_far_component(const char *name, const char *fallback);

/* cp_ssh_connect, with the next step set for each way a connection fails: the name not
 * found, refused, no answer in time. */
int cp_ssh_connect_words(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                         struct cp_ssh_session **out, cp_error_t *err);

/* The keeper (ssh_keeper.c): a background conch-place holding one authenticated session for
 * later runs, reached over a unix socket only its own user can open. */

/* A connection to h's keeper that has accepted to serve, in *fd_out: 0. Else the run goes
 * alone: 1 when there is no keeper (start one once connected), -1 when it is busy or off
 * (CONCH_SSH_KEEPER=0). */
int cp_ssh_keeper_reach(const struct cp_ssh_host *h, int *fd_out);
/* Starts `conch-place ssh-keeper ALIAS`, detached; it exits at once if one is there. */
void cp_ssh_keeper_spawn(const char *alias);
/* The whole run (push, command, pull) done by the keeper reached on fd. */
int cp_ssh_keeper_run(int fd, const struct cp_run_request *req, int *status_out, cp_error_t *err);
/* In the keeper: the signal the run asked to stop with (SIGHUP when it went away). */
int cp_ssh_keeper_signal(int fd);
/* In the keeper: one run over its session, stopped when client_fd becomes readable. */
int cp_ssh_place_serve(const struct cp_run_request *req, struct cp_ssh_session *session,
                       int client_fd, int *status_out, cp_error_t *err);

/* doctor --place ssh:HOST. */
int cp_ssh_check(const char *place, const struct cp_config *cfg, cp_error_t *err);

#endif
