/* The mirror: before a command, what changed here goes there; after it, what changed there
 * comes back, deletions included, landing only where it is safe (DESIGN.md). The ssh and
 * cloud places call these two functions with their transport. */
#ifndef CONCH_MIRROR_MIRROR_H
#define CONCH_MIRROR_MIRROR_H

#include <stdint.h>

#include "mirror/listing.h"
#include "mirror/report.h"
#include "mirror/rules.h"
#include "mirror/transport.h"
#include "src/base/error.h"

struct cp_mirror_opts {
    int rootfd;                   /* the work folder, opened once for the whole run (case 30) */
    const char *far_root;         /* the far copy's folder, as the far shell names it */
    const char *manifest_path;    /* cp_manifest_path(place, chat) */
    const struct cp_rules *rules; /* NULL: the default protected places */
    struct cp_limits limits;      /* zeros: 50,000 files, 1 GB */
    uint64_t max_pull_bytes;      /* zero: 512 MB */
};

/* Sends what changed here since the manifest, and the deletions; records the far side's
 * state right after, which the pull compares against. */
int cp_mirror_push(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err);

/* Brings back what changed there since the push, and applies the deletions, only after the
 * whole archive arrived and the far side said it succeeded. */
int cp_mirror_pull(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err);

#endif
