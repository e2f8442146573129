/* The named sign-ins' store and checks (sign-ins-store.h). A check refuses what the sidecar
 * would refuse, or what would let the secret go where it was not meant: a pattern or an address
 * for the host, a path the sidecar's prefix match would widen, a header that frames or routes
 * the request, a secret that could break the header it travels in. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "src/base/digest.h"
#include "src/base/hostname.h"
#include "src/base/json.h"
#include "src/base/secrets.h"
#include "src/base/sign-ins-store.h"
#include "src/base/util.h"

#define KEY         "sign_ins"
#define SIGN_IN_MAX 256 /* per folder; the sidecar takes 256 in one message */

static void cleanup_secret_jsonp(json_object **o)
{
    cp_secrets_json_free(o);
}
#define cleanup_secret_json __attribute__((cleanup(cleanup_secret_jsonp)))

void cp_named_sign_ins_dispose(struct cp_named_sign_ins *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct cp_named_sign_in *s = &l->v[i];
        free(s->host);
        free(s->prefix);
        free(s->header);
        free(s->scheme);
        free(s->env);
        cp_free_secret(s->secret);
    }
    free(l->v);
    *l = (struct cp_named_sign_ins){0};
}

int cp_sign_in_host_check(const char *host, cp_error_t *err)
{
    size_t n = strlen(host);
    if (n > 0 && host[n - 1] != '.' && cp_hostname_valid(host))
        return 0;
    cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a host name", host);
    cp_error_hint(err, "Give the name alone, as in 'conch-place sign-ins add api.example.com "
                       "--path /v1': no scheme, port, path, pattern or IP address (the sidecar "
                       "reaches names on port 443 only).");
    return CP_ERR_USAGE;
}

/* Bytes a path prefix may hold: RFC 3986's unreserved ones, sub-delims but ';' (a path
 * parameter, which the sidecar never signs), ':', '@' and '/'. No '%': an escape is decoded
 * before the match, so a prefix written with one could never match, or match more. */
