/* The sidecar's network and box through the engine's API, the box's proxy variables, and the
 * refusal hint read back from the sidecar's log.
 *
 * The seal by topology (DESIGN.md, "The egress sidecar"; issue 10). A sealed box must reach
 * the sidecar's proxy port and nothing else: no address of this computer, no other folder's
 * box, nothing link-local, over IPv4 and IPv6. What holds it, per engine, as measured on
 * Docker 20.10 and Podman 4.3 (CNI):
 *
 * - One internal network per folder and allow-list, named from both, with its own sidecar
 *   (conch-egress-HASH is the network's name and the sidecar's). Boxes of two folders never
 *   share a network, so neither can address the other. One sidecar per folder rather than one
 *   per list joined to every folder's network: the proxy parses what the boxes send, and a
 *   sidecar that sat on every folder's network would, if ever taken over, sit beside every
 *   folder's boxes. The cost is one more sidecar per folder, made on its folder's first
 *   sealed run; the warm path makes the same two API calls as before (bench/container-
 *   roundtrip).
 * - No host address on the network. Docker gives an internal bridge the gateway address, and
 *   this computer then answers a box there on every port it listens on, and on every other
 *   address it has (the host routes its own addresses to itself): the bridge option
 *   com.docker.network.bridge.inhibit_ipv4 (Docker 20.10+) makes the bridge without one, and
 *   on an internal network nothing else takes the gateway's place. Podman's CNI internal
 *   networks are made without a gateway already. Netavark gives its internal bridges an
 *   address for its DNS server; such a network is refused (network_check), never joined.
 *   With no host address in the box's subnet, the box has no route to any address of this
 *   computer, nor to 169.254.0.0/16: its connect() fails at once. The network is checked on
 *   every run (its options, its gateway), so a same-named network made by hand is not joined.
 * - No IPv6 in the box (box-spec.c, cp_box_seal_sysctls): the host keeps an fe80:: address on
 *   every bridge, internal ones included, which a Podman box reached over IPv6.
 * - No firewall rule of ours: rules are the host's, a firewall reload wipes them, and with no
 *   route there is nothing to filter. The host's firewall can only take away the one path the
 *   seal needs (Docker's FORWARD DROP on Podman's bridges), so when a sidecar is made a probe
 *   box on the network must reach its port (seal-probe.c), else the run stops with 125 and the
 *   rule that lets it through. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "places/container/box.h"
#include "places/container/egress-image.h"
#include "places/container/egress-trust.h"
#include "places/container/seal-probe.h"
#include "places/container/sign-in-send.h"
#include "places/container/sign-ins.h"
#include "src/base/secrets.h"
#include "places/container/sidecar.h"
#include "places/egress/auth.h"
#include "places/egress/ca.h"
#include "places/egress/tls.h"
#include "places/egress/elog.h"
#include "src/base/buf.h"
#include "src/base/digest.h"
#include "src/base/http.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define ENSURE_TRIES  4
#define SIDECAR_LABEL "conch.egress"
#define LIST_LABEL    "conch.egress.list"
#define FOLDER_LABEL  "conch.egress.folder"
#define INHIBIT_IPV4  "com.docker.network.bridge.inhibit_ipv4"

/* What a folder's sidecar and network are named and labelled with. */
struct cp_sidecar_names {
    char list[17];   /* the list's hash */
    char folder[17]; /* the folder's */
    char *name;      /* the network's and the sidecar's */
};

void cp_sidecar_dispose(struct cp_sidecar *s)
{
    free(s->name);
    free(s->id);
    free(s->ip);
    cp_free_secret(s->secret);
    memset(s, 0, sizeof(*s));
}

/* ---- what the sidecar is made from ---- */

static void push(char ***v, size_t *n, char *s)
{
    *v = xrealloc(*v, (*n + 2) * sizeof(char *));
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

/* Each comma-separated item of an environment knob after an option. */
static void knob(char ***v, size_t *n, const char *env, const char *option)
{
    const char *val = getenv(env);
    cleanup_free char *copy = val ? xstrdup(val) : NULL;
    char *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        push(v, n, xstrdup(option));
        push(v, n, xstrdup(t));
    }
}

