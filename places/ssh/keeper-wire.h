/* What the keeper (keeper.c) and its client (keeper-client.c) share: the socket's
 * place and the messages between them. Not for other modules. */
#ifndef CONCH_SSH_KEEPER_INT_H
#define CONCH_SSH_KEEPER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/un.h>

#include "places/ssh/config-host.h"
#include "src/base/buf.h"

#define KEEPER_MAX_MSG (1024 * 1024)

/* The socket's path (suffix ".sock") or its lock's (".lock"): one keeper per host as resolved
 * now, per home and conch home, in a folder only this user can enter. NULL: no such folder. */
char *cp_ssh_keeper_path(const struct cp_ssh_host *h, const char *suffix);
/* The other end of fd runs as this user. */
bool cp_ssh_keeper_peer_ok(int fd);
struct sockaddr_un cp_ssh_keeper_addr(const char *path);
/* Appends s and its NUL to b. */
void cp_ssh_keeper_put(struct cp_buf *b, const char *s);
/* One message: a 4-byte length, then the bytes; fds ride on the length when given. */
int cp_ssh_keeper_send(int fd, const struct cp_buf *b, const int *fds, size_t nfds);
/* Reads one message (and up to 3 fds) into *out, NUL-separated strings. */
int cp_ssh_keeper_recv(int fd, struct cp_buf *out, int *fds, size_t *nfds);
/* The strings of a message, at most max of them; how many there were. */
size_t cp_ssh_keeper_split(const struct cp_buf *b, const char **v, size_t max);

#endif
