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

#endif
