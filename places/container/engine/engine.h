/* The container place's engine part, as the rest of the place sees it: the client of Docker's
 * or Podman's HTTP API (engine-client.h; connecting and the kind are in container.h), starting
 * an engine that is not running, rootless Podman's readiness, the attach stream and its end
 * marks, a box's exit event and first process, and images (made from a root file system
 * through the API). */
#ifndef CONCH_ENGINE_H
#define CONCH_ENGINE_H

#include "places/container/engine/box-pidfd.h"
#include "places/container/engine/engine-client.h"
#include "places/container/engine/engine-start.h"
#include "places/container/engine/exit-event.h"
#include "places/container/engine/images.h"
#include "places/container/engine/rootfs.h"
#include "places/container/engine/rootless.h"
#include "places/container/engine/stream.h"

#endif
