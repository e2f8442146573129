/* What a folder's sidecar is made from (egress-proxy's arguments, the upstream proxy) and the
 * names and labels derived from it: one internal network and one sidecar per folder and list,
 * both named conch-egress-HASH (why per folder: sidecar-network.c's opening). */
#ifndef CONCH_SIDECAR_NAMES_H
#define CONCH_SIDECAR_NAMES_H

#include <stdbool.h>

#include <json-c/json.h>

#include "places/container/allow/allow.h"
#include "places/container/seal/sidecar.h"

/* The labels on the network and the sidecar alike. */
#define CP_SIDECAR_LABEL "conch.egress"
#define CP_LIST_LABEL    "conch.egress.list"
#define CP_FOLDER_LABEL  "conch.egress.folder"
/* The CONCH_HOME that made it (cp_home_mark): `clean` removes only its own home's idle
 * sidecars; another home's leave by their own idle exit (CP_SIDECAR_IDLE_SECS). */
#define CP_HOME_LABEL "conch.egress.home"
/* The folder's network holder (sidecar-hold.c) carries this one and the folder's, not the
 * sidecar's: it is no sidecar. */
#define CP_HOLD_LABEL "conch.egress.hold"

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

/* The holder of a folder's network namespace for the sidecar named sidecar: one box on the
 * network, in the sidecar's PID namespace, that the folder's sealed boxes join
 * (sidecar-hold.c). s->holder and s->join are set; made under the sidecar's lock. */
int cp_sidecar_hold(struct cp_engine *e, const char *image, const struct cp_sidecar_names *n,
                    struct cp_sidecar *s, cp_error_t *err);
/* False when CONCH_PLACE_NO_HOLD is set (to measure or test boxes on the network itself). */
bool cp_sidecar_hold_wanted(void);
/* The holder's name for a sidecar's; the caller's. */
char *cp_sidecar_holder_name(const char *sidecar);
/* The network mode that joins the holder inspected as c (container:ID on Docker, ns:PATH on
 * Podman: sidecar-hold.c's opening), or NULL; the caller's. */
char *cp_sidecar_join_mode(const struct cp_engine *e, json_object *c);
/* Removes the sidecar's holder where it is ours (a box of that name that is not, stays),
 * before the sidecar. */
void cp_sidecar_holder_remove(struct cp_engine *e, const char *sidecar);

#endif
