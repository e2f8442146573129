/* The container place's one public header: what code outside places/container uses (the
 * `image` and `hosts` commands). Everything else in the folder is private to it, and the place
 * itself is reached through places/place.h's table. */
#ifndef CONCH_CONTAINER_H
#define CONCH_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* ---- the engine (engine.c, engine-discover.c) ---- */

struct cp_engine;

/* Finds an engine in DESIGN.md's order, narrowed by want (docker|podman|auto or NULL),
 * and negotiates the API version through /_ping. An engine that DOCKER_HOST or CONTAINER_HOST
 * names is the only one tried: used, or the failure names the variable. */
int cp_engine_connect(const char *want, struct cp_engine **out, cp_error_t *err);
void cp_engine_free(struct cp_engine *e);
void cp_cleanup_enginep(struct cp_engine **e);
#define cleanup_engine __attribute__((cleanup(cp_cleanup_enginep)))

/* "docker" or "podman", as the engine says of itself. Borrowed. */
const char *cp_engine_kind(const struct cp_engine *e);

/* ---- images (images.c, rootfs.c, egress-image.c) ---- */

#define CP_IMAGE_WORK     "conch-place/work:bookworm"
#define CP_IMAGE_UPSTREAM "node:24-bookworm"
#define CP_IMAGE_TEST     "conch-place/test:busybox"

/* Runs `sh images/SCRIPT ROOTFS` in a fresh scratch folder (with binary in the script's
 * CONCH_EGRESS_BINARY when not NULL), imports the folder as image with the Dockerfile-style
 * changes, and removes the folder however that went. */
int cp_rootfs_image(struct cp_engine *e, const char *script, const char *image,
                    const char *const *changes, const char *binary, cp_error_t *err);

/* The egress sidecar's image, made (images/egress-rootfs.sh, then an import through the API)
 * and named after the running binary's digest. */
int cp_egress_image_build(struct cp_engine *e, char **name_out, cp_error_t *err);

/* ---- the sealed box's allow-list (allowlist.c, registries.c, npm-default.c) ---- */

struct cp_host_why {
    char *host;
    char *why;
    enum cp_host_mode mode; /* read for the built-ins and remotes; config.json may say more */
    bool sign_in;           /* the sidecar adds a sign-in to some paths of it */
};

struct cp_allowlist {
    struct cp_host_why *allowed;
    size_t nallowed;
    struct cp_host_why *left_off;
    size_t nleft_off;
    bool allow_all; /* "allow-all": any public host on port 443 */
};

/* The list for the work folder (a real path), with ~ and $XDG_CONFIG_HOME from the
 * environment, collecting the sign-ins itself (for `hosts`, whose words tell which hosts have
 * one); they are dropped after. Fails on a settings file that exists but cannot be read. */
int cp_allowlist_for(const char *workdir, const struct cp_config *cfg, struct cp_allowlist *out,
                     cp_error_t *err);

void cp_allowlist_dispose(struct cp_allowlist *l);
#define cleanup_allowlist __attribute__((cleanup(cp_allowlist_dispose)))

/* {"allowed": [{"host", "why", "mode"[, "sign_in": true]}...], "left_off": [{"host",
 * "why"}...]}, mode being "read", "write" or "pass-through"; never a credential. The
 * caller's. */
json_object *cp_allowlist_json(const struct cp_allowlist *l);

/* npm's default registry for `hosts`, where this computer has no npm to ask: learned once from
 * the work image's npm, on the engine and image config.json (or the defaults) name. */
int cp_npm_default_learn_for(const struct cp_config *cfg, cp_error_t *err);

/* ---- what a run leaves behind (warm/behind.c) ---- */

/* `conch-place behind`: the work one job asks for. */
int cp_container_behind_job(json_object *job, cp_error_t *err);

#endif
