/* What a sync says to the person: one line for each refusal, conflict or file left behind,
 * and the counts at the end. */
#ifndef CONCH_MIRROR_EVENT_LINES_H
#define CONCH_MIRROR_EVENT_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct cp_mirror_report {
    void (*say)(void *ctx, const char *line); /* NULL: conch-place's own stderr words */
    void *ctx;
    size_t sent, deleted_there, landed, deleted_here, conflicts, refused, not_carried;
    size_t links, dep_folders, protected_places, lines;
    /* Host-run files refused: told in one line at the end (cp_report_host_run_said), not one
     * line each. The first few names, escaped, and how many in all. */
    char *host_run_names;
    size_t host_run;
    bool python_start; /* one of them is Python's start-up code in an environment */
};

/* Notes one host-run file refused (path as it came; escaped here). */
void cp_report_host_run(struct cp_mirror_report *rep, const char *path);
/* The one line for the host-run files refused, if any, ending with how to take them; then
 * forgets them. */
void cp_report_host_run_said(struct cp_mirror_report *rep, const char *how_to_take);
/* Frees what the report holds. */
void cp_report_dispose(struct cp_mirror_report *rep);

/* Says one line; names in it must already be escaped (cp_escape). */
void cp_report(struct cp_mirror_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
