/* The egress sidecar (DESIGN.md, "The egress sidecar"): per folder and allow-list, one internal
 * network and one `conch-place egress-proxy` box on it and on the engine's default network,
 * labelled conch.egress=1, conch.egress.list=<the list's hash> and conch.egress.folder=<the
 * folder's>, shared by every sealed box of that folder with that list, leaving by itself after
 * 15 idle minutes (why per folder, and how the network is sealed: sidecar-network.c's opening).
 * Sealed boxes join the internal network with no resolver, no IPv6, and the proxy variables
 * naming the sidecar by address with a per-box credential. Started in sidecar-start.c, given its
 * keys (CA, secret, upstream proxy: never in its config) in sidecar-keys.c, named in
 * sidecar-names.c, its variables in sidecar-proxy-env.c, swept in sidecar-clean.c, its refusal
 * hint in egress-hint.c; a run's seal over all of it is seal.h. */
#ifndef CONCH_SIDECAR_H
#define CONCH_SIDECAR_H

#include <stdbool.h>
#include <time.h>

#include "places/container/allow/allow.h"
#include "places/container/engine/engine.h"
#define CP_SIDECAR_PORT      3128
#define CP_SIDECAR_IDLE_SECS 900
/* Connections a sidecar takes at once, every box of its folder together (each past it is
 * answered 503); its threads and memory are bounded to fit. */
#define CP_SIDECAR_CONNECTIONS 1024

/* Knobs for tests and unusual networks, folded into the list's hash:
 * CONCH_EGRESS_ALLOW_CIDR  comma-separated CIDRs listed names may reach although not public
 *                          (a network whose resolver answers with reserved addresses);
 * CONCH_EGRESS_RESOLVE     comma-separated HOST=ADDR pins, still checked like any answer;
 * CONCH_EGRESS_IDLE        the sidecar's idle seconds before it leaves (default 900). */

struct cp_sidecar {
    char *name;     /* the sidecar's name, which is also its internal network's */
    char *id;       /* the sidecar's id */
    char *ip;       /* its address on the internal network */
    char *secret;   /* the boxes' credentials' secret, made from the CA and the id by each run
                     * (sidecar-keys.c): never stored, never in the sidecar's config */
    char *holder;   /* the id of the box whose network namespace sealed boxes join
                     * (sidecar-hold.c); NULL: they join the internal network itself */
    char *join;     /* ... and the network mode that joins it: container:ID on Docker,
                     * ns:PATH on Podman */
    char *pid_mode; /* how the holder joins the sidecar's PID namespace: container:ID on
                     * Docker, ns:/proc/PID/ns/pid on Podman (sidecar-hold.c); NULL: no holder */
    int use_fd;     /* the shared hold on its use lock (cp_sidecar_use_lock), while use_held */
    bool use_held;
};

/* What the sidecar signs with and trusts: its CA (certificate and key, PEM), the CA's
 * fingerprint, and egress.ca_file's certificates (NULL when unset). Folded into the list's
 * hash. The CA reaches the sidecar with its keys (sidecar-keys.c), the certificates, which are
 * no secret, in its environment. */
struct cp_sidecar_trust {
    char *ca_pem;
    char ca_fingerprint[65];
    char *extra;
};

/* Finds the running sidecar for this folder (a real path) and list, or makes its network and
 * it (a dead one is replaced); a sidecar made now must answer a probe box on its network.
 * Fails, so that no box is made, when the engine cannot make an internal network without a
 * host address, the sidecar does not come up, or a box on the network cannot reach it. */
int cp_sidecar_ensure(struct cp_engine *e, const struct cp_allowlist *list, const char *workdir,
                      const struct cp_sidecar_trust *trust, struct cp_sidecar *out,
                      cp_error_t *err);
void cp_sidecar_dispose(struct cp_sidecar *s);
#define cleanup_sidecar __attribute__((cleanup(cp_sidecar_dispose)))

/* Gives the running sidecar s (its name and id set) its keys unless a mark says that this id,
 * started at started (the engine's State.StartedAt), has them: the CA, s->secret (set here,
 * always) and the upstream proxy, through the sign-ins' way. Under the folder's lock. */
int cp_sidecar_keys_give(struct cp_engine *e, struct cp_sidecar *s, const char *started,
                         const struct cp_sidecar_trust *trust, cp_error_t *err);
/* Drops the mark of the sidecar whose id is id (removed). */
void cp_sidecar_keys_forget(const char *id);

/* A folder's network and sidecar (name) are made, and given sign-ins, by one run at a time:
 * the lock's descriptor (the caller closes it), or an error (CP_ERR_INTERRUPTED for a
 * signal). */
int cp_sidecar_lock(const char *name, cp_error_t *err);

/* A run holds its folder's sidecar in use from before it is found or made until the run's box
 * is on its network (the struct's dispose lets go): `clean`, of any CONCH_HOME of this person,
 * takes the lock alone and without waiting before it judges the sidecar, and leaves one it
 * cannot take. Without it, a clean between a run's sidecar step and its box removed the
 * sidecar the run was about to join. how: LOCK_SH (a run, waiting) or LOCK_EX | LOCK_NB
 * (clean). The descriptor, or -1 (not taken: held, or no lock to be had). */
int cp_sidecar_use_lock(const char *name, int how);

/* HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and their lower-case forms for box (a valid box id, see
 * egress/egress.h), as "K=V"; the caller's (cp_strv_free). */
int cp_sidecar_box_env(const struct cp_sidecar *s, const char *box, char ***out, cp_error_t *err);

/* After a sealed command failed: when the sidecar refused hosts for box, says which, the
 * allowed list, and the two ways on. Says nothing otherwise. */
void cp_sidecar_hint(struct cp_engine *e, const struct cp_sidecar *s, const char *box, time_t since,
                     const struct cp_allowlist *list, const char *workdir);

/* clean: sidecars no conch box uses any more, then conch.egress networks nothing is on. */
int cp_sidecar_clean(struct cp_engine *e, int *removed_out, cp_error_t *err);

#endif
