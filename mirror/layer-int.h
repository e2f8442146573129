/* What the layer's landing (mirror/layer.c) and its moves into place (mirror/layer-move.c)
 * share: the landing's state and the few steps both take. */
#ifndef CONCH_MIRROR_LAYER_INT_H
#define CONCH_MIRROR_LAYER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "mirror/layer.h"
#include "mirror/links.h"

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
bool cp_layer_changed_here(const struct layer *l, const struct stat *st);

/* For the integration tests alone: one of the landing's holds, once (test-hold.h). */
void cp_layer_test_hold(struct layer *l, const char *var, bool *done);

/* Moves the entry to (dirfd, base): straight from the layer when it is on this file system,
 * else through a staged copy. Where the file here is the person's (mine, or found so at the
 * rename), it lands beside instead and *beside_out names where. */
int cp_layer_move_entry(struct layer *l, int udirfd, const char *name, const struct stat *st,
                        int dirfd, const char *base, const char *path, const struct stat *before,
                        bool mine, char **beside_out);

/* Removes the staging folder, if one was made, and closes its parent. */
void cp_layer_stage_close(struct layer *l);

#endif
