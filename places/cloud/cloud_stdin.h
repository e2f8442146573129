/* -i in the cloud place: standard input and output streamed both ways at once, in bounded
 * chunks through the files API (cloud_stdin.c says why not the session's input route). */
#ifndef CONCH_CLOUD_STDIN_H
#define CONCH_CLOUD_STDIN_H

#include "mirror/mirror.h"
#include "places/cloud/toolbox.h"
#include "src/base/error.h"

/* Runs x->argv in x->far_root through session sid, in_fd fed to it and its output written to
 * out_fd and err_fd as it comes; io is a fresh far folder for the chunks. The run's lease is
 * renewed (cp_far_lock_renew) every 30 s. *status_out: the command's; CP_ERR_INTERRUPTED when a
 * signal came (the caller deletes the session). */
int cp_cloud_run_streamed(struct cp_toolbox *tb, const char *sid, const char *io,
                          const struct cp_far_exec *x, int in_fd, int out_fd, int err_fd,
                          int *status_out, cp_error_t *err);

#endif
