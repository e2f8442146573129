/* The files of a work folder (here) or of its far copy (there), with what marks a change. */
#ifndef CONCH_MIRROR_LISTING_H
#define CONCH_MIRROR_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mirror/event-lines.h"
#include "mirror/rules.h"
#include "src/base/error.h"

/* What says a file changed: any field differing. Far side: ino is 0 (its stat output has
 * none we trust across tools); ctime catches a rewrite that kept size and mtime. */
struct cp_sig {
    uint64_t size;
    int64_t mtime_ns;
    int64_t ctime_ns;
    uint64_t ino;
    uint32_t mode; /* permission bits only */
};

struct cp_entry {
    char *path; /* relative, canonical: no "./", no trailing slash */
    struct cp_sig sig;
    uint64_t dev; /* here: to check a file is the one listed when it is read */
};

struct cp_listing {
    struct cp_entry *v;
    size_t n, cap;
    uint64_t bytes;
};

struct cp_limits {
    size_t max_files;   /* over this, the folder is refused (DESIGN.md: 50,000) */
    uint64_t max_bytes; /* over this, the folder is refused (DESIGN.md: 1 GB = 2^30 bytes) */
};

#define CP_MAX_FILES 50000
#define CP_MAX_BYTES (1024ULL * 1024 * 1024)

void cp_listing_dispose(struct cp_listing *l);
#define cleanup_listing __attribute__((cleanup(cp_listing_dispose)))

bool cp_sig_equal(const struct cp_sig *a, const struct cp_sig *b);

/* Lists the plain files under rootfd without following a link: dependency folders,
 * protected places, links and other mount points are left out and counted in rep. */
int cp_listing_local(int rootfd, const struct cp_rules *rules, const struct cp_limits *lim,
                     struct cp_listing *out, struct cp_mirror_report *rep, cp_error_t *err);

/* Parses the far listing script's output (far/common.sh, cp_list). Hostile input: every
 * name is kept as given; whoever asks for one judges it first (cp_rules_check), and the
 * landing judges it again. */
int cp_listing_parse_far(const char *data, size_t len, size_t max_files, struct cp_listing *out,
                         cp_error_t *err);

const struct cp_entry *cp_listing_find(const struct cp_listing *l, const char *path);

#endif
