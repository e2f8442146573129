/* One remote run (issue 9, point 5), the same for every place whose copy lives elsewhere:
 * the lock here, connect, the lock there with the copy's identity, push, the command with its
 * streams apart, pull, and the words for far-side failures. The place gives its ops
 * (mirror/far-place.h); the steps' order, and what a failure or a signal at each leaves, are
 * here once. */
#ifndef CONCH_MIRROR_REMOTE_RUN_H
#define CONCH_MIRROR_REMOTE_RUN_H

#include <stdbool.h>

#include "mirror/far-place.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

struct cp_remote_args {
    const char *place;         /* as the person named it ("ssh:box", "cloud"): the lock here */
    const char *workdir;       /* the work folder */
    const char *manifest_path; /* cp_manifest_path(place, chat) */
    char *const *argv;         /* the command */
    bool interactive;          /* -i */
    /* Readable: stop the run; it holds one byte, the signal that stopped the asker (the
     * keeper's client; its end: SIGHUP, it went away). -1: this process's signals. */
    int stop_fd;
    /* The mirror's lines for the person (refusals, conflicts); NULL: "mirror: LINE". */
    void (*say)(void *ctx, const char *line);
    /* Whose "protected" additions the mirror honours too (one list for box and mirror); NULL:
     * config.json is read here (the keeper's runs). */
    const struct cp_config *config;
};

/* The whole run. *status_out is the command's status; a stop during any step makes it 128+n
 * (returning 0), with nothing landed half-way here. A failure of the place (125 for `run`)
 * returns <0 with err worded for the person: what failed there, then the next step. Whatever
 * fails, nothing here is deleted that the command did not remove; the locks are let go. */
int cp_remote_run(const struct cp_far_place_ops *ops, void *place, const struct cp_remote_args *a,
                  int *status_out, cp_error_t *err);

#endif
