/* The box's copy-on-write layer (DESIGN.md, "Landing"): an overlay whose lower is the work
 * folder and whose upper and work folders are a run's under $CONCH_HOME/workplaces/layers,
 * made by the engine as a `local` volume and mounted at the folder's own path. The box reads
 * this computer's files as they are and sees its own writes at once; the writes stay in the
 * layer until the gate (mirror/held.c) lands them. */
#ifndef CONCH_CONTAINER_LAYER_VOLUME_H
#define CONCH_CONTAINER_LAYER_VOLUME_H

#include <stdbool.h>

#include "mirror/mirror.h"
#include "places/container/engine/engine.h"
/* The volume of the layer made for the box named id. The caller frees it. */
char *cp_layer_volume(const char *id);
/* And of the layer over its git folder outside the work folder (mirror/git/git-outside.h),
 * mounted at that folder's own path. */
char *cp_layer_git_volume(const char *id);

/* Makes the run's layer folder and its volume; with git (NULL: none), the git folder's layer
 * and volume too. state: "running", or "warm" for a box made ahead. */
int cp_layer_make(struct cp_engine *e, const char *workdir, const char *id, char *const *argv,
                  const struct cp_git_outside *git, const char *state, struct cp_held_run *out,
                  cp_error_t *err);

/* Whether the layer volumes the box named id mounts are still the ones cp_layer_make made
 * (their labels; git_layer: it mounts its git folder's too, as the caller made it); called once
 * the box is made, since the engine makes an empty volume for a name it does not find. */
int cp_layer_check(struct cp_engine *e, const char *id, bool git_layer, cp_error_t *err);

/* After its box is gone: removes the layer's volume, then its folder unless it is held. */
void cp_layer_drop(struct cp_engine *e, const char *id);

/* Removes this CONCH_HOME's layer volumes whose folder is gone, and warm layers no box can
 * claim any more. */
void cp_layer_sweep(struct cp_engine *e);

#endif
