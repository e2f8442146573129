/* A sealed box's package caches, kept per work folder (issue 32, DESIGN.md's "HOME caches"):
 * one engine volume per folder, engine and CONCH_HOME, bound from a folder of ours under
 * $CONCH_HOME/workplaces/caches (so its files are the person's, on every engine), mounted at
 * CP_CACHE_TARGET with the tools pointed into it by their own variables. Another folder's box
 * never sees it; nothing of it is under the work folder; `clean` drops those unused 7 days. */
#ifndef CONCH_CONTAINER_CACHES_H
#define CONCH_CONTAINER_CACHES_H

#include <stdbool.h>
#include <stdint.h>

#include "places/container/engine/engine.h"
#include "src/base/error.h"

/* Where the volume is seen in the box: outside HOME (/tmp), which stays the box's own. */
#define CP_CACHE_TARGET "/conch-cache"
/* `clean` removes a cache whose last run is older than this. */
#define CP_CACHE_MAX_IDLE (7 * 24 * 3600)

/* The tools' variables, each pointing into CP_CACHE_TARGET ("K=V"). */
extern const char *const cp_cache_env[];
/* Paths in the box laid over by an empty read-only file, so that no credential is ever kept
 * in the cache (cargo login writes its token under CARGO_HOME). */
extern const char *const cp_cache_covers[];

/* A folder's cache as a run uses it. */
struct cp_cache {
    char *volume; /* the engine's volume */
    char *dir;    /* the folder of ours it binds */
};

/* The volume's name for folder (a real path) under the home marked home_mark, on the engine at
 * socket; the caller frees it. Pure. */
char *cp_cache_volume_name(const char *socket, const char *home_mark, const char *folder);
/* Whether a cache last used at last_use (seconds; 0: never known) is past its idle time. */
bool cp_cache_stale(int64_t last_use, int64_t now);

/* Makes (or finds) folder's cache on e, and marks it used now. */
int cp_cache_prepare(struct cp_engine *e, const char *folder, struct cp_cache *out,
                     cp_error_t *err);
void cp_cache_dispose(struct cp_cache *c);

/* `clean`: removes this home's caches on e unused for CP_CACHE_MAX_IDLE (the volume, its
 * folder and its mark), never one a box holds (the engine refuses) nor another home's. */
int cp_cache_sweep(struct cp_engine *e, int *removed, cp_error_t *err);

#endif
