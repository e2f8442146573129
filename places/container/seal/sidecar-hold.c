/* A folder's network holder: one small box on the folder's internal network whose network
 * namespace the folder's sealed boxes join, so that the engine sets up no endpoint per box.
 * Docker's endpoint is what a fresh box paid for most: a resolver helper and about ten iptables
 * calls (bench/container-roundtrip: a box joining a holder took 0.67x of one with --network
 * none, 0.48x of one on the network). Podman's start of a box on the network took 270-290 ms,
 * one in the holder's namespace 140, and a box on the network holds the network's lock while it
 * starts, which every run's check of the network waited for (~400 ms behind a warm box made
 * after the run before).
 *
 * How a box joins: on Docker NetworkMode container:ID. On Podman ns:PATH, the holder's network
 * namespace file (its SandboxKey), because Podman ties a container:ID box to the holder: it
 * refuses to remove the holder while any such box exists, even an exited one, and starts the
 * holder again to start such a box. The file goes when the holder stops, so a box made for a
 * holder that is gone fails to start; it never joins another namespace. The holder joins the
 * sidecar's PID namespace the same way on Podman (ns:/proc/PID/ns/pid, the number checked to be
 * the sidecar's first process): by container:ID Podman could not remove an idle sidecar as it
 * left, with its holder still there.
 *
 * Why it keeps the seal: the namespace is made as a sealed box's was (the internal network, no
 * resolver, no IPv6), and nothing runs in it but boxes of one folder, seal and allow-list: one
 * trust domain, which may now share loopback; each box's writes are still its own layer's.
 * Boxes of another folder have another network and another holder.
 *
 * Why it leaves with its sidecar: it runs in the sidecar's PID namespace, so the kernel ends it
 * when the sidecar's proxy exits (idle, replaced or cleaned) and Docker then removes it. A box
 * still running keeps the namespace it joined. The holder is removed first wherever a sidecar
 * is (it would leave with it anyway). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "places/container/box/box.h"
#include "places/container/seal/sidecar-names.h"
#include "places/container/seal/sidecar.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define HOLD_TRIES 3

/* Podman's network namespace file: an absolute path of plain characters, which the network
 * mode carries as it is. */
static bool plain_path(const char *p)
{
    return p != NULL && p[0] == '/' && strlen(p) < 256 &&
           strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") ==
               strlen(p) &&
           strstr(p, "..") == NULL;
}

char *cp_sidecar_join_mode(const struct cp_engine *e, json_object *c)
{
    const char *id = cp_json_str(c, "Id");
    if (!e->quirks.joins_by_ns_path)
        return id != NULL ? xasprintf("container:%s", id) : NULL;
    json_object *ns = NULL;
    json_object_object_get_ex(c, "NetworkSettings", &ns);
    const char *key = cp_json_str(ns, "SandboxKey");
    return plain_path(key) ? xasprintf("ns:%s", key) : NULL;
}

bool cp_sidecar_hold_wanted(void)
{
    const char *v = getenv("CONCH_PLACE_NO_HOLD");
    return v == NULL || v[0] == '\0' || strcmp(v, "0") == 0;
}

char *cp_sidecar_holder_name(const char *sidecar)
{
    return xasprintf("%s-hold", sidecar);
}

void cp_sidecar_holder_remove(struct cp_engine *e, const char *sidecar)
{
    cleanup_free char *name = cp_sidecar_holder_name(sidecar);
    cleanup_json json_object *c = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_box_inspect_ours(e, name, CP_HOLD_LABEL, &c, &err) == 1)
        (void)cp_box_remove(e, cp_json_str(c, "Id"), &err);
}

/* The seal's body (create-body.c) on the sealed network as a box's: boxes that join inherit the
 * namespace as made. Its own rows: the sidecar's PID namespace, its command, its labels. */
static json_object *hold_body(const struct cp_engine *e, const char *image,
                              const struct cp_sidecar_names *n, const struct cp_sidecar *s)
{
    json_object *labels = json_object_new_object();
    json_object_object_add(labels, CP_HOLD_LABEL, json_object_new_string("1"));
    json_object_object_add(labels, CP_FOLDER_LABEL, json_object_new_string(n->folder));
    struct cp_sealed_body_opts o = {
        .image = image,
        .entrypoint = (char *[]){"/conch-place", "net-hold", NULL},
        .cmd = (char *[]){NULL},
        /* Not the sidecar's user, whose PID namespace it shares: it could not read the
         * sidecar's memory even if something ran in it. */
        .user = "65533:65533",
        .labels = labels,
        .pids = 8,
        .memory = 32LL * 1024 * 1024,
        .cpus = 1,
        .auto_remove = true,
        .network = s->name,
        .no_ipv6 = true,
        .resolver = s->ip,
        .tmpfs_copies_up = e->quirks.tmpfs_copies_up,
    };
    json_object *c = cp_sealed_create_body(&o);
    json_object_object_add(cp_sealed_host_config(c), "PidMode",
                           json_object_new_string(s->pid_mode));
    return c;
}

/* 1 with s->holder and s->join when the holder runs in this sidecar's PID namespace; 0 when
 * there is none (one of an earlier sidecar, or stopped, is removed first); or an error. */
static int find_holder(struct cp_engine *e, const char *name, struct cp_sidecar *s, cp_error_t *err)
{
    cleanup_json json_object *c = NULL;
    int r = cp_box_inspect_ours(e, name, CP_HOLD_LABEL, &c, err);
    if (r <= 0)
        return r;
    json_object *state = NULL, *running = NULL, *host = NULL;
    json_object_object_get_ex(c, "State", &state);
    json_object_object_get_ex(state, "Running", &running);
    json_object_object_get_ex(c, "HostConfig", &host);
    const char *id = cp_json_str(c, "Id"), *pid = cp_json_str(host, "PidMode");
    cleanup_free char *join = cp_sidecar_join_mode(e, c);
    if (json_object_get_boolean(running) && pid != NULL && strcmp(pid, s->pid_mode) == 0 &&
        join != NULL) {
        s->holder = xstrdup(id);
        s->join = steal_pointer(&join);
        return 1;
    }
    cp_debug("replacing the holder %s, which is not this sidecar's", name);
    return cp_box_remove(e, id, err) < 0 ? cp_error_code(err) : 0;
}

/* 0 made and started, or made by another run first (look again); or an error. */
static int make_holder(struct cp_engine *e, const char *image, const struct cp_sidecar_names *n,
                       const char *name, const struct cp_sidecar *s, cp_error_t *err)
{
    cleanup_json json_object *body = hold_body(e, image, n, s);
    cleanup_free char *idc = NULL;
    int made = cp_box_create_once(e, body, name, "the network holder", &idc, err);
    if (made <= 0)
        return made;
    if (cp_box_start(e, idc, err) < 0) {
        cleanup_error cp_error_t rm = NULL;
        (void)cp_box_remove(e, idc, &rm);
        return cp_error_wrap(err, "starting the network holder");
    }
    cp_debug("network holder %s made", name);
    return 0;
}

int cp_sidecar_hold(struct cp_engine *e, const char *image, const struct cp_sidecar_names *n,
                    struct cp_sidecar *s, cp_error_t *err)
{
    cleanup_free char *name = cp_sidecar_holder_name(s->name);
    for (int tries = 0; tries < HOLD_TRIES; tries++) {
        int r = find_holder(e, name, s, err);
        if (r != 0)
            return r < 0 ? cp_error_code(err) : 0;
        if (make_holder(e, image, n, name, s, err) < 0)
            return cp_error_code(err);
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "the network holder %s did not stay up", name);
}
