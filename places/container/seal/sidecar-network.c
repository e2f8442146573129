/* A folder's internal network through the engine's API: Docker and Podman make theirs
 * differently, and each is checked the same way before a box joins it.
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
 * - No IPv6 in the box (create-body.c, no_ipv6_sysctls): the host keeps an fe80:: address on
 *   every bridge, internal ones included, which a Podman box reached over IPv6.
 * - No firewall rule of ours: rules are the host's, a firewall reload wipes them, and with no
 *   route there is nothing to filter. The host's firewall can only take away the one path the
 *   seal needs (Docker's FORWARD DROP on Podman's bridges), so when a sidecar is made a probe
 *   box on the network must reach its port (seal-probe.c), else the run stops with 125 and the
 *   rule that lets it through. */
#include "config.h"

#include <string.h>

#include "places/container/seal/sidecar-network.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define INHIBIT_IPV4 "com.docker.network.bridge.inhibit_ipv4"

/* Where libpod's own routes answer, the network is made and read through them: they can turn
 * the network's DNS off (libpod_network_create) and say whether it has a gateway. */
static bool libpod_networks(const struct cp_engine *e)
{
    return e->quirks.libpod_routes;
}

/* A create's answer: made, or there already (409, another run of the folder made it first). A
 * 5xx is the engine's own failure, which may pass (one was seen under load on Podman 4.3 with
 * CNI, whose network files are written under a lock of their own): *again says so. */
static int create_answer(long status, json_object *reply, bool *again, cp_error_t *err)
{
    if (status == 200 || status == 201 || status == 409)
        return 0;
    *again = status >= 500;
    const char *msg = cp_json_str(reply, "message");
    return cp_error_make(err, CP_ERR_FAILED, 0, "the engine answered HTTP %ld: %s", status,
                         msg ? msg : "no reason given");
}

/* Podman's compatible API turns aardvark's DNS on for every network, internal ones included,
 * and aardvark 1.4 forwards outside names from them (measured): its own API can turn it off. */
static int libpod_network_create(struct cp_engine *e, const struct cp_sidecar_names *n, bool *again,
                                 cp_error_t *err)
{
    cleanup_json json_object *body = json_object_new_object();
    json_object_object_add(body, "name", json_object_new_string(n->name));
    json_object_object_add(body, "internal", json_object_new_boolean(1));
    json_object_object_add(body, "dns_enabled", json_object_new_boolean(0));
    json_object_object_add(body, "ipv6_enabled", json_object_new_boolean(0));
    json_object_object_add(body, "labels", cp_sidecar_labels(n));
    long status = 0;
    cleanup_json json_object *reply = NULL;
    int r = cp_engine_libpod_call(e, "POST", "/libpod/networks/create", body, &status, &reply, err);
    if (r < 0)
        return r;
    return create_answer(status, reply, again, err);
}

static int docker_network_create(struct cp_engine *e, const struct cp_sidecar_names *n, bool *again,
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
    json_object_object_add(body, "Labels", cp_sidecar_labels(n));
    long status = 0;
    cleanup_json json_object *reply = NULL;
    if (cp_engine_call_status(e, "POST", "/networks/create", body, &status, &reply, err) < 0)
        return cp_error_code(err);
    return create_answer(status, reply, again, err);
}

/* Whether this computer holds an address on the network: Docker's bridge has one unless the
 * network was made with inhibit_ipv4; Podman's (its own JSON) names a gateway in a subnet when
 * it does (netavark, for its DNS server), none when not (CNI's internal networks). */
