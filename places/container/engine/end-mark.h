/* The mark a stdin-exec warm box's shell writes on each of its output streams once the command
 * has exited: RS "conch-end " NONCE " " STATUS RS, STATUS three digits. Read out of the output,
 * it ends the run as soon as the box's own first process has ended too (box-pidfd.h), where an
 * engine's end of the attach stream waits for its whole teardown (Docker: ~85 ms). */
#ifndef CONCH_END_MARK_H
#define CONCH_END_MARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 32 hex digits, fresh per run: output that merely looks like a mark is not one. */
#define CP_END_NONCE_LEN 32

struct cp_end_mark {
    char want[64]; /* RS "conch-end " NONCE " " */
    size_t want_len;
    uint8_t held[80]; /* the bytes matched so far, held back from the output */
    size_t matched;
    bool seen;  /* a whole mark was read */
    int status; /* its status, 0..255 */
};

/* Where the bytes that are not the mark go: 0, or -1 with errno. */
typedef int (*cp_end_mark_out)(void *ctx, const uint8_t *data, size_t len);

void cp_end_mark_init(struct cp_end_mark *m, const char *nonce);

/* Passes data on to out, less any mark (which may arrive in pieces: a prefix of one is held
 * until it is told apart). 0, or -1 when out failed. */
int cp_end_mark_scan(struct cp_end_mark *m, const uint8_t *data, size_t len, cp_end_mark_out out,
                     void *ctx);

/* At the stream's end: held bytes that never became a mark are output after all. */
int cp_end_mark_finish(struct cp_end_mark *m, cp_end_mark_out out, void *ctx);

#endif
