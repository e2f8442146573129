/* Fuzz target: one line of Docker's events stream, read for a box's die event and its exit
 * code (places/container/engine/exit-event.c). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "places/container/engine/exit-event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int status = -1;
    int r = cp_exit_event_parse((const char *)data, size, "4f1c0ffee", &status);
    if (r != 0 && (r != 1 || status < 0 || status > 255))
        abort();
    return 0;
}
