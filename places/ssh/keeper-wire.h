/* What the keeper (keeper.c) and its client (keeper-client.c) share: the socket's place and
 * the bound of the messages between them (src/base/unix-msg.h: length-prefixed NUL-terminated
 * strings, the run's standard streams riding on the request). Not for other modules. */
#ifndef CONCH_SSH_KEEPER_WIRE_H
#define CONCH_SSH_KEEPER_WIRE_H

#include "places/ssh/config-host.h"

#define KEEPER_MAX_MSG (1024 * 1024)

/* The socket's path (suffix ".sock") or its lock's (".lock"): one keeper per host as resolved
 * now, per home and conch home, in a folder only this user can enter. NULL: no such folder,
 * or a path too long for a socket. */
char *cp_ssh_keeper_path(const struct cp_ssh_host *h, const char *suffix);

#endif