/* egress-proxy's arguments (after its entrypoint) for a list. */
static char **proxy_args(const struct cp_allowlist *list)
{
    char **v = xcalloc(1, sizeof(char *));
    size_t n = 0;
    long idle = CP_SIDECAR_IDLE_SECS;
    const char *idle_env = getenv("CONCH_EGRESS_IDLE");
    if (idle_env != NULL && cp_parse_long(idle_env, 1, 7 * 86400, &idle) < 0)
        idle = CP_SIDECAR_IDLE_SECS;
    push(&v, &n, xstrdup("--listen"));
    push(&v, &n, xasprintf("0.0.0.0:%d", CP_SIDECAR_PORT));
    push(&v, &n, xstrdup("--exit-idle"));
    push(&v, &n, xasprintf("%ld", idle));
    push(&v, &n, xstrdup("--sign-ins-stdin")); /* each run's sign-ins (sign-in-send.h) */
    push(&v, &n, xstrdup("--max-connections"));
    push(&v, &n, xasprintf("%d", CP_SIDECAR_CONNECTIONS));
    if (list->allow_all)
        push(&v, &n, xstrdup("--allow-all"));
    /* One flag per mode (egress-proxy's): fetching only, every method, or a blind tunnel. */
    static const char *const flags[] = {[CP_HOST_READ] = "--allow",
                                        [CP_HOST_WRITE] = "--allow-write",
                                        [CP_HOST_PASS] = "--allow-pass"};
    for (size_t i = 0; i < list->nallowed; i++) {
        enum cp_host_mode mode = list->allowed[i].mode;
        push(&v, &n, xstrdup((size_t)mode < ARRAY_SIZE(flags) ? flags[mode] : "--allow"));
        push(&v, &n, xstrdup(list->allowed[i].host));
    }
    knob(&v, &n, "CONCH_EGRESS_ALLOW_CIDR", "--allow-cidr");
    knob(&v, &n, "CONCH_EGRESS_RESOLVE", "--resolve");
    return v;
}

/* The upstream proxy from conch-place's own environment, for the sidecar's environment only
 * (it may hold a password: never argv, never the box). See places/egress/upstream.h. */
static char **upstream_env(void)
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

/* The list's hash (16 hex), over the image, the proxy's arguments, its upstream and what it
 * signs with and trusts too: a new CA or egress.ca_file makes another sidecar. */
static void list_hash(const struct cp_allowlist *list, const char *image, char **args,
                      const struct cp_sidecar_trust *trust, char out[17])
{
    struct cp_buf b;
    cleanup_strv char **up = upstream_env(); /* a changed upstream makes another sidecar */
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
    for (size_t i = 0; up[i] != NULL; i++) {
        (void)cp_buf_append(&b, "\n", 1);
        (void)cp_buf_append(&b, up[i], strlen(up[i]));
        explicit_bzero(up[i], strlen(up[i]));
    }
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
static json_object *egress_labels(const struct cp_sidecar_names *n)
{
    json_object *labels = json_object_new_object();
    json_object_object_add(labels, SIDECAR_LABEL, json_object_new_string("1"));
    json_object_object_add(labels, LIST_LABEL, json_object_new_string(n->list));
    json_object_object_add(labels, FOLDER_LABEL, json_object_new_string(n->folder));
    return labels;
}

static char *random_secret(void)
{
    unsigned char rnd[32];
    cleanup_close int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, rnd, sizeof(rnd)) != (ssize_t)sizeof(rnd))
        return NULL;
    char *hex = xmalloc(2 * sizeof(rnd) + 1);
    for (size_t i = 0; i < sizeof(rnd); i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    explicit_bzero(rnd, sizeof(rnd));
    return hex;
}

/* ---- the internal network ---- */

static bool is_podman(const struct cp_engine *e)
{
    return strcmp(e->kind, "podman") == 0;
}

/* Podman's compatible API turns aardvark's DNS on for every network, internal ones included,
 * and aardvark 1.4 forwards outside names from them (measured): its own API can turn it off. */
