/* Lands a built tar into a scratch work folder the way a pull does, for the attack tests. */
#ifndef CONCH_TESTS_LANDRUN_H
#define CONCH_TESTS_LANDRUN_H

#include <stdint.h>

#include "mirror/landing.h"
#include "tests/mirror/scratch.h"
#include "tests/mirror/tarbuild.h"

struct landrun {
    int rc; /* of read (and commit, when read succeeded) */
    struct cp_mirror_report rep;
    char said[16384]; /* every reported line, each ending in '\n' */
    struct cp_ask *asks;
    size_t n;
};

/* asked: NULL-terminated. With `known`, each asked file present here counts as unchanged
 * since the last sync (its current signature is the expected one). */
void landrun(struct landrun *r, struct scratch *s, struct tb *t, const char *const *asked,
             int known, uint64_t max_bytes);
const struct cp_ask *landrun_ask(const struct landrun *r, const char *path);

void landrun_done(struct landrun *r);
#define cleanup_landrun __attribute__((cleanup(landrun_done)))

#endif
