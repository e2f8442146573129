/* A folder's network holder (Docker): one small box on the folder's internal network whose
 * network namespace the folder's fresh sealed boxes join (NetworkMode container:ID), so that
 * Docker sets up no endpoint per box. An endpoint is what a fresh box paid for most: a resolver
 * helper and about ten iptables calls (bench/container-roundtrip: a box joining a holder took
 * 0.67x of one with --network none, 0.48x of one on the network).
 *
 * Why it keeps the seal: the namespace is made as a sealed box's was (the internal network, no
 * resolver, no IPv6), and nothing runs in it but boxes of one folder, seal and allow-list: one
 * trust domain, which may now share loopback; each box's writes are still its own layer's.
 * Boxes of another folder have another network and another holder.
 *
 * Why it leaves with its sidecar: it runs in the sidecar's PID namespace, so the kernel ends it
 * when the sidecar's proxy exits (idle, replaced or cleaned) and Docker then removes it. A box
 * still running keeps the namespace it joined. Podman is left on its own networks: there a box
 * joining a holder measured no faster than one on the network. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "places/container/box-spec.h"
#include "places/container/box.h"
#include "places/container/sidecar-names.h"
#include "places/container/sidecar.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define HOLD_TRIES 3

bool cp_sidecar_hold_wanted(void)
{
    const char *v = getenv("CONCH_PLACE_NO_HOLD");
    return v == NULL || v[0] == '\0' || strcmp(v, "0") == 0;
}

char *cp_sidecar_holder_name(const char *sidecar)
{
    return xasprintf("%s-hold", sidecar);
}

static json_object *strv_json(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static json_object *hold_host_config(const struct cp_sidecar *s)
{
    json_object *h = json_object_new_object();
    /* Every row of a sealed box's network: boxes that join inherit the namespace as made. */
    json_object_object_add(h, "NetworkMode", json_object_new_string(s->name));
    json_object_object_add(h, "Dns", strv_json((char *[]){s->ip, NULL}));
    json_object_object_add(h, "Sysctls", cp_box_seal_sysctls());
    cleanup_free char *pid = xasprintf("container:%s", s->id);
    json_object_object_add(h, "PidMode", json_object_new_string(pid));
    json_object_object_add(h, "CapDrop", strv_json((char *[]){"ALL", NULL}));
    json_object_object_add(h, "SecurityOpt", strv_json((char *[]){"no-new-privileges", NULL}));
    json_object_object_add(h, "ReadonlyRootfs", json_object_new_boolean(1));
    json_object_object_add(h, "PidsLimit", json_object_new_int64(8));
    json_object_object_add(h, "Memory", json_object_new_int64(32LL * 1024 * 1024));
    json_object_object_add(h, "AutoRemove", json_object_new_boolean(1));
    json_object *log = json_object_new_object();
    json_object_object_add(log, "Type", json_object_new_string("none"));
    json_object_object_add(h, "LogConfig", log);
    return h;
}

static json_object *hold_body(const char *image, const struct cp_sidecar_names *n,
                              const struct cp_sidecar *s)
{
    json_object *c = json_object_new_object();
    json_object_object_add(c, "Image", json_object_new_string(image));
    json_object_object_add(c, "Entrypoint",
                           strv_json((char *[]){"/conch-place", "net-hold", NULL}));
    json_object_object_add(c, "Cmd", json_object_new_array());
    /* Not the sidecar's user, whose PID namespace it shares: it could not read the sidecar's
     * memory even if something ran in it. */
    json_object_object_add(c, "User", json_object_new_string("65533:65533"));
    json_object *labels = json_object_new_object();
    json_object_object_add(labels, CP_HOLD_LABEL, json_object_new_string("1"));
    json_object_object_add(labels, CP_FOLDER_LABEL, json_object_new_string(n->folder));
    json_object_object_add(c, "Labels", labels);
    json_object_object_add(c, "HostConfig", hold_host_config(s));
    return c;
}

/* 1 with *id_out when the holder runs in this sidecar's PID namespace; 0 when there is none (one
 * of an earlier sidecar, or stopped, is removed first); or an error. */
static int find_holder(struct cp_engine *e, const char *name, const struct cp_sidecar *s,
                       char **id_out, cp_error_t *err)
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
    cleanup_free char *want = xasprintf("container:%s", s->id);
    if (json_object_get_boolean(running) && pid != NULL && strcmp(pid, want) == 0) {
        *id_out = xstrdup(id);
        return 1;
    }
    cp_debug("replacing the holder %s, which is not this sidecar's", name);
    return cp_box_remove(e, id, err) < 0 ? cp_error_code(err) : 0;
}

/* 0 made and started, or made by another run first (look again); or an error. */
static int make_holder(struct cp_engine *e, const char *image, const struct cp_sidecar_names *n,
                       const char *name, const struct cp_sidecar *s, cp_error_t *err)
{
    cleanup_json json_object *body = hold_body(image, n, s);
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
        int r = find_holder(e, name, s, &s->holder, err);
        if (r != 0)
            return r < 0 ? cp_error_code(err) : 0;
        if (make_holder(e, image, n, name, s, err) < 0)
            return cp_error_code(err);
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "the network holder %s did not stay up", name);
}