static int podman_network_create(struct cp_engine *e, const struct cp_sidecar_names *n,
                                 cp_error_t *err)
{
    cleanup_json json_object *body = json_object_new_object();
    json_object_object_add(body, "name", json_object_new_string(n->name));
    json_object_object_add(body, "internal", json_object_new_boolean(1));
    json_object_object_add(body, "dns_enabled", json_object_new_boolean(0));
    json_object_object_add(body, "ipv6_enabled", json_object_new_boolean(0));
    json_object_object_add(body, "labels", egress_labels(n));
    long status = 0;
    int r = cp_engine_libpod_call(e, "POST", "/libpod/networks/create", body, &status, NULL, err);
    if (r < 0)
        return r;
    if (status != 200 && status != 201 && status != 409)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine answered HTTP %ld", status);
    return 0;
}

static int docker_network_create(struct cp_engine *e, const struct cp_sidecar_names *n,
                                 cp_error_t *err)
{
    cleanup_json json_object *body = json_object_new_object();
    json_object *options = json_object_new_object();
    json_object_object_add(options, INHIBIT_IPV4, json_object_new_string("true"));
    json_object_object_add(body, "Name", json_object_new_string(n->name));
    json_object_object_add(body, "Driver", json_object_new_string("bridge"));
    json_object_object_add(body, "Internal", json_object_new_boolean(1));
    json_object_object_add(body, "EnableIPv6", json_object_new_boolean(0));
    json_object_object_add(body, "CheckDuplicate", json_object_new_boolean(1));
    json_object_object_add(body, "Options", options);
    json_object_object_add(body, "Labels", egress_labels(n));
    long status = 0;
    cleanup_json json_object *reply = NULL;
    if (cp_engine_call_status(e, "POST", "/networks/create", body, &status, &reply, err) < 0)
        return cp_error_code(err);
    if (status != 200 && status != 201 && status != 409) {
        const char *msg = cp_json_str(reply, "message");
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine answered HTTP %ld: %s", status,
                             msg ? msg : "no reason given");
    }
    return 0;
}

/* Whether this computer holds an address on the network: Docker's bridge has one unless the
 * network was made with inhibit_ipv4; Podman's (compatible JSON) names a gateway when it does
 * ("<nil>" when not, as CNI internal networks are). */
static bool host_has_address(const struct cp_engine *e, json_object *net)
{
    json_object *options = NULL, *ipam = NULL, *config = NULL;
    json_object_object_get_ex(net, "Options", &options);
    if (!is_podman(e)) {
        const char *inhibit = cp_json_str(options, INHIBIT_IPV4);
        return inhibit == NULL || strcmp(inhibit, "true") != 0;
    }
    json_object_object_get_ex(net, "IPAM", &ipam);
    json_object_object_get_ex(ipam, "Config", &config);
    for (size_t i = 0;
         json_object_is_type(config, json_type_array) && i < json_object_array_length(config);
         i++) {
        const char *gw = cp_json_str(json_object_array_get_idx(config, i), "Gateway");
        if (gw != NULL && gw[0] != '\0' && strcmp(gw, "<nil>") != 0)
            return true;
    }
    return false;
}

/* A network by that name that is not internal, not ours, or gives this computer an address a
 * box could reach, is never joined. net is the engine's inspect of it. */
static int network_check(struct cp_engine *e, const char *name, json_object *net, cp_error_t *err)
{
    json_object *internal = NULL, *labels = NULL, *ipv6 = NULL;
    if (net == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine described network %s in no JSON",
                             name);
    json_object_object_get_ex(net, "Internal", &internal);
    json_object_object_get_ex(net, "Labels", &labels);
    json_object_object_get_ex(net, "EnableIPv6", &ipv6);
    if (!json_object_get_boolean(internal) || cp_json_str(labels, SIDECAR_LABEL) == NULL)
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "the network %s exists but is not an internal network conch-place "
                             "made",
                             name);
    if (host_has_address(e, net) || json_object_get_boolean(ipv6)) {
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "the internal network %s gives this computer an address on it, where a "
                      "sealed box would reach every service this computer offers",
                      name);
        cp_error_hint(err, "%s",
                      is_podman(e)
                          ? "This Podman gives internal networks a gateway address (netavark "
                            "does, for its DNS server); Podman with the CNI network backend, or "
                            "Docker 20.10 or later, makes them without one. Or run with "
                            "--unsealed."
                          : "Remove the network ('conch-place clean', or 'docker network rm') "
                            "so that it is made again without one; Docker 20.10 or later is "
                            "needed. Or run with --unsealed.");
        return cp_error_code(err);
    }
    return 0;
}

