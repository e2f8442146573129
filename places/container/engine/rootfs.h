/* Images made from a root filesystem that a script in images/ lays out in a scratch folder
 * (cp_rootfs_image, in container.h). */
#ifndef CONCH_ROOTFS_H
#define CONCH_ROOTFS_H

#include "places/container/container.h"
#include "places/container/engine/engine-client.h"

/* This binary's own path (/proc/self/exe), or NULL. The caller frees it. */
char *cp_self_path(void);

#endif
