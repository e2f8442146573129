/* What the sidecar signs with and what a sealed box trusts (issue 18). The sidecar ends each
 * tunnel's TLS with certificates it mints from a CA of conch-place's own: its key lives in
 * $CONCH_HOME/egress/ca.pem (0600, the person's) and in the sidecar's memory, never in a box
 * nor in the sidecar's config (it comes with the sidecar's keys: sidecar-keys.c).
 * The box trusts that CA through a bundle of its image's own roots plus the CA's certificate,
 * bound read-only over the image's bundle paths, and the variables the usual clients read. */
#ifndef CONCH_EGRESS_TRUST_H
#define CONCH_EGRESS_TRUST_H

#include "places/container/engine/engine.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* The sidecar's CA, its certificate then its key (PEM), made on first use. Refused when the file
 * is not the person's own or others may read it: its key may then be known. *pem_out is the
 * caller's (cp_free_secret). */
int cp_egress_ca_from_home(char **pem_out, cp_error_t *err);

/* The box's bundle for an image and a CA: a file of ours (made once per image and CA) holding
 * the image's own roots and the CA's certificate, and the image's bundle paths it covers
 * (CP_BOX_CA_BUNDLE first, always). Both are the caller's. */
int cp_egress_box_bundle(struct cp_engine *e, const char *image_id, const char *ca_pem,
                         char **file_out, char ***paths_out, cp_error_t *err);

/* egress.ca_file's certificates (every other block, a private key say, left out: they go to
 * the sidecar's environment, which the engine shows), checked to hold one, or NULL when it is
 * not set. *out is the caller's. */
int cp_egress_extra_trust(const struct cp_config *cfg, char **out, cp_error_t *err);

#endif
