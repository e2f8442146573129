/* A folder's sidecar given its keys (egress/egress.h): its CA with the key, the secret its
 * boxes' credentials come from, and the upstream proxy with its password. They go the sign-ins'
 * way (sign-in-send.h), which the engine keeps nowhere, and never into the sidecar's
 * environment, argv, labels or a volume, which it keeps in the box's config: `inspect` shows
 * them to anyone who may use the engine, and the engine writes them to its own state on disk.
 *
 * The secret is no random number a run would have to read back from the sidecar: it is
 * HMAC-SHA256 of the sidecar's engine id under the CA (certificate and key), so each sidecar
 * has its own, nobody without the CA's key can know it, and every run makes it again from what
 * it holds. A sidecar that the engine restarted has lost its keys with its process: a mark
 * beside the folder's lock, named by the sidecar's id, holds its start time once it has taken
 * them, and a run that finds another start time (or no mark) gives them again. A sidecar that has
 * them answers the same keys again, so a lost mark costs one message. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/seal/sidecar-names.h"
#include "places/container/seal/sidecar.h"
#include "places/container/seal/sign-in-send.h"
#include "egress/egress.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define SECRET_LABEL "conch-place egress secret\n"
#define MARK_MAX     512

static char *sidecar_secret(const char *ca_pem, const char *id)
{
    cleanup_free char *msg = xasprintf("%s%s", SECRET_LABEL, id);
    uint8_t mac[CP_SHA256_LEN];
    cp_hmac_sha256(ca_pem, strlen(ca_pem), msg, strlen(msg), mac);
    char *hex = xmalloc(2 * CP_SHA256_LEN + 1);
    cp_hex(mac, CP_SHA256_LEN, hex);
    explicit_bzero(mac, sizeof(mac));
    return hex;
}

/* Beside the folder's lock (sidecar-start.c): the person's, whatever CONCH_HOME made it; by the
 * sidecar's id, which no other sidecar has on any engine. */
static char *mark_path(const char *id)
{
    cleanup_free char *dir = cp_person_dir();
    cleanup_error cp_error_t err = NULL;
    if (dir == NULL && cp_workplaces_dir(&dir, &err) < 0)
        return NULL;
    return xasprintf("%s/keys-%.64s", dir, id);
}

static bool marked(const char *path, const char *want)
{
    cleanup_free char *text = NULL;
    cleanup_error cp_error_t err = NULL;
    return path != NULL && cp_read_file(path, MARK_MAX, &text, NULL, &err) == 0 &&
           strcmp(text, want) == 0;
}

/* The upstream from conch-place's own environment ("K=V", sidecar-names.c) into k. */
static void upstream_values(struct cp_egress_keys *k)
{
    cleanup_strv char **up = cp_sidecar_upstream_env();
    for (size_t i = 0; up[i] != NULL; i++) {
        const char *eq = strchr(up[i], '=');
        if (eq != NULL && strncmp(up[i], "HTTPS_PROXY=", 12) == 0)
            k->https_proxy = xstrdup(eq + 1);
        else if (eq != NULL && strncmp(up[i], "NO_PROXY=", 9) == 0)
            k->no_proxy = xstrdup(eq + 1);
        explicit_bzero(up[i], strlen(up[i]));
    }
}

static int send_keys(struct cp_engine *e, const struct cp_sidecar *s,
                     const struct cp_sidecar_trust *trust, cp_error_t *err)
{
    __attribute__((cleanup(cp_egress_keys_dispose))) struct cp_egress_keys k = {
        .secret = xstrdup(s->secret), .ca_pem = xstrdup(trust->ca_pem)};
    upstream_values(&k);
    char id[17];
    cp_box_random_hex(id, sizeof(id));
    __attribute__((cleanup(cp_cleanup_freep))) char *line = cp_egress_keys_message(&k, id);
    int r =
        cp_sidecar_send_line(e, s, line, CP_EGRESS_KEYS_ANSWER, id, CP_SIDECAR_KEYS_ACK_MS, err);
    explicit_bzero(line, strlen(line));
    return r < 0 ? cp_error_wrap(err, "giving the egress sidecar its keys") : 0;
}

int cp_sidecar_keys_give(struct cp_engine *e, struct cp_sidecar *s, const char *started,
                         const struct cp_sidecar_trust *trust, cp_error_t *err)
{
    cp_free_secret(s->secret);
    s->secret = sidecar_secret(trust->ca_pem, s->id);
    cleanup_free char *path = mark_path(s->id);
    cleanup_free char *want = xasprintf("%s\n", started != NULL ? started : "");
    if (started != NULL && marked(path, want))
        return 0;
    if (send_keys(e, s, trust, err) < 0)
        return cp_error_code(err);
    cleanup_error cp_error_t merr = NULL;
    if (path != NULL && started != NULL &&
        cp_write_file_atomic(path, want, strlen(want), 0600, &merr) < 0)
        cp_debug("%s (the next run gives the keys again)", merr->msg);
    return 0;
}

void cp_sidecar_keys_forget(const char *id)
{
    cleanup_free char *path = id != NULL ? mark_path(id) : NULL;
    if (path != NULL)
        unlink(path);
}
