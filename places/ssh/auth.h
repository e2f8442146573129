/* The login (auth.c): the agent, then key files that need no passphrase; never a prompt. */
#ifndef CONCH_SSH_AUTH_H
#define CONCH_SSH_AUTH_H

#include "places/ssh/config-host.h"
#include "src/base/error.h"

struct cp_ssh_session;

/* CP_ERR_DENIED with a hint when nothing is accepted. */
int ssh_authenticate(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err);

#endif
