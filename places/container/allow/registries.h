/* The registries a sealed box reaches (ADR 0148), in one commented table. */
#ifndef CONCH_REGISTRIES_H
#define CONCH_REGISTRIES_H

#include <stdbool.h>

#include "places/container/container.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

enum cp_registry_family {
    CP_REG_NPM,  /* npm, Yarn, pnpm and Bun: left off when ~/.npmrc or ~/.bunfig.toml moved it */
    CP_REG_PYPI, /* left off when pip's index-url moved it */
    CP_REG_OTHER,
};

struct cp_registry {
    const char *host;
    enum cp_registry_family family;
    const char *why; /* what it serves, for `hosts` */
};

/* Terminated by an entry whose host is NULL. */
extern const struct cp_registry cp_registries[];

/* npm's own default registry's host, asked of this computer's npm (or CONCH_NPM_DEFAULT_REGISTRY),
 * or learned from the work image's npm; never written into the project. NULL when there is
 * no npm to ask. Borrowed. */
const char *cp_npm_default_host(void);

struct cp_engine;
/* With no npm on this computer: asks the npm of the image (by id) once, in a one-shot box
 * without network, and caches the answer (none too) by the image's id. */
int cp_npm_default_learn(struct cp_engine *e, const char *image_id, cp_error_t *err);
/* Why npm's default registry is not known, or NULL when it is. Borrowed. */
const char *cp_npm_default_missing(void);

#endif
