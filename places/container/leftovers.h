/* Boxes, sidecars and networks a crash left behind. */
#ifndef CONCH_LEFTOVERS_H
#define CONCH_LEFTOVERS_H

#include <stdbool.h>

#include "places/container/engine.h"

/* Removes conch boxes whose owner process is gone; with all_warm, warm boxes too.
 * *removed_out (may be NULL) counts them. A live run's box is never touched. */
int cp_leftovers_sweep(struct cp_engine *e, bool all_warm, int *removed_out, cp_error_t *err);

#endif