static int network_create(struct cp_engine *e, const struct cp_sidecar_names *n, cp_error_t *err)
{
    return is_podman(e) ? podman_network_create(e, n, err) : docker_network_create(e, n, err);
}

/* One inspect on every run but the first: the answer that finds the network is the one checked. */
static int ensure_network(struct cp_engine *e, const struct cp_sidecar_names *n, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/networks/%s", n->name);
    cleanup_json json_object *net = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "GET", path, NULL, &status, &net, err) < 0)
        return cp_error_code(err);
    int r = 0;
    if (status != 200 && status != 404)
        r = cp_error_make(err, CP_ERR_FAILED, 0, "the engine answered GET %s with HTTP %ld", path,
                          status);
    if (status == 404) {
        r = network_create(e, n, err);
        /* One network per folder: Docker's address pools hold a few dozen, so networks no box
         * uses any more make room first. */
        int removed = 0;
        cleanup_error cp_error_t cerr = NULL;
        if (r < 0 && cp_sidecar_clean(e, &removed, &cerr) == 0 && removed > 0) {
            cp_error_free(err);
            r = network_create(e, n, err);
        }
        /* What was made is looked at as a found one is. */
        json_object_put(steal_pointer(&net));
        if (r == 0)
            r = cp_engine_call(e, "GET", path, NULL, &net, err);
    }
    if (r < 0 || network_check(e, n->name, net, err) < 0) {
        cp_error_wrap(err,
                      "the %s engine could not make the internal network %s that a sealed "
                      "box needs",
                      e->kind, n->name);
        cp_error_hint(err, "Sealed boxes reach the network only through an internal network and "
                           "the egress sidecar; use an engine that makes internal bridge "
                           "networks, or run with --unsealed.");
        return cp_error_code(err);
    }
    return 0;
}

/* ---- the sidecar box ---- */

