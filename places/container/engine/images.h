/* Whether the engine has the images conch-place makes or expects (their names: container.h). */
#ifndef CONCH_IMAGES_H
#define CONCH_IMAGES_H

#include <stdbool.h>

#include "places/container/container.h"
#include "places/container/engine/engine-client.h"
#include "src/base/progress.h"
#include "src/base/settings/settings.h"

/* 1 present (its id in *id_out when not NULL), 0 absent, or a negative error. */
int cp_image_present(struct cp_engine *e, const char *image, char **id_out, cp_error_t *err);

/* The image to use: the one asked for, else the saved preference, else the locally made work
 * image, else node:24-bookworm; absent ones fail with the step that makes them. */
int cp_image_choose(struct cp_engine *e, const char *asked, const char *saved, char **out,
                    char **id_out, cp_error_t *err);

/* auto's choice: among the engines that answer for want (cp_engine_connect_all), the first in
 * discovery order that has the image (asked, else saved, else the work image, else
 * node:24-bookworm); absent everywhere fails with the step that makes it on the first engine. */
int cp_image_engine(const char *want, const char *asked, const char *saved,
                    struct cp_engine **engine_out, char **image_out, char **id_out,
                    cp_error_t *err);

/* `places`: {"place": "container", "ready", "engine" and "image" (the engine and image a run
 * would use), or "next" (what is missing and the step)}. Ready means the image is there too,
 * as doctor and run see it. The caller's. */
json_object *cp_container_readiness(const struct cp_config *cfg);

/* A root filesystem script run without root (mmdebstrap in its own user namespace) leaves the
 * tree as this tar in its folder, owners as they must be, and nothing else: sent as it is. */
#define CP_ROOTFS_TAR "rootfs.tar"

/* Makes an image from a root filesystem folder, through the API (POST /images/create). */
int cp_image_import(struct cp_engine *e, const char *rootfs, const char *name,
                    const char *const *changes, cp_error_t *err);
/* The same, drawing its steps (packing, sending) on pr. */
int cp_image_import_progress(struct cp_engine *e, const char *rootfs, const char *name,
                             const char *const *changes, struct cp_progress *pr, cp_error_t *err);

#endif
