/* What the layer's landing (mirror/layer.c) and its moves into place (mirror/layer-move.c)
 * share: the landing's state and the few steps both take. */
#ifndef CONCH_MIRROR_LAYER_INT_H
#define CONCH_MIRROR_LAYER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "mirror/layer.h"
#include "mirror/links.h"
#include "src/base/test-hold.h"

#define BESIDE_SUFFIX ".conch-far"

struct layer {
    const struct cp_layer_opts *o;
    struct cp_mirror_report *rep;
    uint64_t dev;     /* the work folder's device */
    int stagefd;      /* where a copy waits when the layer is on another file system */
    int stage_parent; /* the folder it is in: outside the work folder where one is on its disk */
    char stage_name[64];
    bool held, held_staged; /* test_hold has been, for each of its two points */
    struct cp_links *links;
};

/* Whether the file here changed during the run (its ctime at or after the run's start). */
static inline bool cp_layer_changed_here(const struct layer *l, const struct stat *st)
{
    return (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec >= l->o->since_ns;
}

/* For the integration tests alone: with CONCH_TEST_HOLD_LANDING naming a folder, the landing
 * stops once its first file is in place (with CONCH_TEST_HOLD_STAGED, once its first staged copy
 * is made, before its rename), says so by making FOLDER/held and waits until the fifo FOLDER/go
 * is written to and closed, so that the test's kill -9 or save comes in the middle of a landing
 * for certain (racing a big one was lost on a quick machine). The variables are read in
 * conch-place's own environment on this computer, which nothing in a box can set. */
static inline void cp_layer_test_hold(const char *var, bool *done)
{
    if (*done)
        return;
    *done = true;
    cp_test_hold(var);
}

/* Moves the entry to (dirfd, base): straight from the layer when it is on this file system,
 * else through a staged copy. Where the file here is the person's (mine, or found so at the
 * rename), it lands beside instead and *beside_out names where. */
int cp_layer_move_entry(struct layer *l, int udirfd, const char *name, const struct stat *st,
                        int dirfd, const char *base, const char *path, const struct stat *before,
                        bool mine, char **beside_out);

/* Removes the staging folder, if one was made, and closes its parent. */
void cp_layer_stage_close(struct layer *l);

#endif
