/* Images made from a root filesystem that a script in images/ lays out in a scratch folder. */
#ifndef CONCH_ROOTFS_H
#define CONCH_ROOTFS_H

#include "places/container/engine.h"

/* This binary's own path (/proc/self/exe), or NULL. The caller frees it. */
char *cp_self_path(void);

/* Runs `sh images/SCRIPT ROOTFS` in a fresh scratch folder (with binary in the script's
 * CONCH_EGRESS_BINARY when not NULL), imports the folder as image with the Dockerfile-style
 * changes, and removes the folder however that went. */
int cp_rootfs_image(struct cp_engine *e, const char *script, const char *image,
                    const char *const *changes, const char *binary, cp_error_t *err);

#endif
