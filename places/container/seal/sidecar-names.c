/* What a folder's sidecar is made from and named after. Its arguments, its upstream proxy, its
 * CA and trust and its image are hashed with the allow-list, so a sidecar made from anything
 * else has another name and is made anew; the folder's real path is hashed in too, so that
 * boxes of two folders never share a network. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "places/container/seal/sidecar-names.h"
#include "src/base/buf.h"
#include "src/base/digest.h"
#include "src/base/strvec.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* Each comma-separated item of an environment knob after an option. */
static void knob(struct cp_strvec *v, const char *env, const char *option)
{
    const char *val = getenv(env);
    cleanup_free char *copy = val ? xstrdup(val) : NULL;
    char *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        cp_strvec_push(v, option);
        cp_strvec_push(v, t);
    }
}

/* egress-proxy's arguments (after its entrypoint) for a list. */
static char **proxy_args(const struct cp_allowlist *list)
{
    struct cp_strvec v = {0};
    long idle = CP_SIDECAR_IDLE_SECS;
    const char *idle_env = getenv("CONCH_EGRESS_IDLE");
    if (idle_env != NULL && cp_parse_long(idle_env, 1, 7 * 86400, &idle) < 0)
        idle = CP_SIDECAR_IDLE_SECS;
    cp_strvec_push(&v, "--listen");
    cp_strvec_pushf(&v, "0.0.0.0:%d", CP_SIDECAR_PORT);
    cp_strvec_push(&v, "--exit-idle");
    cp_strvec_pushf(&v, "%ld", idle);
    cp_strvec_push(&v, "--sign-ins-stdin"); /* each run's sign-ins (sign-in-send.h) */
    cp_strvec_push(&v, "--keys-stdin");     /* its keys, that way first (sidecar-keys.c) */
    cp_strvec_push(&v, "--max-connections");
    cp_strvec_pushf(&v, "%d", CP_SIDECAR_CONNECTIONS);
    if (list->allow_all)
        cp_strvec_push(&v, "--allow-all");
    /* One flag per mode (egress-proxy's): fetching only, every method, or a blind tunnel. */
    static const char *const flags[] = {[CP_HOST_READ] = "--allow",
                                        [CP_HOST_WRITE] = "--allow-write",
                                        [CP_HOST_PASS] = "--allow-pass"};
    for (size_t i = 0; i < list->nallowed; i++) {
        enum cp_host_mode mode = list->allowed[i].mode;
        cp_strvec_push(&v, (size_t)mode < ARRAY_SIZE(flags) ? flags[mode] : "--allow");
        cp_strvec_push(&v, list->allowed[i].host);
    }
    knob(&v, "CONCH_EGRESS_ALLOW_CIDR", "--allow-cidr");
    knob(&v, "CONCH_EGRESS_RESOLVE", "--resolve");
    return cp_strvec_steal(&v);
}

/* The upstream proxy from conch-place's own environment, for the sidecar's keys only (it may
 * hold a password: never its environment or argv, never the box). See
 * egress/proxy/upstream.h. */
char **cp_sidecar_upstream_env(void)
{
    static const char *const pairs[][2] = {{"https_proxy", "HTTPS_PROXY"},
                                           {"no_proxy", "NO_PROXY"}};
    char **v = xcalloc(ARRAY_SIZE(pairs) + 1, sizeof(char *));
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
        const char *val = getenv(pairs[i][0]);
        if (val == NULL || val[0] == '\0')
            val = getenv(pairs[i][1]);
        if (val != NULL && val[0] != '\0')
            v[n++] = xasprintf("%s=%s", pairs[i][1], val);
    }
    return v;
}

/* The upstream's part of the hash: keyed by the CA, since the hash is a label anyone who may
 * use the engine reads, and a plain digest of a URL with a password would let them try
 * passwords against it. */
