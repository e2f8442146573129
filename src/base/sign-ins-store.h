/* The sign-ins the person named (`conch-place sign-ins add HOST`, issue 33), kept per folder in
 * $CONCH_HOME/workplaces.secrets.json beside Daytona's key, with that file's checks (a plain
 * file of ours, 0600, every copy wiped):
 *
 *   {"sign_ins": {"/abs/folder": [{"host": "api.example", "path": "/v1/",
 *     "header": "Authorization", "scheme": "bearer", "env": "API_EXAMPLE", "write": false,
 *     "secret": "..."}]}}
 *
 * One sign-in per host per folder. The secret never leaves this file but for the sidecar's
 * message (places/container/allow/sign-ins-named.c); listing reads it for nobody. */
#ifndef CONCH_SIGN_INS_STORE_H
#define CONCH_SIGN_INS_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/base/error.h"

#define CP_SIGN_IN_ENV_MAX    64   /* NAME of CONCH_SIGNIN_NAME */
#define CP_SIGN_IN_HEADER_MAX 64   /* the sidecar's own bound (egress/egress.h) */
#define CP_SIGN_IN_PATH_MAX   1024 /* likewise */

struct cp_named_sign_in {
    char *host;   /* a lower-case name, never a pattern or an address */
    char *prefix; /* begins and ends with '/' ("/" for the whole host) */
    char *header; /* the header the sidecar puts the secret in ("Authorization") */
    char *scheme; /* "bearer", "basic" or "raw": how the secret is written there */
    char *env;    /* the box's variable is CONCH_SIGNIN_<env> */
    bool write;   /* every method carries it, not only fetching ones (--write) */
    char *secret; /* NULL when read without secrets */
};

struct cp_named_sign_ins {
    struct cp_named_sign_in *v;
    size_t n;
};

void cp_named_sign_ins_dispose(struct cp_named_sign_ins *l);
#define cleanup_named_sign_ins __attribute__((cleanup(cp_named_sign_ins_dispose)))

/* The checks `sign-ins add` makes, each failure with what to do; also made on every entry the
 * file holds, since it may have been written by hand. */
int cp_sign_in_host_check(const char *host, cp_error_t *err);
/* path as a prefix ("/v1" -> "/v1/"); *out the caller's. */
int cp_sign_in_path_check(const char *path, char **out, cp_error_t *err);
int cp_sign_in_header_check(const char *header, cp_error_t *err);
int cp_sign_in_scheme_check(const char *scheme, cp_error_t *err);
int cp_sign_in_env_check(const char *env, cp_error_t *err);
int cp_sign_in_secret_check(const char *scheme, const char *secret, size_t len, cp_error_t *err);
/* The default env name: the host upper-cased, every other byte than a letter or digit '_'. */
char *cp_sign_in_env_default(const char *host);

/* The header's whole value: "Bearer S", "Basic " base64(S), or S. The caller's: cp_free_secret. */
char *cp_sign_in_value(const char *scheme, const char *secret);

/* folder's sign-ins (a real path), with their secrets when secrets is set; none when the file
 * or the folder's entry is absent. */
int cp_sign_ins_stored(const char *folder, bool secrets, struct cp_named_sign_ins *out,
                       cp_error_t *err);
/* Adds s (its secret set), or replaces the folder's sign-in for the same host. Another host's
 * sign-in with the same env name is refused. */
int cp_sign_in_store(const char *folder, const struct cp_named_sign_in *s, cp_error_t *err);
/* Removes the folder's sign-in for host; CP_ERR_USAGE naming it when there is none. */
int cp_sign_in_unstore(const char *folder, const char *host, cp_error_t *err);

#endif
