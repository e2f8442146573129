/* The sign-ins' second door, for an engine whose attach cannot keep a box's standard input open
 * (Podman 4 closes it when the first attach ends): an abstract unix socket in the sidecar's own
 * network namespace, which no box shares (a box's namespace is its own; abstract names do not
 * cross namespaces), taking connections only from the proxy's own user. conch-place reaches it
 * by running `conch-place egress-sign-ins` in the sidecar through the engine's exec API, with
 * the message on that process's standard input. Each connection carries one message (sign-ins
 * .h, or the sidecar's keys, keys-message.h), read as the standard input's are (sign-ins-feed.h),
 * and gets the answer back. */
#ifndef CONCH_EGRESS_SIGN_INS_DOOR_H
#define CONCH_EGRESS_SIGN_INS_DOOR_H

#include <stdio.h>

#include "egress/sign-ins/sign-ins-table.h"
#include "src/base/error.h"

#define CP_EGRESS_SIGN_INS_DOOR_NAME "conch-place/sign-ins" /* abstract: no file anywhere */
#define CP_EGRESS_SIGN_INS_DOOR_MS   5000                   /* a connection's whole time */
/* For a door not bound yet: a sidecar just started. */
#define CP_EGRESS_SIGN_INS_DOOR_WAIT_MS 25000

/* Binds the door and serves it from a thread of its own for the process's life. */
int cp_egress_sign_ins_door_open(struct cp_egress_sign_ins_holder *table, FILE *log,
                                 cp_error_t *err);

/* The other side: sends line (one message ending in '\n') through the door and copies the
 * answer to out_fd. A door not bound yet (a sidecar just started) is waited for, up to
 * CP_EGRESS_SIGN_INS_DOOR_WAIT_MS. */
int cp_egress_sign_ins_door_send(const char *line, size_t len, int out_fd, cp_error_t *err);

#endif
