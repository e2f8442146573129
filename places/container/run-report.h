/* The container place's one-line hooks into the run report (src/base/report.h). */
#ifndef CONCH_CONTAINER_RUN_REPORT_H
#define CONCH_CONTAINER_RUN_REPORT_H

#include <stdbool.h>

#include "places/container/engine/engine.h"
#include "places/container/seal/seal.h"

/* The engine, its socket, the image and its id, and whether the box is sealed. */
void cp_container_report_engine(const struct cp_engine *e, const char *image, const char *image_id,
                                bool sealed);
/* The box's id and its seal as the engine applied it (its inspect; variable names only). */
void cp_container_report_box(struct cp_engine *e, const char *id, const char *holder_id,
                             const char *limits_missing);
/* After the command: the allow-list's hash and hosts, and the hosts the sidecar refused for
 * this box with the proxy's reasons. */
void cp_container_report_seal(struct cp_engine *e, const struct cp_seal *seal, int status);

#endif
