/* The registries a sealed box reaches (ADR 0148), in one commented table. */
#ifndef CONCH_REGISTRIES_H
#define CONCH_REGISTRIES_H

#include <stdbool.h>

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
 * never written into the project; NULL when there is no npm to ask. Borrowed. */
const char *cp_npm_default_host(void);

#endif
