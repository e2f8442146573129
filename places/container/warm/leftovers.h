/* Boxes, sidecars and networks a crash left behind. */
#ifndef CONCH_LEFTOVERS_H
#define CONCH_LEFTOVERS_H

#include <stdbool.h>

#include "places/container/engine/engine.h"
/* Removes conch boxes whose owner process is gone, and unclaimed warm boxes that have left
 * (or never started); with all_warm, every unclaimed warm box of this CONCH_HOME's pools.
 * *removed_out (may be NULL) counts them. A live run's box is never touched. */
int cp_leftovers_sweep(struct cp_engine *e, bool all_warm, int *removed_out, cp_error_t *err);

/* The sweep above on every engine that answers (a crash may have used either), then the keyless
 * copies whose run is gone; after a run, in a process of its own (behind.h). One such sweep at a
 * time per person. */
void cp_leftovers_sweep_now(void);

#endif
