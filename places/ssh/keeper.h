/* The ssh keeper's entry, for the `ssh-keeper` command: the one part of the ssh place a command
 * outside it may call (the rest is the place's own). */
#ifndef CONCH_SSH_KEEPER_H
#define CONCH_SSH_KEEPER_H

#include "src/base/error.h"

/* `conch-place ssh-keeper HOST`: connects, then serves runs until idle. */
int cp_ssh_keeper_main(const char *alias, cp_error_t *err);

#endif