static void upstream_hash(const struct cp_sidecar_trust *trust, struct cp_buf *b)
{
    cleanup_strv char **up = cp_sidecar_upstream_env();
    struct cp_buf text;
    cp_buf_init(&text, 1 << 20);
    for (size_t i = 0; up[i] != NULL; i++) {
        (void)cp_buf_append(&text, "\n", 1);
        (void)cp_buf_append(&text, up[i], strlen(up[i]));
        explicit_bzero(up[i], strlen(up[i]));
    }
    if (text.len == 0) {
        cp_buf_dispose(&text);
        return;
    }
    uint8_t mac[CP_SHA256_LEN];
    char hex[2 * CP_SHA256_LEN + 1];
    const char *key = trust->ca_pem != NULL ? trust->ca_pem : "";
    cp_hmac_sha256(key, strlen(key), text.data, text.len, mac);
    cp_hex(mac, CP_SHA256_LEN, hex);
    explicit_bzero(text.data, text.len);
    cp_buf_dispose(&text);
    (void)cp_buf_append(b, "\nupstream ", 10);
    (void)cp_buf_append(b, hex, strlen(hex));
}

/* The list's hash (16 hex), over the image, the proxy's arguments, its upstream and what it
 * signs with and trusts too: a new CA or egress.ca_file makes another sidecar. */
static void list_hash(const struct cp_allowlist *list, const char *image, char **args,
                      const struct cp_sidecar_trust *trust, char out[17])
{
    struct cp_buf b;
    cp_buf_init(&b, 1 << 20);
    (void)cp_buf_append(&b, image, strlen(image));
    (void)cp_buf_append(&b, "\nca ", 4);
    (void)cp_buf_append(&b, trust->ca_fingerprint, strlen(trust->ca_fingerprint));
    if (trust->extra != NULL) {
        uint8_t digest[CP_SHA256_LEN];
        char hex[2 * CP_SHA256_LEN + 1];
        cp_sha256(trust->extra, strlen(trust->extra), digest);
        cp_hex(digest, CP_SHA256_LEN, hex);
        (void)cp_buf_append(&b, "\ntrust ", 7);
        (void)cp_buf_append(&b, hex, strlen(hex));
    }
    for (size_t i = 0; args[i] != NULL; i++) {
        (void)cp_buf_append(&b, "\n", 1);
        (void)cp_buf_append(&b, args[i], strlen(args[i]));
    }
    upstream_hash(trust, &b); /* a changed upstream makes another sidecar */
    (void)cp_buf_append(&b, "", 1);
    char hash[65];
    cp_allowlist_hash(list, b.data, hash);
    explicit_bzero(b.data, b.len);
    cp_buf_dispose(&b);
    snprintf(out, 17, "%.16s", hash);
}

/* The folder's part of the name: SHA-256 of its real path (not the folder key, whose 64-bit
 * FNV shape is no obstacle to a made-up colliding path). */
static void folder_hash(const char *workdir, char out[17])
{
    uint8_t digest[CP_SHA256_LEN];
    cp_sha256(workdir, strlen(workdir), digest);
    cp_hex(digest, 8, out);
}

/* One network and one sidecar per folder and list: conch-egress- and 16 hex digits. */
static char *sidecar_name(const char *list_h, const char *folder_h)
{
    cleanup_free char *both = xasprintf("conch-seal-v2\n%s\n%s", list_h, folder_h);
    uint8_t digest[CP_SHA256_LEN];
    cp_sha256(both, strlen(both), digest);
    char hex[17];
    cp_hex(digest, 8, hex);
    return xasprintf("conch-egress-%s", hex);
}

/* conch.egress=1, the list's hash and the folder's, on the network and the sidecar alike. */
json_object *cp_sidecar_labels(const struct cp_sidecar_names *n)
{
    json_object *labels = json_object_new_object();
    json_object_object_add(labels, CP_SIDECAR_LABEL, json_object_new_string("1"));
    json_object_object_add(labels, CP_LIST_LABEL, json_object_new_string(n->list));
    json_object_object_add(labels, CP_FOLDER_LABEL, json_object_new_string(n->folder));
    cleanup_free char *mark = cp_home_mark();
    json_object_object_add(labels, CP_HOME_LABEL, json_object_new_string(mark ? mark : ""));
    return labels;
}

void cp_sidecar_names_make(const struct cp_allowlist *list, const char *image,
                           const struct cp_sidecar_trust *trust, const char *workdir,
                           struct cp_sidecar_names *out)
{
    out->args = proxy_args(list);
    list_hash(list, image, out->args, trust, out->list);
    folder_hash(workdir, out->folder);
    out->name = sidecar_name(out->list, out->folder);
}

void cp_sidecar_names_dispose(struct cp_sidecar_names *n)
{
    free(n->name);
    cp_strv_free(n->args);
    memset(n, 0, sizeof(*n));
}
