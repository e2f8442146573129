/* The egress sidecar's image: made from the running binary and the libraries it links, named
 * after the binary's digest so a rebuilt conch-place never runs an older proxy (made by
 * cp_egress_image_build, in container.h). */
#ifndef CONCH_EGRESS_IMAGE_H
#define CONCH_EGRESS_IMAGE_H

#include "places/container/container.h"
#include "places/container/engine/engine.h"
#define CP_IMAGE_EGRESS_REPO "conch-place/egress"

/* "conch-place/egress:<12 hex digits of the binary's SHA-256>"; the caller's. */
int cp_egress_image_name(char **out, cp_error_t *err);

/* Its name, made first if the engine does not have it ("also done on first need"). */
int cp_egress_image_ensure(struct cp_engine *e, char **name_out, cp_error_t *err);

#endif
