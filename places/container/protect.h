/* Protected places in the work folder: found at each run, covered inside the box. */
#ifndef CONCH_PROTECT_H
#define CONCH_PROTECT_H

#include "src/base/error.h"
#include "src/base/settings.h"

struct cp_protected {
    char **dirs;  /* absolute paths of folders to cover with a tmpfs */
    char **files; /* absolute paths of files to cover with an empty read-only file */
};

/* The patterns in force: config.json's "protected" list, else the defaults. Borrowed. */
const char *const *cp_protect_patterns(const struct cp_config *cfg, char ***owned_out);

/* Walks workdir (links are never followed; dependency folders are not entered). */
int cp_protect_scan(const char *workdir, const char *const *patterns, struct cp_protected *out,
                    cp_error_t *err);
void cp_protected_dispose(struct cp_protected *p);
#define cleanup_protected __attribute__((cleanup(cp_protected_dispose)))

#endif
