/* Which engine this is, and what follows from it: Docker or Podman as the engine's own answer
 * says (the ping's Libpod-Api-Version header) or as a record of ours recalls, and the quirks
 * that set the differences once, so that nothing else in the place compares the kind. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "places/container/engine/engine-client.h"
#include "src/base/util.h"

/* Podman's differences from Docker, as measured on Podman 4.3 beside Docker 20.10 (the quirks'
 * own comments, engine.h); Docker's are all false. */
static const struct cp_engine_quirks podman_quirks = {
    .libpod_routes = true,
    .exit_recorded_late = true,
    .exit_known_before_teardown = true,
    .broken_pipe_sticks = true,
    .tmpfs_copies_up = true,
    .rootless_keep_id = true,
    .joins_by_ns_path = true,
    .rootless_netns_apart = true,
    .numbered_bridges = true,
    .own_log_driver = true,
    .stdin_closes_after_attach = true,
};

static const struct cp_engine_quirks docker_quirks = {0};

static void set_kind(struct cp_engine *e, bool podman)
{
    e->kind = podman ? "podman" : "docker";
    e->quirks = podman ? podman_quirks : docker_quirks;
}

void cp_engine_identify(struct cp_engine *e, bool libpod_api)
{
    set_kind(e, libpod_api);
}

struct cp_engine *cp_engine_recalled(const char *socket, const char *kind, const char *version)
{
    struct cp_engine *e = xcalloc(1, sizeof(*e));
    if (strlen(version) >= sizeof(e->version)) {
        free(e);
        return NULL;
    }
    e->socket = xstrdup(socket);
    snprintf(e->version, sizeof(e->version), "%s", version);
    set_kind(e, strcmp(kind, "podman") == 0);
    return e;
}
