/* Image names conch-place makes or expects, and whether the engine has them. */
#ifndef CONCH_IMAGES_H
#define CONCH_IMAGES_H

#include <stdbool.h>

#include "places/container/engine.h"

#define CP_IMAGE_WORK     "conch-place/work:bookworm"
#define CP_IMAGE_UPSTREAM "node:24-bookworm"
#define CP_IMAGE_TEST     "conch-place/test:busybox"

/* 1 present (its id in *id_out when not NULL), 0 absent, or a negative error. */
int cp_image_present(struct cp_engine *e, const char *image, char **id_out, cp_error_t *err);

/* The image to use: the one asked for, else the saved preference, else the locally made work
 * image, else node:24-bookworm; absent ones fail with the step that makes them. */
int cp_image_choose(struct cp_engine *e, const char *asked, const char *saved, char **out,
                    char **id_out, cp_error_t *err);

/* Makes an image from a root filesystem folder, through the API (POST /images/create). */
int cp_image_import(struct cp_engine *e, const char *rootfs, const char *name,
                    const char *const *changes, cp_error_t *err);

#endif