static json_object *strv_json(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static json_object *sidecar_host_config(const struct cp_engine *e)
{
    json_object *h = json_object_new_object();
    /* The engine's default network: the sidecar's own way out, and its resolver. */
    json_object_object_add(h, "NetworkMode", json_object_new_string("bridge"));
    json_object_object_add(h, "CapDrop", strv_json((char *[]){"ALL", NULL}));
    json_object_object_add(h, "SecurityOpt", strv_json((char *[]){"no-new-privileges", NULL}));
    json_object_object_add(h, "ReadonlyRootfs", json_object_new_boolean(1));
    /* A tunnel whose TLS the sidecar ends has a thread of its own: room for every connection
     * it takes, and the memory of their TLS (two TLS objects and their buffers each). */
    json_object_object_add(h, "PidsLimit", json_object_new_int64(CP_SIDECAR_CONNECTIONS + 64));
    json_object_object_add(h, "Memory", json_object_new_int64(512LL * 1024 * 1024));
    json_object_object_add(h, "AutoRemove", json_object_new_boolean(1));
    if (!is_podman(e)) { /* the decisions are read back through the log API: keep it bounded */
        json_object *log = json_object_new_object(), *cfg = json_object_new_object();
        json_object_object_add(cfg, "max-size", json_object_new_string("10m"));
        json_object_object_add(cfg, "max-file", json_object_new_string("2"));
        json_object_object_add(log, "Type", json_object_new_string("json-file"));
        json_object_object_add(log, "Config", cfg);
        json_object_object_add(h, "LogConfig", log);
    }
    return h;
}

/* The secret, the CA (with its key) and the upstream proxy reach the sidecar in its environment
 * only, which the proxy wipes at start: never argv, never a file a box could be given. */
static char **sidecar_env(const char *secret, const struct cp_sidecar_trust *trust)
{
    cleanup_strv char **up = upstream_env();
    char **v = xcalloc(6, sizeof(char *));
    size_t n = 0;
    v[n++] = xasprintf("%s=%s", CP_EGRESS_SECRET_ENV, secret);
    v[n++] = xasprintf("%s=%s", CP_EGRESS_CA_ENV, trust->ca_pem);
    if (trust->extra != NULL)
        v[n++] = xasprintf("%s=%s", CP_EGRESS_TRUST_ENV, trust->extra);
    for (size_t i = 0; up[i] != NULL && i < 2; i++)
        v[n++] = xstrdup(up[i]);
    for (size_t i = 0; up[i] != NULL; i++)
        explicit_bzero(up[i], strlen(up[i]));
    return v;
}

static void wipe_strv(char ***v)
{
    for (size_t i = 0; *v != NULL && (*v)[i] != NULL; i++)
        explicit_bzero((*v)[i], strlen((*v)[i]));
    cp_strv_free(*v);
}

static json_object *sidecar_body(const struct cp_engine *e, const struct cp_sidecar_names *n,
                                 const char *image, char **args, const char *secret,
                                 const struct cp_sidecar_trust *trust)
{
    json_object *c = json_object_new_object();
    json_object_object_add(c, "Image", json_object_new_string(image));
    json_object_object_add(c, "Cmd", strv_json(args));
    __attribute__((cleanup(wipe_strv))) char **env = sidecar_env(secret, trust);
    json_object_object_add(c, "Env", strv_json(env));
    json_object_object_add(c, "User", json_object_new_string("65534:65534"));
    json_object_object_add(c, "Labels", egress_labels(n));
    /* Standard input stays open for the sidecar's life: each run's sign-ins come that way. */
    json_object_object_add(c, "OpenStdin", json_object_new_boolean(1));
    json_object_object_add(c, "StdinOnce", json_object_new_boolean(0));
    json_object_object_add(c, "HostConfig", sidecar_host_config(e));
    return c;
}

static int connect_and_start(struct cp_engine *e, const char *name, const char *id, cp_error_t *err)
{
    cleanup_json json_object *body = json_object_new_object();
    json_object_object_add(body, "Container", json_object_new_string(id));
    cleanup_free char *path = xasprintf("/networks/%s/connect", name);
    if (cp_engine_call(e, "POST", path, body, NULL, err) < 0)
        return cp_error_wrap(err, "joining the sidecar to %s", name);
    if (cp_box_start(e, id, err) < 0)
        return cp_error_wrap(err, "starting the sidecar");
    return 0;
}

/* 0 made (or another run made it first: look again), or an error. */
static int create_sidecar(struct cp_engine *e, const struct cp_sidecar_names *n, const char *image,
                          char **args, const struct cp_sidecar_trust *trust, cp_error_t *err)
{
    __attribute__((cleanup(cp_cleanup_freep))) char *secret = random_secret();
    if (secret == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read /dev/urandom");
    cleanup_json json_object *body = sidecar_body(e, n, image, args, secret, trust);
    explicit_bzero(secret, strlen(secret));
    cleanup_free char *path = xasprintf("/containers/create?name=%s", n->name);
    cleanup_json json_object *reply = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "POST", path, body, &status, &reply, err) < 0)
        return cp_error_code(err);
    if (status == 409)
        return 0;
    const char *id = cp_json_str(reply, "Id");
    if (status != 201 || id == NULL || strspn(id, "0123456789abcdef") != strlen(id)) {
        const char *msg = cp_json_str(reply, "message");
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the engine did not make the sidecar (HTTP "
                             "%ld): %s",
                             status, msg ? msg : "no reason given");
    }
    cleanup_free char *idc = xstrdup(id);
    if (connect_and_start(e, n->name, idc, err) < 0) {
        cleanup_error cp_error_t rm = NULL;
        cp_box_remove(e, idc, &rm);
        return cp_error_code(err);
    }
    return 0;
}

static char *env_value(json_object *config, const char *key)
{
    json_object *env = NULL;
    size_t kl = strlen(key);
    if (!json_object_object_get_ex(config, "Env", &env) ||
        !json_object_is_type(env, json_type_array))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(env); i++) {
        const char *kv = json_object_get_string(json_object_array_get_idx(env, i));
        if (kv != NULL && strncmp(kv, key, kl) == 0 && kv[kl] == '=')
            return xstrdup(kv + kl + 1);
    }
    return NULL;
}

