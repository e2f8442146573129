/* The mirror's one public header: what the places and the commands use of mirror/, which knows
 * no place (DESIGN.md, "Layout"); the rest of the folder is private to it.
 *   - ssh:HOST and cloud: the transport they implement (transport.h), the far place ops they
 *     give the shared remote run, and the run itself (far-place.h, remote-run.h), over the
 *     manifest named by place and chat (manifest.h);
 *   - the container place and the held runs' commands: the runs whose layers wait for the gate
 *     (held.h); `changes` also draws the commits a ref gained (git-commits.h) and reaches a
 *     file's folder without following a link (walk.h). */
#ifndef CONCH_MIRROR_MIRROR_H
#define CONCH_MIRROR_MIRROR_H

#include "mirror/far-place.h"
#include "mirror/git/git.h"
#include "mirror/held.h"
#include "mirror/manifest.h"
#include "mirror/remote-run.h"
#include "mirror/transport.h"
#include "mirror/walk.h"

#endif
