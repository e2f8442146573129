/* The container place's allow-list part, as the rest of the place sees it: the folder's
 * allow-list (the built-in registries and git hosts, the folder's remotes, config.json's
 * entries), the settings files it reads hosts and sign-ins from, and the sign-ins the sidecar
 * adds on the way out (read from the person's own files, never put in a box). */
#ifndef CONCH_ALLOW_H
#define CONCH_ALLOW_H

#include "places/container/allow/allowlist.h"
#include "places/container/allow/hostconf.h"
#include "places/container/allow/registries.h"
#include "places/container/allow/settings-sources.h"
#include "places/container/allow/sign-ins.h"

#endif
