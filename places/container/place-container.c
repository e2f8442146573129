/* The container place: one fresh sealed box per command, removed however the run ends. Its
 * operations live one file each (place-container-prepare.c, -run.c, -clean.c, -check.c); here
 * are the table, the description for `places`, and the release. */
#include "config.h"

#include "places/container/warm/warm.h"
#include "places/container/engine/engine.h"
#include "places/container/place-container-int.h"
#include "places/place.h"

void cp_container_release(void *state)
{
    struct cp_container_state *s = state;
    bool started = s->behind_started;
    cp_container_state_free(s);
    /* What crashed runs left, on every engine, swept once this run's output is out. */
    if (!started)
        cp_container_behind(NULL, NULL);
}

static int container_describe(const struct cp_config *cfg, json_object *places, cp_error_t *err)
{
    json_object_array_add(places, cp_container_readiness(cfg));
    return 0;
}

const struct cp_place_ops cp_place_container = {
    .name = "container",
    .seals = true,
    .prepare = cp_container_prepare,
    .run = cp_container_run,
    .release = cp_container_release,
    .check = cp_container_check,
    .describe = container_describe,
    .clean = cp_container_clean,
};
