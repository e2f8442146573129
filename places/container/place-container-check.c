/* doctor for the container place: the engine, the limits, the image and the seal's probes,
 * then a sealed `true` end to end, one line each. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "places/container/place-container-int.h"
#include "places/container/engine/engine.h"
#include "places/container/seal/seal.h"
#include "src/base/util.h"

/* doctor: the engine, the image, then a sealed `true` end to end, one line each. */
int cp_container_check(const char *place, const struct cp_config *cfg, cp_error_t *err)
{
    cleanup_free char *cwd = getcwd(NULL, 0);
    char *argv[] = {"true", NULL};
    struct cp_run_request req = {.place = place,
                                 .argv = argv,
                                 .workdir = cwd ? cwd : "/tmp",
                                 .chat = "doctor",
                                 .sealed = true,
                                 .config = cfg};
    void *state = NULL;
    cleanup_free char *step = cp_rootless_step();
    if (step != NULL) /* for a person without root: what rootless Podman still needs */
        printf("without root: FAILED\n  next: %s\n", step);
    if (cp_container_prepare(&req, &state, err) < 0)
        return cp_error_code(err);
    struct cp_container_state *s = state;
    cleanup_free char *engine = cp_engine_describe(s->engine);
    printf("engine: %s, API %s: ok\n", engine, s->engine->version);
    cleanup_free char *limits = s->engine->rootless ? cp_rootless_limits_step() : NULL;
    if (limits != NULL)
        printf("limits: %s\n  %s: %s\n", s->limits_may_miss ? "not applied" : "FAILED",
               s->limits_may_miss ? "why (container.limits is allow-missing)" : "next", limits);
    printf("image: %s: ok\n", s->image);
    int failed = 0; /* the seal's probes (places/container/seal/seal-probe.c), each with its step */
    if (cp_seal_doctor(s->engine, &s->seal.sidecar, &failed, err) < 0) {
        cp_container_release(state);
        return cp_error_code(err);
    }
    int status = -1;
    int r = cp_container_run(state, &req, &status, err);
    cp_container_release(state);
    if (r < 0)
        return cp_error_wrap(err, "a sealed box");
    if (status != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "a sealed `true` exited with %d", status);
    printf("sealed box: made, ran `true`, removed: ok\n");
    if (failed > 0)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "%d of the seal's probes failed (above)",
                             failed);
    return 0;
}
