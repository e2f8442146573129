/* A sandbox's home folder, asked of its toolbox once and kept here by the sandbox's id: a run
 * after the first saves that request. */
#ifndef CONCH_SANDBOX_HOME_H
#define CONCH_SANDBOX_HOME_H

#include "places/cloud/toolbox.h"
#include "src/base/error.h"

/* The home of sandbox id (an absolute path, the caller's): the one kept, else the toolbox's,
 * then kept. A kept one that is not an absolute path on one line is asked again. */
int cp_sandbox_home(struct cp_toolbox *t, const char *id, char **out, cp_error_t *err);

#endif