static const char path_bytes[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                 "-._~!$&'()*+,=:@/";

static bool dot_segment(const char *path)
{
    for (const char *p = path; (p = strchr(p, '/')) != NULL; p++) {
        size_t seg = strcspn(p + 1, "/");
        if ((seg == 1 && p[1] == '.') || (seg == 2 && p[1] == '.' && p[2] == '.'))
            return true;
    }
    return false;
}

int cp_sign_in_path_check(const char *path, char **out, cp_error_t *err)
{
    size_t n = strlen(path);
    if (n == 0 || path[0] != '/' || n > CP_SIGN_IN_PATH_MAX - 1 || strspn(path, path_bytes) != n ||
        strstr(path, "//") != NULL || dot_segment(path)) {
        cp_error_make(err, CP_ERR_USAGE, 0, "--path '%s' is not a path prefix", path);
        cp_error_hint(err,
                      "Give the path the sign-in is for, beginning with '/', as in --path "
                      "/v1/: no query, '%%' escape, ';', '.' or '..' segment, at most %d "
                      "bytes.",
                      CP_SIGN_IN_PATH_MAX - 2);
        return CP_ERR_USAGE;
    }
    *out = path[n - 1] == '/' ? xstrdup(path) : xasprintf("%s/", path);
    return 0;
}

/* Headers that frame, route or hop: one of ours there would change what the request is, or
 * what the sidecar already sets (Accept-Encoding, to search answers for the secret). */
static const char *const hop_headers[] = {
    "Host",
    "Content-Length",
    "Transfer-Encoding",
    "Connection",
    "Keep-Alive",
    "Proxy-Authorization",
    "Proxy-Authenticate",
    "Proxy-Connection",
    "TE",
    "Trailer",
    "Upgrade",
    "Expect",
    "Accept-Encoding",
    "Content-Encoding",
    NULL,
};

int cp_sign_in_header_check(const char *header, cp_error_t *err)
{
    static const char token[] = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    size_t n = strlen(header);
    if (n == 0 || n > CP_SIGN_IN_HEADER_MAX || strspn(header, token) != n) {
        cp_error_make(err, CP_ERR_USAGE, 0, "--header '%s' is not a header name", header);
        cp_error_hint(err,
                      "Give a name of letters, digits and - (as in --header X-Api-Key), at "
                      "most %d bytes, without the ':'.",
                      CP_SIGN_IN_HEADER_MAX);
        return CP_ERR_USAGE;
    }
    for (size_t i = 0; hop_headers[i] != NULL; i++)
        if (strcasecmp(header, hop_headers[i]) == 0) {
            cp_error_make(err, CP_ERR_USAGE, 0,
                          "--header %s frames or routes the request, so it cannot carry a "
                          "sign-in",
                          header);
            cp_error_hint(err, "Name the header the service reads its key from (Authorization, "
                               "X-Api-Key, ...).");
            return CP_ERR_USAGE;
        }
    return 0;
}

int cp_sign_in_scheme_check(const char *scheme, cp_error_t *err)
{
    if (strcmp(scheme, "bearer") == 0 || strcmp(scheme, "basic") == 0 || strcmp(scheme, "raw") == 0)
        return 0;
    cp_error_make(err, CP_ERR_USAGE, 0, "--scheme '%s' is not bearer, basic or raw", scheme);
    cp_error_hint(err, "bearer sends 'Bearer SECRET', basic sends 'Basic ' and SECRET "
                       "(user:password) in base64, raw sends SECRET as it is.");
    return CP_ERR_USAGE;
}

int cp_sign_in_env_check(const char *env, cp_error_t *err)
{
    size_t n = strlen(env);
    if (n > 0 && n <= CP_SIGN_IN_ENV_MAX && !(env[0] >= '0' && env[0] <= '9') &&
        strspn(env, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n)
        return 0;
    cp_error_make(err, CP_ERR_USAGE, 0, "--env '%s' is not a variable name", env);
    cp_error_hint(err,
                  "Give upper-case letters, digits and _ (not first a digit), at most %d: "
                  "--env API makes CONCH_SIGNIN_API in the box.",
                  CP_SIGN_IN_ENV_MAX);
    return CP_ERR_USAGE;
}

int cp_sign_in_secret_check(const char *scheme, const char *secret, size_t len, cp_error_t *err)
{
    if (len == 0) {
        cp_error_make(err, CP_ERR_USAGE, 0, "the secret is empty");
        cp_error_hint(err, "Give it on standard input: conch-place sign-ins add HOST < FILE, or "
                           "type it when asked.");
        return CP_ERR_USAGE;
    }
    if (len > CP_SECRET_MAX)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the secret is longer than %d bytes",
                             CP_SECRET_MAX);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)secret[i] <= 0x20 || (unsigned char)secret[i] >= 0x7f) {
            cp_error_make(err, CP_ERR_USAGE, 0,
                          "the secret holds a space, a control or a non-ASCII byte at offset "
                          "%zu",
                          i);
            cp_error_hint(err, "A secret goes in a header: printable ASCII, one line (a "
                               "final newline is dropped).");
            return CP_ERR_USAGE;
        }
    if (strcmp(scheme, "basic") == 0 && memchr(secret, ':', len) == NULL) {
        cp_error_make(err, CP_ERR_USAGE, 0, "a basic sign-in's secret is user:password");
        cp_error_hint(err, "Give USER:PASSWORD on standard input, or use --scheme raw.");
        return CP_ERR_USAGE;
    }
    return 0;
}

char *cp_sign_in_env_default(const char *host)
{
    char *env = xstrdup(host);
    for (char *p = env; *p; p++) {
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
        else if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            *p = '_';
    }
    if (strlen(env) > CP_SIGN_IN_ENV_MAX)
        env[CP_SIGN_IN_ENV_MAX] = '\0';
    if (env[0] >= '0' && env[0] <= '9') { /* a name never begins with a digit */
        char *h = xasprintf("H%s", env);
        free(env);
        env = h;
        env[strlen(env) > CP_SIGN_IN_ENV_MAX ? CP_SIGN_IN_ENV_MAX : strlen(env)] = '\0';
    }
    return env;
}

char *cp_sign_in_value(const char *scheme, const char *secret)
{
    if (strcmp(scheme, "bearer") == 0)
        return xasprintf("Bearer %s", secret);
    if (strcmp(scheme, "raw") == 0)
        return xstrdup(secret);
    char *b64 = cp_base64_encode(secret, strlen(secret));
    char *out = xasprintf("Basic %s", b64);
    cp_free_secret(b64);
    return out;
}

