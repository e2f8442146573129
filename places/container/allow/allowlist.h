/* The sealed box's allow-list (DESIGN.md, "The egress sidecar"): the registries of ADR 0148,
 * minus a public registry the person moved, plus the person's own registry in its place, plus
 * the work folder's HTTPS remotes, plus the folder's egress entries, each host with why it is
 * on the list or left off, and whether the sidecar adds a sign-in there. The list itself, and
 * what `hosts` asks of it, are in container.h. */
#ifndef CONCH_ALLOWLIST_H
#define CONCH_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "places/container/container.h"
#include "places/container/allow/settings-sources.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* Fails on a settings file that exists but cannot be read, rather than guess
 * that a registry was not moved. */
int cp_allowlist_build(const struct cp_settings_sources *src, struct cp_allowlist *out,
                       cp_error_t *err);
/* The same with ~ and $XDG_CONFIG_HOME from the environment, and sign_ins (may be NULL), which
 * the caller collected with cp_sign_ins_for and also sends to the sidecar. */
int cp_allowlist_signed_for(const char *workdir, const struct cp_config *cfg,
                            const struct cp_sign_ins *sign_ins, struct cp_allowlist *out,
                            cp_error_t *err);
bool cp_allowlist_has(const struct cp_allowlist *l, const char *host);

/* The allowed hosts joined by ", " (or the words for allow-all); the caller's. */
char *cp_allowlist_summary(const struct cp_allowlist *l);

/* The list's identity, each host's mode and extra (the sidecar's other options) folded in:
 * 64 hex digits. */
void cp_allowlist_hash(const struct cp_allowlist *l, const char *extra, char out[65]);

#endif
