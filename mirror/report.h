/* What a sync says to the person: one line for each refusal, conflict or file left behind,
 * and the counts at the end. */
#ifndef CONCH_MIRROR_REPORT_H
#define CONCH_MIRROR_REPORT_H

#include <stddef.h>

struct cp_mirror_report {
    void (*say)(void *ctx, const char *line); /* NULL: conch-place's own stderr words */
    void *ctx;
    size_t sent, deleted_there, landed, deleted_here, conflicts, refused, not_carried;
    size_t links, dep_folders, protected_places, lines;
};

/* Says one line; names in it must already be escaped (cp_escape). */
void cp_report(struct cp_mirror_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
