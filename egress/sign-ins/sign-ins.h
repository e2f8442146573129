/* The sign-in channel, as the rest of the sidecar sees it: the sign-ins table a message makes
 * and the holder requests take it from (sign-ins-table.h), the channel's reader on standard
 * input (sign-ins-feed.h) and its second door (sign-ins-door.h), the keys message that comes
 * first on it (keys-message.h), and the scrubber that takes a sign-in's words out of a host's
 * answers (scrub.h). The only header of this folder that other parts of egress/ include. */
#ifndef CONCH_EGRESS_SIGN_INS_H
#define CONCH_EGRESS_SIGN_INS_H

#include "egress/sign-ins/keys-message.h"
#include "egress/sign-ins/scrub.h"
#include "egress/sign-ins/sign-ins-door.h"
#include "egress/sign-ins/sign-ins-feed.h"
#include "egress/sign-ins/sign-ins-table.h"

#endif
