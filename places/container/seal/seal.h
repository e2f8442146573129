/* A sealed run's seal (seal.c): what the container place holds from the allow-list, the sidecar
 * and the box's trust for one box. */
#ifndef CONCH_SEAL_H
#define CONCH_SEAL_H

#include <time.h>

#include "places/container/allow/allow.h"
#include "places/container/engine/engine.h"
#include "places/container/seal/sidecar.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"
#include "places/container/seal/seal-probe.h"

/* What a sealed run needs from the list, the sidecar and the trust, for the container place
 * to hold. */
struct cp_seal {
    struct cp_allowlist list;
    struct cp_sidecar sidecar;
    char **env;          /* the proxy variables for this box, and its sign-ins' placeholders */
    bool named_sign_ins; /* env holds placeholders, which serve this run alone: no warm box */
    char *box;           /* the box's name, which is its proxy user */
    time_t since;        /* when the run began, for reading the sidecar's log */
    char *ca_bundle;     /* the box's bundle: its image's roots and the sidecar's CA */
    char **ca_paths;     /* where the box sees it */
};

/* The list for the folder, its sidecar, the variables for the box named box, and the CA
 * bundle for a box of image_id. */
int cp_seal_prepare(struct cp_engine *e, const char *workdir, const struct cp_config *cfg,
                    const char *box, const char *image_id, struct cp_seal *out, cp_error_t *err);
/* After the command: the hint when it failed and the sidecar refused something for it. */
void cp_seal_after(struct cp_engine *e, const struct cp_seal *seal, int status,
                   const char *workdir);
void cp_seal_dispose(struct cp_seal *s);

#endif
