/* A progress line on standard error for work that takes long (image builds; pushes and pulls
 * later): drawn only when standard error is a terminal and -v is off, redrawn in place at most
 * ten times a second, and wiped when the work ends. Elsewhere it draws nothing: logs and pipes
 * stay quiet, and -v keeps its timed lines. */
#ifndef CONCH_PROGRESS_H
#define CONCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct cp_progress {
    bool on;
    int fd;                        /* standard error, or a test's */
    char what[96];                 /* "making conch-place/work:bookworm" */
    char step[64];                 /* "sending it to docker" */
    char note[96];                 /* the last line a child wrote, shortened */
    uint64_t done, total;          /* bytes; total 0 when unknown */
    int64_t start_ns, drawn_at_ns; /* cp_now_ns() */
    bool drawn;
};

/* Starts: on when fd is a terminal and -v is off. */
void cp_progress_begin(struct cp_progress *p, int fd, const char *what);
/* A new step, with its size in bytes when known (else 0); done starts again from 0. */
void cp_progress_step(struct cp_progress *p, const char *step, uint64_t total);
void cp_progress_add(struct cp_progress *p, uint64_t bytes);
/* A short note after the step (the last line of a child's output); control bytes dropped. */
void cp_progress_note(struct cp_progress *p, const char *note);
/* Redraws now if a tenth of a second has passed (for a spinner-less wait). */
void cp_progress_tick(struct cp_progress *p);
/* Wipes the line. */
void cp_progress_end(struct cp_progress *p);

/* The line as it would be drawn, without the terminal's codes (for tests). */
void cp_progress_format(const struct cp_progress *p, double elapsed_s, char *out, size_t len);

#endif
