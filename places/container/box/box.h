/* One box's life through the API: create, start, wait, remove; and the owner labels. */
#ifndef CONCH_BOX_H
#define CONCH_BOX_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "places/container/engine/engine.h"
#include "places/container/box/box-spec.h"
#include "places/container/box/caches.h"
#include "places/container/box/create-body.h"
#include "places/container/box/layer-volume.h"
#include "places/container/box/protect.h"
/* "k=v" labels naming this process as the box's owner (host, pid, the pid's start time). */
char **cp_box_owner_labels(void);

int cp_box_create(struct cp_engine *e, json_object *spec, const char *name, char **id_out,
                  cp_error_t *err);
/* A box of the folder's own made under name, once: 1 made (*id_out the caller's), 0 when the
 * name is taken (409: another run made it first, look again), or an error naming what
 * ("the sidecar") with the engine's words. */
int cp_box_create_once(struct cp_engine *e, json_object *spec, const char *name, const char *what,
                       char **id_out, cp_error_t *err);
int cp_box_start(struct cp_engine *e, const char *id, cp_error_t *err);
/* The limits in spec (pids, memory, CPUs) that the made box does not have, read back from the
 * engine: rootless Podman on cgroup v1 drops them without a word; rootless Docker there keeps
 * them in its inspect but says in /info that it cannot apply them (engine.h). *out is NULL when all
 * are there, else their names ("pids, memory"), the caller's. */
int cp_box_limits_missing(struct cp_engine *e, const char *id, json_object *spec, char **out,
                          cp_error_t *err);
/* Waits until the box is not running and reads its exit status. */
int cp_box_wait(struct cp_engine *e, const char *id, int *status_out, cp_error_t *err);
/* Inspects the box conch-place names name and marks with label (the sidecar's, the network
 * holder's): 1 with *out (the caller's), 0 when there is no box of that name, CP_ERR_UNSAFE when
 * one is there that conch-place did not make (it is never used or removed). */
int cp_box_inspect_ours(struct cp_engine *e, const char *name, const char *label, json_object **out,
                        cp_error_t *err);
/* Kills and removes; a box already gone is not an error. */
int cp_box_remove(struct cp_engine *e, const char *id, cp_error_t *err);
/* cp_box_remove, then waits (at most 10 s) until the engine has let the box go: a removal
 * another caller began answers at once (409), while the box still holds its name. */
int cp_box_remove_gone(struct cp_engine *e, const char *id, cp_error_t *err);

/* Whether the box's owner is still alive: the run named in the box's name
 * (conch-PID-START-RANDOM), on the host its labels name. */
bool cp_box_owner_alive(const char *name, json_object *labels);
/* Whether the run a box's name names (conch-PID-START-...) is alive on this computer; a name
 * that names no run is not. */
bool cp_box_name_alive(const char *name);

/* A name that says which run owns the box: conch-PID-START-RANDOM. The caller frees it. */
char *cp_box_name(void);
/* Fills buf with len-1 random hex digits and returns it. */
char *cp_box_random_hex(char *buf, size_t len);

#endif
