/* The person's sign-ins to their own registries and to the work folder's HTTPS remotes, which
 * the egress sidecar adds to a sealed box's reading requests (DESIGN.md, "The egress
 * sidecar"): found here, read afresh for every run, kept in memory, never in the box. */
#ifndef CONCH_SIGN_INS_H
#define CONCH_SIGN_INS_H

#include "places/container/allow/settings-sources.h"
#include "places/container/allow/sign-ins-list.h"
#include "src/base/error.h"

/* Every sign-in for a sealed run of src->workdir, read afresh now. A file that exists but
 * cannot be read is an error, as the allow-list does. */
int cp_sign_ins_collect(const struct cp_settings_sources *src, struct cp_sign_ins *out,
                        cp_error_t *err);

/* The sidecar's message: {"id","sign_ins":[{"host","prefix","authorization","source"}...]} on
 * one line ending in '\n' (a named sign-in's entry adds "header", "placeholder", "write"); id (hex,
 * or NULL for none) comes back in the sidecar's answer. The caller wipes and frees it
 * (cp_free_secret). */
char *cp_sign_ins_message(const struct cp_sign_ins *s, const char *id);

/* "CONCH_SIGNIN_NAME=PLACEHOLDER" for each named sign-in, for the box; the caller's
 * (cp_strv_free). */
char **cp_sign_ins_box_env(const struct cp_sign_ins *s);

/* A run of this folder going beside (its sidecar's id) has placeholders: s takes them for the
 * sign-ins both have, so that this run's message leaves that run's box its own; box is
 * registered as live until cp_sign_ins_unshare (sign-ins-share.c). */
void cp_sign_ins_share(struct cp_sign_ins *s, const char *sidecar_id, const char *box);
void cp_sign_ins_unshare(const char *sidecar_id, const char *box);

/* The same with ~ and $XDG_CONFIG_HOME from the environment (cp_settings_sources_from_env). */
int cp_sign_ins_for(const char *workdir, struct cp_sign_ins *out, cp_error_t *err);

#endif
