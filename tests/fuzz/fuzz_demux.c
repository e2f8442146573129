/* Fuzz target: the engine's multiplexed attach stream, split at every point the input says,
 * with the init-report sniffing in front of standard error and, when the first byte is odd, a
 * warm box's end marks read out of both streams (nonce 0123...). */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "places/container/engine/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int null_fd = -1;
    if (null_fd < 0)
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (size < 1)
        return 0;
    /* The first byte picks where the stream is cut in two reads. */
    size_t cut = size > 1 ? data[0] % size : 0;
    struct cp_demux d;
    cp_demux_init(&d, null_fd, null_fd);
    struct cp_end_mark marks[2];
    cp_end_mark_init(&marks[0], "0123456789abcdef0123456789abcdef");
    cp_end_mark_init(&marks[1], "0123456789abcdef0123456789abcdef");
    if (data[0] & 1)
        d.marks = marks;
    if (cp_demux_feed(&d, data + 1, cut > 0 ? cut - 1 : 0) == 0 &&
        cp_demux_feed(&d, data + (cut > 0 ? cut : 1), size - (cut > 0 ? cut : 1)) == 0)
        cp_demux_finish(&d);
    if (d.held_len > sizeof(d.held))
        abort();
    if (d.launch_status != 0 && d.launch_status != 126 && d.launch_status != 127)
        abort();
    for (int i = 0; i < 2; i++)
        if (marks[i].matched != 0 || marks[i].status < 0 || marks[i].status > 255)
            abort();
    return 0;
}
