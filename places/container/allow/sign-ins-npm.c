/* The npm family's sign-ins: npm's .npmrc (a nerf-dart's token, _auth, or username and
 * _password), Yarn's .yarnrc.yml (npmAuthToken or npmAuthIdent per registry) and Bun's
 * .bunfig.toml (a registry's token, username and password, or a user:password in its
 * address). */
#include "config.h"

#include <string.h>

#include "places/container/allow/sign-ins-sources.h"
#include "src/base/digest.h"
#include "src/base/secrets.h"
#include "src/base/util.h"

/* ---- npm ---- */

/* "host[:port]/path" of a nerf-dart: its host and prefix, or false. */
static bool nerf_split(const char *nerf, const char *source, char **host_out, char **prefix_out)
{
    cleanup_free char *url = xasprintf("https://%s", nerf);
    cleanup_url struct cp_url u = {0};
    if (cp_url_parse(url, &u) < 0 || u.user != NULL || !cp_sign_in_reachable(&u, source))
        return false;
    *host_out = xstrdup(u.host);
    *prefix_out = cp_sign_in_prefix(u.path);
    return true;
}

/* The value of key for nerf among the records, expanded; NULL when absent or unset. */
static char *npm_value(char **recs, const char *nerf, const char *key, const char *source)
{
    for (size_t i = 0; recs[i] != NULL; i++) {
        char *f[3];
        cleanup_free char *copy = xstrdup(recs[i]);
        if (!cp_sign_in_fields(copy, f, 3) || strcmp(f[0], nerf) != 0 || strcmp(f[1], key) != 0) {
            explicit_bzero(copy, strlen(recs[i]));
            continue;
        }
        cleanup_free char *what = xasprintf("//%s:%s", nerf, key);
        char *v = cp_sign_in_expanded(f[2], false, source, what);
        explicit_bzero(copy, strlen(recs[i]));
        return v;
    }
    return NULL;
}

/* npm's order: a token, else _auth, else username with its base64 _password. */
static char *npm_authorization(char **recs, const char *nerf, const char *source)
{
    char *token = npm_value(recs, nerf, "_authToken", source);
    if (token != NULL) {
        char *a = xasprintf("Bearer %s", token);
        cp_free_secret(token);
        return a;
    }
    char *auth = npm_value(recs, nerf, "_auth", source);
    if (auth != NULL) {
        char *a = xasprintf("Basic %s", auth);
        cp_free_secret(auth);
        return a;
    }
    char *user = npm_value(recs, nerf, "username", source);
    char *pass64 = npm_value(recs, nerf, "_password", source);
    unsigned char *pass = NULL;
    size_t plen = 0;
    char *a = NULL;
    if (user != NULL && pass64 != NULL &&
        cp_base64_decode(pass64, strlen(pass64), &pass, &plen) == 0) {
        cleanup_free char *p = strndup((const char *)pass, plen);
        a = cp_sign_in_basic(user, p);
        explicit_bzero(p, strlen(p));
        explicit_bzero(pass, plen);
    }
    free(pass);
    cp_free_secret(user);
    cp_free_secret(pass64);
    return a;
}

static void npm_add(struct cp_sign_ins *s, char **recs, const char *source)
{
    for (size_t i = 0; recs[i] != NULL; i++) {
        cleanup_free char *nerf = strndup(recs[i], strcspn(recs[i], "\t"));
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strncmp(recs[k], nerf, strlen(nerf)) == 0 && recs[k][strlen(nerf)] == '\t';
        cleanup_free char *host = NULL, *prefix = NULL;
        if (seen || !nerf_split(nerf, source, &host, &prefix))
            continue;
        char *a = npm_authorization(recs, nerf, source);
        if (a != NULL)
            cp_sign_ins_add(s, host, prefix, a, source);
    }
}

int cp_sign_ins_npm_file(struct cp_sign_ins *s, const char *path, const char *shown,
                         cp_error_t *err)
{
    cleanup_strv_secret char **recs = NULL;
    if (cp_sign_in_records(path, shown, cp_npmrc_sign_in_lines, &recs, err) < 0)
        return cp_error_code(err);
    npm_add(s, recs, shown);
    return 0;
}

/* ---- Bun ---- */

static char *bun_authorization(char **f, const char *source)
{
    if (f[1][0] != '\0') {
        cleanup_secret char *t = cp_sign_in_expanded(f[1], true, source, "a registry's token");
        return t ? xasprintf("Bearer %s", t) : NULL;
    }
    if (f[2][0] != '\0' && f[3][0] != '\0') {
        cleanup_secret char *u = cp_sign_in_expanded(f[2], true, source, "a registry's username");
        cleanup_secret char *p =
            u ? cp_sign_in_expanded(f[3], true, source, "a registry's password") : NULL;
        return p ? cp_sign_in_basic(u, p) : NULL;
    }
    return cp_sign_in_url_basic(f[0]);
}

int cp_sign_ins_bun_file(struct cp_sign_ins *s, const char *path, const char *shown,
                         cp_error_t *err)
{
    cleanup_strv_secret char **recs = NULL;
    if (cp_sign_in_records(path, shown, cp_bunfig_sign_in_lines, &recs, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0; recs[i] != NULL; i++) {
        size_t n = strlen(recs[i]);
        char *copy = xstrdup(recs[i]), *f[4];
        if (cp_sign_in_fields(copy, f, 4))
            cp_sign_ins_add_for_url(s, f[0], bun_authorization(f, shown), shown, cp_sign_in_prefix);
        cp_sign_in_free_text(copy, n);
    }
    return 0;
}

/* ---- Yarn ---- */

/* Yarn's npmAuthIdent: "user:password", or already in base64. */
static char *yarn_authorization(const char *token, const char *ident, const char *source)
{
    if (token[0] != '\0') {
        cleanup_secret char *t = cp_sign_in_expanded(token, false, source, "npmAuthToken");
        return t ? xasprintf("Bearer %s", t) : NULL;
    }
    cleanup_secret char *i = cp_sign_in_expanded(ident, false, source, "npmAuthIdent");
    if (i == NULL)
        return NULL;
    char *colon = strchr(i, ':');
    if (colon == NULL)
        return xasprintf("Basic %s", i);
    *colon = '\0';
    return cp_sign_in_basic(i, colon + 1);
}

int cp_sign_ins_yarn_file(struct cp_sign_ins *s, const char *path, const char *shown,
                          cp_error_t *err)
{
    cleanup_strv_secret char **recs = NULL;
    if (cp_sign_in_records(path, shown, cp_yarnrc_sign_in_lines, &recs, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0; recs[i] != NULL; i++) {
        size_t n = strlen(recs[i]);
        char *copy = xstrdup(recs[i]), *f[3];
        if (cp_sign_in_fields(copy, f, 3)) {
            /* npmRegistries keys are written "//host/path" as often as with a scheme. */
            cleanup_free char *url =
                strncmp(f[0], "//", 2) == 0 ? xasprintf("https:%s", f[0]) : xstrdup(f[0]);
            cp_sign_ins_add_for_url(s, url, yarn_authorization(f[1], f[2], shown), shown,
                                    cp_sign_in_prefix);
        }
        cp_sign_in_free_text(copy, n);
    }
    return 0;
}
