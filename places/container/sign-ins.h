/* The person's sign-ins to their own registries and to the work folder's HTTPS remotes, which
 * the egress sidecar adds to a sealed box's reading requests (DESIGN.md, "The egress
 * sidecar"): found here, read afresh for every run, kept in memory, never in the box. */
#ifndef CONCH_SIGN_INS_H
#define CONCH_SIGN_INS_H

#include <stdbool.h>
#include <stddef.h>

#include "places/container/settings-sources.h"
#include "src/base/error.h"

struct cp_sign_in {
    char *host;          /* lower-case name; the registry's or the remote's */
    char *prefix;        /* path prefix starting with '/', ending with '/' ("/" for a whole host) */
    char *authorization; /* the whole header value: "Bearer T" or "Basic B64" */
    char *source;        /* where it came from, words a person can act on; never secret */
};

struct cp_sign_ins {
    struct cp_sign_in *v;
    size_t n;
};

/* Every sign-in for a sealed run of src->workdir, read afresh now. A file that exists but
 * cannot be read is an error, as the allow-list does. */
int cp_sign_ins_collect(const struct cp_settings_sources *src, struct cp_sign_ins *out,
                        cp_error_t *err);

/* The sidecar's message: {"id","sign_ins":[{"host","prefix","authorization","source"}...]} on
 * one line ending in '\n'; id (hex, or NULL for none) comes back in the sidecar's answer. The
 * caller wipes and frees it (cp_free_secret). */
char *cp_sign_ins_message(const struct cp_sign_ins *s, const char *id);

/* Whether host has a sign-in (for `hosts` words). */
bool cp_sign_ins_has(const struct cp_sign_ins *s, const char *host);

/* Wipes every authorization. */
void cp_sign_ins_dispose(struct cp_sign_ins *s);
#define cleanup_sign_ins __attribute__((cleanup(cp_sign_ins_dispose)))

/* The same with ~ and $XDG_CONFIG_HOME from the environment (cp_settings_sources_from_env). */
int cp_sign_ins_for(const char *workdir, struct cp_sign_ins *out, cp_error_t *err);

/* ${NAME} in value replaced from the environment, as npm and Yarn do (\${NAME} stays as
 * written); $NAME too when bare is set, as Bun does. NULL when a variable is unset, its name in
 * *missing_out (the caller's). The caller's: cp_free_secret. */
char *cp_sign_in_expand(const char *value, bool bare, char **missing_out);

#endif