/* Fills out from a running sidecar: 1 when it runs and is usable, 0 when absent (a stopped one
 * is removed first), or an error. */
static int find_running(struct cp_engine *e, const char *name, struct cp_sidecar *out,
                        cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/%s/json", name);
    cleanup_json json_object *c = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "GET", path, NULL, &status, &c, err) < 0)
        return cp_error_code(err);
    if (status == 404)
        return 0;
    json_object *state = NULL, *config = NULL, *labels = NULL, *ns = NULL, *nets = NULL,
                *net = NULL, *running = NULL;
    json_object_object_get_ex(c, "State", &state);
    json_object_object_get_ex(state, "Running", &running);
    json_object_object_get_ex(c, "Config", &config);
    json_object_object_get_ex(config, "Labels", &labels);
    json_object_object_get_ex(c, "NetworkSettings", &ns);
    json_object_object_get_ex(ns, "Networks", &nets);
    json_object_object_get_ex(nets, name, &net);
    const char *id = cp_json_str(c, "Id"), *ip = cp_json_str(net, "IPAddress");
    if (status != 200 || id == NULL || cp_json_str(labels, SIDECAR_LABEL) == NULL)
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "a box named %s exists that conch-place did not make", name);
    cleanup_free char *secret = env_value(config, CP_EGRESS_SECRET_ENV);
    if (!json_object_get_boolean(running) || ip == NULL || ip[0] == '\0' || secret == NULL) {
        cp_debug("replacing the sidecar %s, which is not running", name);
        if (cp_box_remove(e, id, err) < 0)
            return cp_error_code(err);
        return 0;
    }
    out->name = xstrdup(name);
    out->id = xstrdup(id);
    out->ip = xstrdup(ip);
    out->secret = steal_pointer(&secret);
    return 1;
}

/* A sidecar this run made is probed from its network before any box relies on it; one that
 * cannot be reached is removed, so that the next run probes again. */
static int probe_new(struct cp_engine *e, const char *image, struct cp_sidecar *s, cp_error_t *err)
{
    if (cp_seal_probe_sidecar(e, image, s->name, s->ip, err) == 0)
        return 0;
    cleanup_error cp_error_t rm = NULL;
    (void)cp_box_remove(e, s->id, &rm);
    cp_sidecar_dispose(s);
    return cp_error_code(err);
}

/* A folder's network and sidecar are made by one run at a time: the engine's CheckDuplicate is
 * no compare-and-swap, and Docker made four networks of one name for four first runs at once
 * (the relay's 50 tickets), after which every run met "network ... is ambiguous". The lock is
 * the person's, not the CONCH_HOME's: networks are the engine's, and two CONCH_HOMEs that each
 * held a lock of their own made twin networks for one folder just the same. */
static int lock_seal(const char *name, cp_error_t *err)
{
    cleanup_free char *dir = cp_person_dir();
    if (dir == NULL && cp_workplaces_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/%s.lock", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    if (flock(fd, LOCK_EX) < 0) { /* EINTR: a signal, which the caller's wait reports */
        int e = errno;
        close(fd);
        return cp_error_make(err, e == EINTR ? CP_ERR_INTERRUPTED : CP_ERR_FAILED, e,
                             "cannot lock %s", path);
    }
    return fd;
}

int cp_sidecar_ensure(struct cp_engine *e, const struct cp_allowlist *list, const char *workdir,
                      const struct cp_sidecar_trust *trust, struct cp_sidecar *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    cleanup_free char *image = NULL;
    if (cp_egress_image_ensure(e, &image, err) < 0)
        return cp_error_wrap(err, "the egress sidecar");
    cleanup_strv char **args = proxy_args(list);
    struct cp_sidecar_names n;
    list_hash(list, image, args, trust, n.list);
    folder_hash(workdir, n.folder);
    cleanup_free char *name = n.name = sidecar_name(n.list, n.folder);
    cleanup_close int lock = lock_seal(name, err);
    if (lock < 0 || ensure_network(e, &n, err) < 0)
        return cp_error_code(err);
    bool made = false;
    for (int tries = 0; tries < ENSURE_TRIES; tries++) {
        int r = find_running(e, name, out, err);
        if (r < 0)
            return cp_error_wrap(err, "the egress sidecar");
        if (r > 0)
            return made ? probe_new(e, image, out, err) : 0;
        if (create_sidecar(e, &n, image, args, trust, err) < 0)
            return cp_error_wrap(err, "the egress sidecar");
        made = true;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "the egress sidecar %s did not stay up", name);
}