/* ---- the file ---- */

static int entry_bad(const char *folder, size_t i, const char *what, cp_error_t *err)
{
    cp_error_make(err, CP_ERR_USAGE, 0, "the secrets file's sign-in %zu of %s: its %s is bad",
                  i + 1, folder, what);
    cp_error_hint(err,
                  "Remove it (conch-place sign-ins remove HOST --workdir %s) and add it "
                  "again.",
                  folder);
    return CP_ERR_USAGE;
}

/* One entry, every field checked as `sign-ins add` checks it. */
static int entry_read(const char *folder, size_t i, json_object *o, bool secrets,
                      struct cp_named_sign_in *out, cp_error_t *err)
{
    cleanup_error cp_error_t why = NULL;
    const char *host = cp_json_str(o, "host"), *path = cp_json_str(o, "path");
    const char *header = cp_json_str(o, "header"), *scheme = cp_json_str(o, "scheme");
    const char *env = cp_json_str(o, "env"), *secret = cp_json_str(o, "secret");
    json_object *w = NULL;
    cleanup_free char *prefix = NULL;
    if (host == NULL || cp_sign_in_host_check(host, &why) < 0)
        return entry_bad(folder, i, "host", err);
    if (path == NULL || cp_sign_in_path_check(path, &prefix, &why) < 0)
        return entry_bad(folder, i, "path", err);
    if (header == NULL || cp_sign_in_header_check(header, &why) < 0)
        return entry_bad(folder, i, "header", err);
    if (scheme == NULL || cp_sign_in_scheme_check(scheme, &why) < 0)
        return entry_bad(folder, i, "scheme", err);
    if (env == NULL || cp_sign_in_env_check(env, &why) < 0)
        return entry_bad(folder, i, "env", err);
    if (!json_object_object_get_ex(o, "write", &w) || !json_object_is_type(w, json_type_boolean))
        return entry_bad(folder, i, "write", err);
    if (secret == NULL || cp_sign_in_secret_check(scheme, secret, strlen(secret), &why) < 0)
        return entry_bad(folder, i, "secret", err);
    *out = (struct cp_named_sign_in){xstrdup(host),
                                     steal_pointer(&prefix),
                                     xstrdup(header),
                                     xstrdup(scheme),
                                     xstrdup(env),
                                     json_object_get_boolean(w),
                                     secrets ? xstrdup(secret) : NULL};
    return 0;
}

/* The folder's array in root, or NULL. */
static json_object *folder_list(json_object *root, const char *folder)
{
    json_object *all = NULL, *list = NULL;
    if (!json_object_object_get_ex(root, KEY, &all) ||
        !json_object_is_type(all, json_type_object) ||
        !json_object_object_get_ex(all, folder, &list) ||
        !json_object_is_type(list, json_type_array))
        return NULL;
    return list;
}

int cp_sign_ins_stored(const char *folder, bool secrets, struct cp_named_sign_ins *out,
                       cp_error_t *err)
{
    *out = (struct cp_named_sign_ins){0};
    cleanup_free char *path = NULL;
    cleanup_secret_json json_object *root = NULL;
    int r = cp_secrets_load(0, &path, &root, err);
    if (r == CP_ERR_NOT_FOUND) {
        cp_error_free(err);
        return 0;
    }
    if (r < 0)
        return r;
    json_object *list = folder_list(root, folder);
    size_t n = list != NULL ? json_object_array_length(list) : 0;
    out->v = n > 0 ? xcalloc(n, sizeof(*out->v)) : NULL;
    for (size_t i = 0; i < n && i < SIGN_IN_MAX; i++) {
        if (entry_read(folder, i, json_object_array_get_idx(list, i), secrets, &out->v[i], err) <
            0) {
            cp_named_sign_ins_dispose(out);
            return cp_error_wrap(err, "%s", path);
        }
        out->n = i + 1;
    }
    return 0;
}

