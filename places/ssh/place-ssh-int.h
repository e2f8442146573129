/* What the ssh place's files share: its run, its doctor. Not for other modules. */
#ifndef CONCH_PLACE_SSH_INT_H
#define CONCH_PLACE_SSH_INT_H

#include "places/ssh/ssh_config.h"
#include "places/ssh/ssh_session.h"
#include "src/error.h"
#include "src/settings.h"

/* `exec /bin/sh -c SCRIPT NAME ARGS...` quoted for the far login shell. *out is the caller's. */
char *cp_ssh_shell_command(const char *script, const char *name, char *const *args);

/* name as one far path component: itself when plain (letters, digits, '.', '_', '-', not
 * starting with '.'), else fallback-HASH. */
char *cp_ssh_far_component(const char *name, const char *fallback);

/* cp_ssh_connect, with the next step set for each way a connection fails: the name not
 * found, refused, no answer in time. */
int cp_ssh_connect_words(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                         struct cp_ssh_session **out, cp_error_t *err);

/* doctor --place ssh:HOST. */
int cp_ssh_check(const char *place, const struct cp_config *cfg, cp_error_t *err);

#endif