static bool host_has_address(const struct cp_engine *e, json_object *net)
{
    if (!libpod_networks(e)) {
        json_object *options = NULL;
        json_object_object_get_ex(net, "Options", &options);
        const char *inhibit = cp_json_str(options, INHIBIT_IPV4);
        return inhibit == NULL || strcmp(inhibit, "true") != 0;
    }
    json_object *subnets = NULL;
    json_object_object_get_ex(net, "subnets", &subnets);
    for (size_t i = 0;
         json_object_is_type(subnets, json_type_array) && i < json_object_array_length(subnets);
         i++) {
        const char *gw = cp_json_str(json_object_array_get_idx(subnets, i), "gateway");
        if (gw != NULL && gw[0] != '\0')
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
    bool libpod = libpod_networks(e);
    json_object_object_get_ex(net, libpod ? "internal" : "Internal", &internal);
    json_object_object_get_ex(net, libpod ? "labels" : "Labels", &labels);
    json_object_object_get_ex(net, libpod ? "ipv6_enabled" : "EnableIPv6", &ipv6);
    if (!json_object_get_boolean(internal) || cp_json_str(labels, CP_SIDECAR_LABEL) == NULL)
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
                      libpod_networks(e)
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

static int network_create_once(struct cp_engine *e, const struct cp_sidecar_names *n, bool *again,
                               cp_error_t *err)
{
    return libpod_networks(e) ? libpod_network_create(e, n, again, err)
                              : docker_network_create(e, n, again, err);
}

/* Made, asked once more after the engine's own failure (a 5xx), said in debug. */
static int network_create(struct cp_engine *e, const struct cp_sidecar_names *n, cp_error_t *err)
{
    bool again = false;
    if (network_create_once(e, n, &again, err) == 0 || !again)
        return cp_error_code(err);
    cp_debug("network %s: %s; asked once more", n->name, (*err)->msg);
    cp_error_free(err);
    again = false;
    return network_create_once(e, n, &again, err);
}

/* Podman's own inspect, not its compatible one: that lists the network's boxes, each under its
 * lock, so it waited ~450 ms for a box being made or removed (the warm box after the last run). */
static int network_inspect(struct cp_engine *e, const char *name, long *status, json_object **out,
                           cp_error_t *err)
{
    if (!libpod_networks(e)) {
        cleanup_free char *path = xasprintf("/networks/%s", name);
        return cp_engine_call_status(e, "GET", path, NULL, status, out, err);
    }
    cleanup_free char *path = xasprintf("/libpod/networks/%s/json", name);
    return cp_engine_libpod_call(e, "GET", path, NULL, status, out, err);
}

/* One inspect on every run but the first: the answer that finds the network is the one checked. */
int cp_sidecar_network_ensure(struct cp_engine *e, const struct cp_sidecar_names *n,
                              cp_error_t *err)
{
    cleanup_json json_object *net = NULL;
    long status = 0;
    if (network_inspect(e, n->name, &status, &net, err) < 0)
        return cp_error_code(err);
    int r = 0;
    if (status != 200 && status != 404)
        r = cp_error_make(err, CP_ERR_FAILED, 0,
                          "the engine answered the inspect of network %s with HTTP %ld", n->name,
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
        if (r == 0 && network_inspect(e, n->name, &status, &net, err) < 0)
            r = cp_error_code(err);
        else if (r == 0 && status != 200)
            r = cp_error_make(err, CP_ERR_FAILED, 0,
                              "the engine made network %s, then answered its inspect with HTTP %ld",
                              n->name, status);
    }
    if (r < 0 || network_check(e, n->name, net, err) < 0) {
        cp_error_wrap(err,
                      "the %s engine could not make the internal network %s that a sealed "
                      "box needs",
                      e->kind, n->name);
        /* Out of address ranges: each folder's sealed runs (per CONCH_HOME) hold one network. */
        if (strstr((*err)->msg, "address pool") != NULL)
            cp_error_hint(err, "The engine has no address range left for another network: each "
                               "folder's sealed boxes hold one. 'conch-place clean' removes "
                               "those no box uses (run it with each CONCH_HOME you use), and the "
                               "engine's default-address-pools setting gives it more.");
        else
            cp_error_hint(err, "Sealed boxes reach the network only through an internal network "
                               "and the egress sidecar; use an engine that makes internal bridge "
                               "networks, or run with --unsealed.");
        return cp_error_code(err);
    }
    return 0;
}