int cp_sidecar_box_env(const struct cp_sidecar *s, const char *box, char ***out, cp_error_t *err)
{
    char token[CP_EGRESS_TOKEN_CHARS + 1];
    if (cp_egress_box_token(s->secret, box, token, err) < 0)
        return cp_error_code(err);
    cleanup_free char *url = xasprintf("http://%s:%s@%s:%d", box, token, s->ip, CP_SIDECAR_PORT);
    explicit_bzero(token, sizeof(token));
    static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                        "http_proxy", "https_proxy", "all_proxy"};
    char **v = xcalloc(ARRAY_SIZE(names) + 1, sizeof(char *));
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        v[i] = xasprintf("%s=%s", names[i], url);
    explicit_bzero(url, strlen(url));
    *out = v;
    return 0;
}

/* ---- clean ---- */

static int list_json(struct cp_engine *e, const char *what, const char *filter, json_object **out,
                     cp_error_t *err)
{
    cleanup_free char *esc = cp_engine_escape(filter);
    cleanup_free char *path = xasprintf("/%s/json?all=1&filters=%s", what, esc);
    if (strcmp(what, "networks") == 0) {
        free(path);
        path = xasprintf("/networks?filters=%s", esc);
    }
    return cp_engine_call(e, "GET", path, NULL, out, err);
}

/* Whether any container other than the sidecar sits on the network. */
static int network_in_use(struct cp_engine *e, const char *net, const char *sidecar_id, bool *out,
                          cp_error_t *err)
{
    cleanup_free char *filter = xasprintf("{\"network\":[\"%s\"]}", net);
    cleanup_json json_object *list = NULL;
    if (list_json(e, "containers", filter, &list, err) < 0)
        return cp_error_code(err);
    *out = false;
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        const char *id = cp_json_str(json_object_array_get_idx(list, i), "Id");
        if (id != NULL && (sidecar_id == NULL || strcmp(id, sidecar_id) != 0))
            *out = true;
    }
    return 0;
}

static bool safe_name(const char *s)
{
    return s != NULL && strncmp(s, "conch-egress-", 13) == 0 &&
           strspn(s + 13, "0123456789abcdef") == strlen(s + 13);
}

static int clean_sidecars(struct cp_engine *e, int *removed, cp_error_t *err)
{
    cleanup_json json_object *list = NULL;
    if (list_json(e, "containers", "{\"label\":[\"conch.egress=1\"]}", &list, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i), *names = NULL;
        const char *id = cp_json_str(c, "Id");
        json_object_object_get_ex(c, "Names", &names);
        const char *n0 = json_object_get_string(json_object_array_get_idx(names, 0));
        const char *name = n0 && n0[0] == '/' ? n0 + 1 : n0;
        bool used = false;
        if (id == NULL || !safe_name(name) || network_in_use(e, name, id, &used, err) < 0)
            return cp_error_code(err);
        cleanup_error cp_error_t rm = NULL;
        if (!used && cp_box_remove(e, id, &rm) == 0)
            (*removed)++;
    }
    return 0;
}

