/* `git credential fill` on this computer, for the sign-in the sidecar adds to a remote's
 * fetches: never a prompt, never a terminal, never the work folder's own git settings. */
#ifndef CONCH_GIT_CREDENTIAL_H
#define CONCH_GIT_CREDENTIAL_H

#include "src/base/error.h"

#define CP_GIT_CREDENTIAL_WAIT_MS 10000 /* a helper that waits for a person gets no longer */

/* The username and password git's helpers give for https://host/path. No credential (git
 * fails, or gives no password) is 0 with both NULL. CP_ERR_TIMEOUT when git took longer than
 * wait_ms (it and its helpers are killed); CP_ERR_FAILED when git cannot be run. *user_out
 * and *password_out: cp_free_secret. Neither ever reaches an argv, a log or an error. */
int cp_git_credential_fill(const char *host, const char *path, int wait_ms, char **user_out,
                           char **password_out, cp_error_t *err);

#endif
