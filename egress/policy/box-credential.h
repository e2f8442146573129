/* The per-box proxy credential.
 *
 * Scheme: the sidecar has a secret of at least 32 bytes: the sidecar conch-place starts gets
 * it with its keys on standard input (keys-message.h; conch-place makes it as HMAC-SHA256 of the
 * sidecar's id under its CA, sidecar-keys.c), a proxy run by hand from CONCH_EGRESS_SECRET;
 * never on the command line, which other processes can read, nor in the environment of a box
 * the engine keeps, which `inspect` shows. A box's credential is user = its box id
 * ([A-Za-z0-9_.-], 1 to 64 bytes) and password = lower-case hex of HMAC-SHA256(secret, box id),
 * sent as `Proxy-Authorization: Basic base64(box:token)`; conch-place puts it in the box's
 * HTTP_PROXY=http://BOX:TOKEN@SIDECAR_IP:3128. A sidecar shared by many boxes thus learns no
 * list of boxes, and no box can speak for another. Without a secret (the proxy used on its
 * own) the credential is optional and the box id it names is logged unverified. */
#ifndef CONCH_EGRESS_BOX_CREDENTIAL_H
#define CONCH_EGRESS_BOX_CREDENTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "egress/egress.h"
#include "src/base/error.h"

#define CP_EGRESS_SECRET_MIN 32
#define CP_EGRESS_BOX_MAX    64

bool cp_egress_box_id_valid(const char *box);

/* Checks a Proxy-Authorization value. box_out always receives the box id the header claims
 * (or "" when it names none), so a refusal can still be told to the right box. With secret
 * NULL any well-formed claim (or none) passes. The token is compared in constant time. */
bool cp_egress_auth_check(const char *secret, const char *header,
                          char box_out[CP_EGRESS_BOX_MAX + 1]);

#endif