static int clean_networks(struct cp_engine *e, int *removed, cp_error_t *err)
{
    cleanup_json json_object *list = NULL;
    if (list_json(e, "networks", "{\"label\":[\"conch.egress=1\"]}", &list, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        const char *name = cp_json_str(json_object_array_get_idx(list, i), "Name");
        bool used = false;
        if (!safe_name(name) || network_in_use(e, name, NULL, &used, err) < 0)
            return cp_error_code(err);
        cleanup_free char *path = xasprintf("/networks/%s", name);
        cleanup_error cp_error_t rm = NULL;
        if (!used && cp_engine_call(e, "DELETE", path, NULL, NULL, &rm) == 0)
            (*removed)++;
    }
    return 0;
}

int cp_sidecar_clean(struct cp_engine *e, int *removed_out, cp_error_t *err)
{
    int removed = 0;
    if (clean_sidecars(e, &removed, err) < 0 || clean_networks(e, &removed, err) < 0)
        return cp_error_wrap(err, "while removing egress sidecars");
    *removed_out = removed;
    return 0;
}

/* ---- a sealed run ---- */

static void trust_dispose(struct cp_sidecar_trust *t)
{
    cp_free_secret(t->ca_pem);
    free(t->extra);
}

/* The CA the sidecar signs with, and egress.ca_file's roots it trusts beside this computer's. */
static int trust_load(const struct cp_config *cfg, struct cp_sidecar_trust *t, cp_error_t *err)
{
    if (cp_egress_ca_from_home(&t->ca_pem, err) < 0 ||
        cp_egress_ca_fingerprint(t->ca_pem, t->ca_fingerprint, err) < 0 ||
        cp_egress_extra_trust(cfg, &t->extra, err) < 0)
        return cp_error_wrap(err, "the egress sidecar's trust");
    return 0;
}

/* A sidecar given sign-ins has a mark, so that a run with none clears them and a run with none
 * for a sidecar without them costs no attach. */
static char *signed_mark(const struct cp_sidecar *s)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_workplaces_dir(&dir, &err) < 0)
        return NULL;
    return xasprintf("%s/signed-%.64s", dir, s->id);
}

/* This run's sign-ins, read afresh, into the sidecar: one run at a time per folder. */
static int give_sign_ins(struct cp_engine *e, const struct cp_sidecar *s,
                         const struct cp_sign_ins *ins, cp_error_t *err)
{
    cleanup_free char *mark = signed_mark(s);
    if (ins->n == 0 && (mark == NULL || access(mark, F_OK) != 0))
        return 0;
    char id[17];
    cp_box_random_hex(id, sizeof(id));
    cleanup_secret char *line = cp_sign_ins_message(ins, id);
    cleanup_close int lock = lock_seal(s->name, err);
    if (lock < 0 || cp_sidecar_send_sign_ins(e, s, line, id, err) < 0)
        return cp_error_wrap(err, "giving the egress sidecar your sign-ins");
    if (mark != NULL && ins->n == 0)
        unlink(mark);
    else if (mark != NULL)
        close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    return 0;
}

int cp_seal_prepare(struct cp_engine *e, const char *workdir, const struct cp_config *cfg,
                    const char *box, const char *image_id, struct cp_seal *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->since = time(NULL) - 1;
    out->box = xstrdup(box);
    __attribute__((cleanup(trust_dispose))) struct cp_sidecar_trust trust = {0};
    cleanup_sign_ins struct cp_sign_ins ins = {0};
    if (trust_load(cfg, &trust, err) < 0 || cp_sign_ins_for(workdir, &ins, err) < 0 ||
        cp_allowlist_signed_for(workdir, cfg, &ins, &out->list, err) < 0 ||
        cp_sidecar_ensure(e, &out->list, workdir, &trust, &out->sidecar, err) < 0 ||
        give_sign_ins(e, &out->sidecar, &ins, err) < 0 ||
        cp_sidecar_box_env(&out->sidecar, box, &out->env, err) < 0 ||
        cp_egress_box_bundle(e, image_id, trust.ca_pem, &out->ca_bundle, &out->ca_paths, err) < 0) {
        cp_seal_dispose(out);
        return cp_error_code(err);
    }
    return 0;
}

void cp_seal_after(struct cp_engine *e, const struct cp_seal *seal, int status, const char *workdir)
{
    if (status != 0 && seal->sidecar.id != NULL)
        cp_sidecar_hint(e, &seal->sidecar, seal->box, seal->since, &seal->list, workdir);
}

void cp_seal_dispose(struct cp_seal *s)
{
    cp_allowlist_dispose(&s->list);
    cp_sidecar_dispose(&s->sidecar);
    for (size_t i = 0; s->env != NULL && s->env[i] != NULL; i++)
        explicit_bzero(s->env[i], strlen(s->env[i]));
    cp_strv_free(s->env);
    free(s->box);
    free(s->ca_bundle);
    cp_strv_free(s->ca_paths);
    memset(s, 0, sizeof(*s));
}
