/* The runner's framed form of a run's answer: the command's two streams kept apart and its
 * status in a frame of its own. A frame is one type byte, a 4-byte big-endian length, then
 * that many bytes:
 *   'O' standard output   'E' standard error   (at most CP_FRAME_MAX bytes each)
 *   'X' the exit status, as 1 to 3 decimal digits (0..255): the last frame
 *   'F' the door's own words when it could not run the command (the runner then exits 125)
 * Anything else, or a frame over the bound, is malformed: the runner stops and exits 125. */
#ifndef CONCH_RELAY_FRAMES_H
#define CONCH_RELAY_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#define CP_FRAME_MAX  65536
#define CP_FRAME_HEAD 5

enum cp_frame_type {
    CP_FRAME_OUT = 'O',
    CP_FRAME_ERR = 'E',
    CP_FRAME_EXIT = 'X',
    CP_FRAME_FAIL = 'F',
};

/* Writes a frame's head for len bytes of type into head. */
void cp_frame_head(char head[CP_FRAME_HEAD], enum cp_frame_type type, size_t len);

/* Reads frames from a byte stream fed in pieces of any size. */
struct cp_frame_reader {
    uint8_t head[CP_FRAME_HEAD];
    size_t head_have;
    enum cp_frame_type type;
    size_t want; /* payload bytes left of the current frame */
    char small[CP_FRAME_MAX + 1];
    size_t small_len; /* 'X' and 'F' payloads are gathered whole */
    int status;       /* -1 until an 'X' frame; then 0..255 */
    char fail[CP_FRAME_MAX + 1];
    int failed; /* an 'F' frame was read */
};

/* Called for each piece of an 'O' or 'E' payload as it arrives. */
typedef void (*cp_frame_sink)(enum cp_frame_type type, const char *data, size_t len, void *ctx);

void cp_frame_reader_init(struct cp_frame_reader *r);
/* Feeds len bytes; 0, or -1 on a malformed stream (an unknown type, a frame over the bound,
 * a bad status, or bytes after the status). */
int cp_frame_feed(struct cp_frame_reader *r, const char *data, size_t len, cp_frame_sink sink,
                  void *ctx);

#endif
