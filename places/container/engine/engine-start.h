/* Starting the person's own rootless Podman service when none answers (engine-start.c). */
#ifndef CONCH_ENGINE_START_H
#define CONCH_ENGINE_START_H

#include "places/container/engine/engine-client.h"

/* Where the person's rootless Podman listens: $XDG_RUNTIME_DIR/podman/podman.sock, or without
 * XDG_RUNTIME_DIR the person's own 0700 folder; NULL when there is none. The caller frees. */
char *cp_rootless_podman_socket(void);

/* For a person without root with podman on PATH: starts `podman system service` on that socket
 * (once, under a lock) and waits for it to answer. 1 with *out connected, 0 when this does not
 * apply (root, no podman), or an error naming its log. */
int cp_engine_start_rootless(struct cp_engine **out, cp_error_t *err);

/* A service conch-place started leaves after its idle time: a long step that made no call
 * meanwhile (an image's root filesystem) starts it again before its next call. */
int cp_engine_keep_up(struct cp_engine *e, cp_error_t *err);

#endif
