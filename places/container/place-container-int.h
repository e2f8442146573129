/* What the container place's files share: the state a prepared run holds, and the place's
 * operations (place-container.c's table). Not for other modules. */
#ifndef CONCH_PLACE_CONTAINER_INT_H
#define CONCH_PLACE_CONTAINER_INT_H

#include <stdbool.h>

#include <json-c/json.h>

#include "mirror/mirror.h"
#include "places/container/box/box.h"
#include "places/container/engine/engine.h"
#include "places/container/seal/seal.h"
#include "places/container/warm/warm.h"
#include "places/place.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* A call under way when a signal comes may finish within this, so that a box being made is
 * known by its id and removed; the clean-up then has CLEANUP_MS, all well inside 5 s. */
#define SIGNAL_GRACE_MS 1500
#define CLEANUP_MS      3000

struct cp_container_state {
    struct cp_engine *engine;
    unsigned uid, gid;  /* the user inside the box */
    const char *userns; /* "keep-id" on rootless Podman */
    struct cp_protected prot;
    char **labels;
    char *image;
    char *image_id;
    char *empty_file;
    json_object *spec;     /* a fresh box for this command */
    char *name;            /* its name, chosen ahead: a sealed box's proxy user */
    struct cp_seal seal;   /* sealed: the allow-list, its sidecar, the proxy variables */
    char *warm_key;        /* what a warm box must have been made from to serve it */
    char *warm_pool;       /* the warm boxes of that key (warm-pool.h) */
    json_object *warm_box; /* the claimed one's inspect */
    char *warm_names[CP_WARM_POOL_MAX];        /* the next warm boxes' names, their proxy
                                                * users when sealed */
    char **warm_envs[CP_WARM_POOL_MAX];        /* their proxy variables */
    json_object *warm_specs[CP_WARM_POOL_MAX]; /* the boxes the pool may make after this run
                                                * (NULL: none) */
    bool gated;                /* sealed: the folder is seen through a layer the gate lands */
    bool limits_may_miss;      /* container.limits allow-missing */
    char *limits_missing;      /* ... and the limits this box went without, for the report */
    char *layer_volume;        /* this box's layer's volume */
    struct cp_git_outside git; /* the folder's git folder outside it (a linked worktree's) */
    struct cp_cache cache;     /* sealed, container.caches on: the folder's caches */
    const char *req_workdir;   /* borrowed from the request */
    char *const *req_argv;
    struct cp_held_run layer; /* its folder, once made or claimed */
    bool behind_started;      /* the work after the run is under way (behind.h) */
};

/* prepare (place-container-prepare.c): the engine and image, the user, the protected places,
 * the seal and the box's spec, ready to run. */
int cp_container_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err);
void cp_container_state_free(struct cp_container_state *s);
/* Whether a signal came; if so, err says so and the caller stops. */
bool cp_container_interrupted(cp_error_t *err);

/* run (place-container-run.c): a warm box or a fresh one, the command, the landing, the next
 * warm box. */
int cp_container_run(void *state, const struct cp_run_request *req, int *status_out,
                     cp_error_t *err);
/* release (place-container.c): the state freed; what crashed runs left is swept behind, unless
 * the run's own work behind does it already. */
void cp_container_release(void *state);

/* clean (place-container-clean.c) and doctor (place-container-check.c). */
int cp_container_clean(const struct cp_config *cfg, cp_error_t *err);
int cp_container_check(const char *place, const struct cp_config *cfg, cp_error_t *err);

#endif
