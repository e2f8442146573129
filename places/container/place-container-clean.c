/* `clean` for the container place: on every engine that answers, the boxes crashed runs left,
 * the unused egress sidecars and networks, the layers and the folders' package caches unused
 * for 7 days; then held runs past their age. */
#include "config.h"

#include <stdio.h>

#include "places/container/box/box.h"
#include "places/container/warm/warm.h"
#include "places/container/place-container-int.h"
#include "places/container/seal/seal.h"
#include "src/base/util.h"

/* `clean` drops held runs nobody landed or discarded within this. */
#define HELD_MAX_AGE (7 * 24 * 3600)

static int clean_engine(const char *kind, int *found, cp_error_t *err)
{
    cleanup_engine struct cp_engine *e = NULL;
    cleanup_error cp_error_t cerr = NULL;
    if (cp_engine_connect(kind, &e, &cerr) < 0)
        return 0; /* an engine that is not there left nothing behind */
    (*found)++;
    int removed = 0;
    if (cp_leftovers_sweep(e, true, &removed, err) < 0)
        return cp_error_code(err);
    printf("%s: removed %d leftover box%s\n", e->kind, removed, removed == 1 ? "" : "es");
    int sidecars = 0;
    if (cp_sidecar_clean(e, &sidecars, err) < 0)
        return cp_error_code(err);
    printf("%s: removed %d unused egress sidecar%s and network%s\n", e->kind, sidecars,
           sidecars == 1 ? "" : "s", sidecars == 1 ? "" : "s");
    cp_layer_sweep(e);
    int caches = 0;
    if (cp_cache_sweep(e, &caches, err) < 0)
        return cp_error_code(err);
    printf("%s: removed %d package cache%s unused for 7 days\n", e->kind, caches,
           caches == 1 ? "" : "s");
    cp_warm_pool_forget();
    return 0;
}

/* Every engine that answers, not just the preferred one: a crash may have used either. */
int cp_container_clean(const struct cp_config *cfg, cp_error_t *err)
{
    int found = 0;
    if (clean_engine("docker", &found, err) < 0 || clean_engine("podman", &found, err) < 0)
        return cp_error_code(err);
    if (found == 0)
        printf("container: no engine answers, so no box is left\n");
    int held = 0;
    if (cp_held_clean(HELD_MAX_AGE, &held, err) < 0)
        return cp_error_code(err);
    printf("removed %d held run%s older than 7 days\n", held, held == 1 ? "" : "s");
    return 0;
}
