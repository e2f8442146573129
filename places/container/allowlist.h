/* The sealed box's allow-list (DESIGN.md, "The egress sidecar"): the registries of ADR 0148,
 * minus a public registry the person moved, plus the person's own registry in its place, plus
 * the work folder's HTTPS remotes, plus the folder's egress entries, each host with why it is
 * on the list or left off, and whether the sidecar adds a sign-in there. */
#ifndef CONCH_ALLOWLIST_H
#define CONCH_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "places/container/settings-sources.h"
#include "src/base/error.h"
#include "src/base/settings.h"

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

/* Fails on a settings file that exists but cannot be read, rather than guess
 * that a registry was not moved. */
int cp_allowlist_build(const struct cp_settings_sources *src, struct cp_allowlist *out,
                       cp_error_t *err);
/* The same with ~ and $XDG_CONFIG_HOME from the environment, and sign_ins (may be NULL), which
 * the caller collected with cp_sign_ins_for and also sends to the sidecar. */
int cp_allowlist_signed_for(const char *workdir, const struct cp_config *cfg,
                            const struct cp_sign_ins *sign_ins, struct cp_allowlist *out,
                            cp_error_t *err);
/* The same, collecting the sign-ins itself (for `hosts`, whose words tell which hosts have
 * one); they are dropped after. */
int cp_allowlist_for(const char *workdir, const struct cp_config *cfg, struct cp_allowlist *out,
                     cp_error_t *err);

void cp_allowlist_dispose(struct cp_allowlist *l);
#define cleanup_allowlist __attribute__((cleanup(cp_allowlist_dispose)))

bool cp_allowlist_has(const struct cp_allowlist *l, const char *host);

/* {"allowed": [{"host", "why", "mode"[, "sign_in": true]}...], "left_off": [{"host",
 * "why"}...]}, mode being "read", "write" or "pass-through"; never a credential. The
 * caller's. */
json_object *cp_allowlist_json(const struct cp_allowlist *l);

/* The allowed hosts joined by ", " (or the words for allow-all); the caller's. */
char *cp_allowlist_summary(const struct cp_allowlist *l);

/* The list's identity, each host's mode and extra (the sidecar's other options) folded in:
 * 64 hex digits. */
void cp_allowlist_hash(const struct cp_allowlist *l, const char *extra, char out[65]);

#endif
