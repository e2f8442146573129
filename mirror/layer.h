/* The container's copy-on-write layer landed through the gate (DESIGN.md, "Landing"): the
 * upper folder of an overlay whose lower is the work folder holds what the box wrote (files,
 * folders, links), what it deleted (whiteouts: 0/0 character devices) and folders it replaced
 * whole (opaque folders). Each entry lands here under the mirror's rules and the host-run
 * table, by rename (old or new, never half), or is refused with its reason. */
#ifndef CONCH_MIRROR_LAYER_H
#define CONCH_MIRROR_LAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "mirror/event-lines.h"
#include "mirror/rules.h"
#include "src/base/error.h"

/* What became of one entry: "added", "changed", "deleted", "beside" (changed here too: kept
 * here, the box's version landed beside it) or "refused" with why. */
typedef void (*cp_layer_seen_fn)(void *ctx, const char *what, const char *path, const char *why);

struct cp_layer_git;

struct cp_layer_opts {
    int rootfd;       /* the work folder, opened before anything lands */
    int upperfd;      /* the layer's upper folder */
    int64_t since_ns; /* a file here whose ctime is at or after this changed during the run */
    const struct cp_rules *rules;
    bool dry_run;          /* judge and tell, land nothing, change nothing (`changes`) */
    cp_layer_seen_fn seen; /* optional: each entry's outcome */
    void *seen_ctx;
    const struct cp_layer_git *git; /* the git folder outside the work folder, or NULL */
};

/* A git folder outside the work folder (mirror/git/git-outside.h), seen by the box through a
 * second layer: it lands by git's table after the work folder's entries. */
struct cp_layer_git {
    const char *where;    /* its path, as the words show it */
    int herefd, upperfd;  /* it here, and its layer's upper folder */
    const char *worktree; /* the linked worktree's name, or NULL */
};

/* Lands (or with dry_run, judges) every entry of the layer. Landed entries leave the upper
 * folder as they land, so a landing cut short is finished by calling this again on what is
 * left. Fails only when the work folder or the layer cannot be read at all. */
int cp_layer_land(const struct cp_layer_opts *o, struct cp_mirror_report *rep, cp_error_t *err);

#endif
