/* A folder's internal network, made the way each engine needs (sidecar-network.c's opening
 * says what seals it). */
#ifndef CONCH_SIDECAR_NETWORK_H
#define CONCH_SIDECAR_NETWORK_H

#include "places/container/engine/engine.h"
#include "places/container/seal/sidecar-names.h"
#include "src/base/error.h"

/* Finds the network n names, or makes it (room made first by a clean when the engine has no
 * address pool left); either way it must be internal, ours, and hold no address of this
 * computer, else it is never joined and the error says why and what to do. */
int cp_sidecar_network_ensure(struct cp_engine *e, const struct cp_sidecar_names *n,
                              cp_error_t *err);

#endif
