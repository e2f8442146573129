/* The sidecar's keys (issue 36): the CA it signs with (certificate and private key, PEM), the
 * secret every box's proxy credential is derived from (box-credential.h), and the upstream proxy
 * (its URL may hold a password). conch-place hands them to a sidecar it started as a message on the
 * sign-in channel (sign-ins-feed.h: standard input through the engine's attach, or the door of
 * sign-ins-door.h), never in its environment, argv, labels or a volume: the engine keeps all of
 * those in the box's config, which `inspect` shows to anyone who may use the engine and which
 * the engine writes to its own state on disk. One line of JSON:
 *
 *   {"id":"HEX","keys":{"secret":"HEX","ca":"PEM","https_proxy":"URL","no_proxy":"LIST"}}
 *
 * https_proxy and no_proxy may be left out. A proxy started with --keys-stdin serves nothing
 * before the keys come and leaves, saying why, when they do not come within
 * CP_EGRESS_KEYS_WAIT_MS. Once it has them, a message with the same keys is answered again
 * (a run that cannot tell whether a sidecar has them sends them) and one with others is
 * refused: a sidecar's keys never change. The answer is "keys ID\n" where sign-ins' answers go.
 * Every copy of a value that this file makes or json-c makes for it is wiped. */
#ifndef CONCH_EGRESS_KEYS_MESSAGE_H
#define CONCH_EGRESS_KEYS_MESSAGE_H

#include <stddef.h>
#include <stdio.h>

#include "egress/egress.h"
#include "egress/sign-ins/sign-ins-table.h"
#include "src/base/error.h"

#define CP_EGRESS_KEYS_WAIT_MS 60000
/* 1 with *out and id_out filled when line (no newline) is a keys message, 0 when it is not one
 * (no "keys" member: a sign-ins message), or an error that names the field, never a value. */
int cp_egress_keys_parse(const char *line, size_t len, struct cp_egress_keys *out,
                         char id_out[CP_EGRESS_SIGN_INS_ID_MAX + 1], cp_error_t *err);

/* The proxy's side. Expect installs the sign-in feed's hook for keys messages for the process's
 * life, before the door opens; wait then reads the channel fd (sign-ins that come meanwhile
 * go into table) and the door until the first keys come, at most ms: *out is the caller's. A
 * signal (SIGTERM from the engine) ends the wait with CP_ERR_INTERRUPTED. */
int cp_egress_keys_expect(cp_error_t *err);
int cp_egress_keys_wait(int fd, struct cp_egress_sign_ins_holder *table, FILE *log, int ms,
                        struct cp_egress_keys *out, cp_error_t *err);

#endif
