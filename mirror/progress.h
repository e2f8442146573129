/* A progress line for long transfers (issue 13): drawn on standard error only when it is a
 * terminal and the transfer passes about 20 MB; otherwise nothing, and -v keeps its timings. */
#ifndef CONCH_MIRROR_PROGRESS_H
#define CONCH_MIRROR_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define CP_PROGRESS_MIN (20ULL * 1000 * 1000)

struct cp_progress {
    const char *what; /* "sending", "bringing back" */
    uint64_t total, done;
    bool on;
    int64_t last_ms;
};

/* fd: where the line would go (standard error); on only for a terminal and a large total. */
void cp_progress_begin(struct cp_progress *p, int fd, const char *what, uint64_t total);
void cp_progress_add(struct cp_progress *p, uint64_t n);
/* Clears the line. */
void cp_progress_end(struct cp_progress *p);

#endif