static json_object *entry_json(const struct cp_named_sign_in *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "host", json_object_new_string(s->host));
    json_object_object_add(o, "path", json_object_new_string(s->prefix));
    json_object_object_add(o, "header", json_object_new_string(s->header));
    json_object_object_add(o, "scheme", json_object_new_string(s->scheme));
    json_object_object_add(o, "env", json_object_new_string(s->env));
    json_object_object_add(o, "write", json_object_new_boolean(s->write));
    json_object_object_add(o, "secret", json_object_new_string(s->secret));
    return o;
}

/* The folder's array, made when absent. Borrowed from root. */
static json_object *folder_list_made(json_object *root, const char *folder)
{
    json_object *all = NULL, *list = NULL;
    if (!json_object_object_get_ex(root, KEY, &all) ||
        !json_object_is_type(all, json_type_object)) {
        all = json_object_new_object();
        json_object_object_add(root, KEY, all);
    }
    if (!json_object_object_get_ex(all, folder, &list) ||
        !json_object_is_type(list, json_type_array)) {
        list = json_object_new_array();
        json_object_object_add(all, folder, list);
    }
    return list;
}

#define NOT_HERE ((size_t)-1)

static size_t find_host(json_object *list, const char *host)
{
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        const char *h = cp_json_str(json_object_array_get_idx(list, i), "host");
        if (h != NULL && strcasecmp(h, host) == 0)
            return i;
    }
    return NOT_HERE;
}

static int env_taken(json_object *list, const struct cp_named_sign_in *s, cp_error_t *err)
{
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *o = json_object_array_get_idx(list, i);
        const char *h = cp_json_str(o, "host"), *env = cp_json_str(o, "env");
        if (h == NULL || env == NULL || strcasecmp(h, s->host) == 0 || strcmp(env, s->env) != 0)
            continue;
        cp_error_make(err, CP_ERR_USAGE, 0, "the sign-in for %s already sets CONCH_SIGNIN_%s", h,
                      env);
        cp_error_hint(err, "Give this one another name with --env NAME.");
        return CP_ERR_USAGE;
    }
    return 0;
}

int cp_sign_in_store(const char *folder, const struct cp_named_sign_in *s, cp_error_t *err)
{
    cleanup_free char *path = NULL;
    cleanup_secret_json json_object *root = NULL;
    if (cp_secrets_load(1, &path, &root, err) < 0)
        return cp_error_code(err);
    json_object *list = folder_list_made(root, folder);
    if (env_taken(list, s, err) < 0)
        return cp_error_code(err);
    size_t at = find_host(list, s->host);
    if (at == NOT_HERE && json_object_array_length(list) >= SIGN_IN_MAX)
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s has %d sign-ins already", folder,
                             SIGN_IN_MAX);
    if (at == NOT_HERE) {
        json_object_array_add(list, entry_json(s));
        return cp_secrets_save(path, root, err);
    }
    /* Added again: the new secret and settings replace the old, which is wiped. */
    json_object *old = json_object_get(json_object_array_get_idx(list, at));
    json_object_array_put_idx(list, at, entry_json(s));
    cp_secrets_json_free(&old);
    return cp_secrets_save(path, root, err);
}

int cp_sign_in_unstore(const char *folder, const char *host, cp_error_t *err)
{
    cleanup_free char *path = NULL;
    cleanup_secret_json json_object *root = NULL;
    int r = cp_secrets_load(0, &path, &root, err);
    if (r < 0 && r != CP_ERR_NOT_FOUND)
        return r;
    cp_error_free(err);
    json_object *list = root != NULL ? folder_list(root, folder) : NULL;
    size_t at = list != NULL ? find_host(list, host) : NOT_HERE;
    if (at == NOT_HERE) {
        cp_error_make(err, CP_ERR_USAGE, 0, "%s has no sign-in for %s", folder, host);
        cp_error_hint(err, "'conch-place sign-ins list --workdir %s' shows its sign-ins.", folder);
        return CP_ERR_USAGE;
    }
    json_object *old = json_object_get(json_object_array_get_idx(list, at));
    json_object_array_del_idx(list, at, 1);
    cp_secrets_json_free(&old); /* ours was the last reference: wiped, then freed */
    if (json_object_array_length(list) == 0) {
        json_object *all = NULL;
        json_object_object_get_ex(root, KEY, &all);
        json_object_object_del(all, folder);
    }
    return cp_secrets_save(path, root, err);
}
