/* The checked landing: files coming back from the far side land only under DESIGN.md's rules
 * (abuse-cases.md I1-I9). Nothing lands until the whole archive has arrived. */
#ifndef CONCH_MIRROR_LANDING_H
#define CONCH_MIRROR_LANDING_H

#include <archive.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "mirror/event-lines.h"
#include "mirror/listing.h"
#include "mirror/rules.h"
#include "src/base/error.h"

/* 512 MB = 2^29 bytes of file data, counted as delivered; exactly that much is allowed. */
#define CP_LAND_MAX_BYTES (512ULL * 1024 * 1024)
/* Refused entries tolerated before the whole archive is; bounds a stream of junk headers. */
#define CP_LAND_MAX_REFUSED 1000

enum cp_land_outcome {
    CP_LAND_PENDING = 0, /* asked for, not (yet) sent */
    CP_LAND_STAGED,      /* arrived whole, waiting for the commit */
    CP_LAND_LANDED,      /* in place under its own name */
    CP_LAND_BESIDE,      /* changed here too: landed beside the local file, under `beside` */
    CP_LAND_REFUSED,     /* refused, and said so */
};

/* One name asked for. The caller fills path and expect*; the landing fills the rest. */
struct cp_ask {
    const char *path;     /* the exact name, byte for byte (I2) */
    bool expect_present;  /* the local file existed at the last sync ... */
    struct cp_sig expect; /* ... with this signature; anything else here is a local change */
    int outcome;
    struct cp_sig landed; /* the local file after landing */
    char *beside;         /* the name used for a conflict (owned) */
    unsigned seen;
    int64_t mtime_ns;
    uint32_t mode;
    char tmp[24];
};

struct cp_landing {
    int rootfd; /* borrowed: the work folder, opened once before anything came back */
    uint64_t dev;
    const struct cp_rules *rules;
    uint64_t max_bytes;
    struct cp_ask *asks; /* borrowed; sorted by path at begin */
    size_t n;
    struct cp_mirror_report *rep;
    int stagefd;
    char stage_name[64];
    uint64_t bytes;
    size_t entries, refused;
};

/* Opens a staging folder inside the work folder (so the final rename stays on one file
 * system) and checks each asked name by the rules before anything is read. */
int cp_landing_begin(struct cp_landing *l, int rootfd, struct cp_ask *asks, size_t n,
                     const struct cp_rules *rules, uint64_t max_bytes, struct cp_mirror_report *rep,
                     cp_error_t *err);
/* Reads the whole archive, staging each acceptable entry. Refusals are reported and read
 * on; a damaged archive, too many refusals or too many bytes fail the whole landing. */
int cp_landing_read(struct cp_landing *l, struct archive *a, cp_error_t *err);
/* Moves every staged file into place: call only once the archive ended cleanly and the far
 * side reported success (I9). */
int cp_landing_commit(struct cp_landing *l, cp_error_t *err);
/* Removes what is still staged and the staging folder. */
void cp_landing_dispose(struct cp_landing *l);
#define cleanup_landing __attribute__((cleanup(cp_landing_dispose)))

/* Deletes path only if it is a plain, singly linked file inside the work folder whose
 * signature is still `expect`. 1: deleted; 0: refused (said) or already gone; <0: failure. */
int cp_landing_delete(int rootfd, const struct cp_rules *rules, const char *path,
                      const struct cp_sig *expect, struct cp_mirror_report *rep, cp_error_t *err);

/* The signature of a file as fstatat sees it, without following a link. */
void cp_sig_from_stat(const struct stat *st, struct cp_sig *out);

#endif
