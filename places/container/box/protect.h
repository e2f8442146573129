/* Protected places in the work folder: found at each run, covered inside the box. */
#ifndef CONCH_PROTECT_H
#define CONCH_PROTECT_H

#include "src/base/error.h"
#include "src/base/settings/settings.h"

struct cp_protected {
    char **dirs;     /* absolute paths of folders to cover with a tmpfs */
    char **files;    /* absolute paths of files to cover with an empty read-only file */
    char **gits;     /* every .git folder or file: read-only in a sealed box */
    char **settings; /* .npmrc, .yarnrc.yml, pip.conf: the box sees a keyless copy */
    char **copies;   /* the copy for each of settings, once made */
    char *copy_dir;  /* where the copies are, removed with them */
};

/* The patterns in force: the one list and config.json's additions (cp_protected_in_force). */
const char *const *cp_protect_patterns(const struct cp_config *cfg, char ***owned_out);

/* Walks workdir (links are never followed; dependency folders are not entered, nor is a
 * protected folder or a .git). */
int cp_protect_scan(const char *workdir, const char *const *patterns, struct cp_protected *out,
                    cp_error_t *err);

/* Writes the keyless copy of each of p->settings into a folder of its own (0700, files 0600)
 * under $CONCH_HOME/workplaces, named after the box. A file too large to read is covered
 * instead. */
int cp_protect_make_copies(struct cp_protected *p, const char *box, cp_error_t *err);

/* What a sealed box sees in its HOME (/tmp) instead of the person's registry settings there,
 * so its clients ask the person's registries (whose sign-ins the sidecar adds) with no key in
 * reach: /tmp/.npmrc with ~/.npmrc's registry lines only; /etc/pip.conf with pip's pip.conf
 * (the one the allow-list read) without user:password; /tmp/.yarnrc.yml and /tmp/.bunfig.toml
 * without their keys. Each is added to p->settings (the box path) and p->copies, beside the
 * work folder's copies, for a file of ~ that exists; one that cannot be read as settings is
 * left out (the box then asks the public registries, which the allow-list leaves off). */
int cp_protect_home_copies(struct cp_protected *p, const char *box, const char *home,
                           const char *xdg_config, cp_error_t *err);

/* Removes the copy folders whose run is gone (a kill -9 leaves its own behind). */
int cp_protect_sweep_copies(int *removed_out, cp_error_t *err);

/* Frees p, removing the copies it made. */
void cp_protected_dispose(struct cp_protected *p);
#define cleanup_protected __attribute__((cleanup(cp_protected_dispose)))

#endif
