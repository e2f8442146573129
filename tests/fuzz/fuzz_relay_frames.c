/* Fuzz target: the runner's frame reader, fed what the door's port answers (which could be
 * anything listening there). The payload handed on never exceeds what came in, a status is
 * 0..255, and nothing is read past the status. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "relay/frames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(enum cp_frame_type type, const char *d, size_t len, void *ctx)
{
    (void)d;
    if (type != CP_FRAME_OUT && type != CP_FRAME_ERR)
        abort();
    *(size_t *)ctx += len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cp_frame_reader r;
    cp_frame_reader_init(&r);
    size_t got = 0;
    /* fed in two pieces, as a socket would split it */
    size_t cut = size > 0 ? data[0] % (size + 1) : 0;
    int rc = cp_frame_feed(&r, (const char *)data, cut, count, &got);
    if (rc == 0)
        rc = cp_frame_feed(&r, (const char *)data + cut, size - cut, count, &got);
    if (got > size || r.status > 255 || r.status < -1)
        abort();
    return 0;
}
