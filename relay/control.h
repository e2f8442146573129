/* The door's control socket: where `relay ticket` asks for a ticket. A unix socket in a folder
 * only its user can enter (0700, checked), the socket 0600, and each side checks the other's
 * uid with SO_PEERCRED. The port is loopback and open to anyone on this computer; this socket
 * is the person's alone, and it is the only way to mint. */
#ifndef CONCH_RELAY_CONTROL_H
#define CONCH_RELAY_CONTROL_H

#include <stdbool.h>
#include <sys/types.h>

#include "relay/tickets.h"
#include "src/base/buf.h"
#include "src/base/error.h"

/* A message: the command and its arguments, whole. A command past it is refused with words
 * when the ticket is minted; no argument is ever left out to make it fit. */
#define CP_RELAY_MSG_MAX (256 * 1024)

/* $CONCH_HOME/workplaces/relay, made 0700 and checked to be ours and closed to others. */
int cp_relay_dir(char **out, cp_error_t *err);
/* The socket of this folder's door: <dir>/<cp_folder_key(real folder)><suffix>. */
int cp_relay_folder_path(const char *real_folder, const char *suffix, char **out, cp_error_t *err);

/* One message (src/base/unix-msg.h: a 4-byte length, then NUL-separated strings), at most
 * CP_RELAY_MSG_MAX bytes, each piece within the control socket's wait. */
int cp_relay_msg_recv(int fd, struct cp_buf *out);
/* The same, waiting first_wait_ms (-1: as long as it takes) for the message to begin. */
int cp_relay_msg_recv_wait(int fd, struct cp_buf *out, int first_wait_ms);
/* cp_unix_msg_split, by the name `relay exec` (src/cmd-relay.c) knows it. */
ssize_t cp_relay_msg_split(const struct cp_buf *b, const char ***out);

/* The message that hands a run its place, folder and command (the door to `relay exec`):
 * whole, or an error saying the command is too long. Minting builds it first, so a ticket
 * that could not be carried whole is never handed out. */
int cp_relay_run_msg(const char *place, const char *workdir, char *const *argv, struct cp_buf *out,
                     cp_error_t *err);

/* What the door answers a mint with. */
struct cp_relay_door_info {
    unsigned port;
    const char *place;
    const char *workdir;
    struct cp_tickets *tickets;
};

/* Serves one control connection (already accepted and checked): reads a request, answers. */
void cp_relay_control_serve(int fd, const struct cp_relay_door_info *door);

/* A "no" answer's bytes, length first, for a control connection turned away; its length. */
size_t cp_relay_control_refusal(char *out, size_t size, const char *reason);

/* The client: asks the door at socket_path for a ticket; the runner's URL into *out. folder,
 * when given, must be the door's own. */
int cp_relay_mint(const char *socket_path, const char *folder, long ttl, char *const *argv,
                  char **out, cp_error_t *err);

#endif
