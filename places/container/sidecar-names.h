/* What a folder's sidecar is made from (egress-proxy's arguments, the upstream proxy) and the
 * names and labels derived from it: one internal network and one sidecar per folder and list,
 * both named conch-egress-HASH (why per folder: sidecar-network.c's opening). */
#ifndef CONCH_SIDECAR_NAMES_H
#define CONCH_SIDECAR_NAMES_H

#include <json-c/json.h>

#include "places/container/allowlist.h"
#include "places/container/sidecar.h"

/* The labels on the network and the sidecar alike. */
#define CP_SIDECAR_LABEL "conch.egress"
#define CP_LIST_LABEL    "conch.egress.list"
#define CP_FOLDER_LABEL  "conch.egress.folder"

/* What a folder's sidecar and network are named and labelled with. */
struct cp_sidecar_names {
    char list[17];   /* the list's hash */
    char folder[17]; /* the folder's */
    char *name;      /* the network's and the sidecar's */
    char **args;     /* egress-proxy's arguments (after its entrypoint) */
};

/* The arguments for list, and the names for them run from image with trust for the folder
 * workdir (a real path). */
void cp_sidecar_names_make(const struct cp_allowlist *list, const char *image,
                           const struct cp_sidecar_trust *trust, const char *workdir,
                           struct cp_sidecar_names *out);
void cp_sidecar_names_dispose(struct cp_sidecar_names *n);
#define cleanup_sidecar_names __attribute__((cleanup(cp_sidecar_names_dispose)))

/* conch.egress=1, the list's hash and the folder's; the caller's. */
json_object *cp_sidecar_labels(const struct cp_sidecar_names *n);

/* The upstream proxy from conch-place's own environment, "K=V" (at most two), for the
 * sidecar's environment only; the caller wipes and frees it. */
char **cp_sidecar_upstream_env(void);

#endif
