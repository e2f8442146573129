/* The sign-ins the person named for this folder (`sign-ins add`, src/base/sign-ins-store.h),
 * read afresh for a run, each given a placeholder of its own for this run: 128 random bits from
 * OpenSSL's generator, which the box holds in CONCH_SIGNIN_<NAME> and the sidecar replaces in
 * the named header for that host and prefix alone (egress/egress.h). The secret goes
 * only into the sidecar's message; the placeholder is worthless anywhere else. */
#include "config.h"

#include <string.h>

#include <openssl/rand.h>

#include "places/container/allow/sign-ins-sources.h"
#include "places/container/allow/sign-ins.h"
#include "src/base/sign-ins-store.h"
#include "src/base/util.h"

#define PLACEHOLDER_BYTES 16

static int placeholder_new(char **out, cp_error_t *err)
{
    unsigned char r[PLACEHOLDER_BYTES];
    if (RAND_bytes(r, sizeof(r)) != 1)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "OpenSSL's random generator gave no placeholder for a sign-in");
    char hex[2 * PLACEHOLDER_BYTES + 1];
    for (size_t i = 0; i < sizeof(r); i++) {
        hex[2 * i] = "0123456789abcdef"[r[i] >> 4];
        hex[2 * i + 1] = "0123456789abcdef"[r[i] & 0xf];
    }
    hex[sizeof(hex) - 1] = '\0';
    *out = xasprintf("conch-sign-in-%s", hex);
    return 0;
}

int cp_sign_ins_named(struct cp_sign_ins *s, const char *workdir, cp_error_t *err)
{
    cleanup_named_sign_ins struct cp_named_sign_ins stored = {0};
    if (cp_sign_ins_stored(workdir, true, &stored, err) < 0)
        return cp_error_wrap(err, "your sign-ins for %s", workdir);
    for (size_t i = 0; i < stored.n; i++) {
        const struct cp_named_sign_in *n = &stored.v[i];
        cleanup_free char *source = xasprintf("conch-place sign-ins add %s", n->host);
        struct cp_sign_in one = {
            .host = n->host,
            .prefix = n->prefix,
            .source = source,
            .header = n->header,
            .env = n->env,
            .write = n->write,
        };
        if (placeholder_new(&one.placeholder, err) < 0)
            return cp_error_code(err);
        one.authorization = cp_sign_in_value(n->scheme, n->secret);
        cp_sign_ins_add_named(s, &one); /* takes the value and the placeholder */
    }
    return 0;
}

char **cp_sign_ins_box_env(const struct cp_sign_ins *s)
{
    size_t n = 0;
    char **v = xcalloc(s->n + 1, sizeof(char *));
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].placeholder != NULL)
            v[n++] = xasprintf("CONCH_SIGNIN_%s=%s", s->v[i].env, s->v[i].placeholder);
    return v;
}
