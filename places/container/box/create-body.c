/* The one function that writes a create body's seal: every box of ours (the command's box, the
 * egress sidecar, the network holder, the seal's probes, the npm helper) starts from it and adds
 * only what it legitimately differs in, so that a rule added here reaches all five. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "places/container/box/create-body.h"
#include "src/base/util.h"

json_object *cp_body_strv(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

json_object *cp_body_work_labels(char *const *more)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "conch.work", json_object_new_string("1"));
    for (size_t i = 0; more != NULL && more[i] != NULL; i++) {
        const char *eq = strchr(more[i], '=');
        if (eq == NULL)
            continue;
        cleanup_free char *k = strndup(more[i], (size_t)(eq - more[i]));
        json_object_object_add(o, k, json_object_new_string(eq + 1));
    }
    return o;
}

json_object *cp_local_volume_body(const char *name, const char *type, const char *device,
                                  const char *options, char *const *labels)
{
    json_object *b = json_object_new_object();
    json_object_object_add(b, "Name", json_object_new_string(name));
    json_object_object_add(b, "Driver", json_object_new_string("local"));
    json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string(type));
    json_object_object_add(o, "device", json_object_new_string(device));
    json_object_object_add(o, "o", json_object_new_string(options));
    json_object_object_add(b, "DriverOpts", o);
    json_object_object_add(b, "Labels", cp_body_work_labels(labels));
    return b;
}

long cp_sealed_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 2 ? 2 : 1;
}

/* No IPv6 in a box on a sealed network: the host keeps an IPv6 link-local address on every
 * bridge, internal ones included, and a box with IPv6 reached it there (Podman/CNI, measured:
 * fe80::...%eth0 answered a listener on ::). Docker already does this for boxes on networks
 * without IPv6; saying it keeps both engines alike. The box's /proc/sys is read-only and it
 * has no CAP_NET_ADMIN, so it cannot turn IPv6 back on. */
static json_object *no_ipv6_sysctls(void)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "net.ipv6.conf.all.disable_ipv6", json_object_new_string("1"));
    json_object_object_add(o, "net.ipv6.conf.default.disable_ipv6", json_object_new_string("1"));
    return o;
}

static void add_network(json_object *h, const struct cp_sealed_body_opts *o)
{
    if (o->network != NULL)
        json_object_object_add(h, "NetworkMode", json_object_new_string(o->network));
    if (o->no_ipv6)
        json_object_object_add(h, "Sysctls", no_ipv6_sysctls());
    if (o->resolver != NULL)
        json_object_object_add(h, "Dns", cp_body_strv((char *[]){(char *)o->resolver, NULL}));
}

/* The limits: swap as much as the memory (MemorySwap counts both), so the memory bound is one
 * bound and not twice it. */
static void add_limits(json_object *h, const struct cp_sealed_body_opts *o)
{
    json_object_object_add(h, "PidsLimit", json_object_new_int64(o->pids));
    json_object_object_add(h, "Memory", json_object_new_int64(o->memory));
    json_object_object_add(h, "MemorySwap", json_object_new_int64(o->memory));
    json_object_object_add(h, "NanoCpus", json_object_new_int64(o->cpus * 1000000000LL));
}

/* A read-only root leaves nothing writable but what the body gives. Podman mounts a writable
 * tmpfs on /tmp, /run and /var/tmp of a box with a read-only root unless something is mounted
 * there (its read_only_tmpfs, on by default), bounded by nothing but the box's memory; Docker
 * mounts none. An empty read-only tmpfs on each one the body does not give keeps the two
 * engines alike and the helpers' roots read-only; Podman is told not to copy the image's files
 * into it (notmpcopyup), which Docker does not know and refuses. */
static json_object *scratch(const struct cp_sealed_body_opts *o)
{
    const char *none = o->tmpfs_copies_up ? "ro,nosuid,nodev,noexec,size=4k,mode=0555,notmpcopyup"
                                          : "ro,nosuid,nodev,noexec,size=4k,mode=0555";
    json_object *t = json_object_new_object();
    json_object_object_add(t, "/tmp", json_object_new_string(o->tmp != NULL ? o->tmp : none));
    json_object_object_add(t, "/run", json_object_new_string(none));
    json_object_object_add(t, "/var/tmp", json_object_new_string(none));
    return t;
}

static json_object *host_config(const struct cp_sealed_body_opts *o)
{
    json_object *h = json_object_new_object();
    json_object_object_add(h, "CapDrop", cp_body_strv((char *[]){"ALL", NULL}));
    json_object_object_add(h, "SecurityOpt", cp_body_strv((char *[]){"no-new-privileges", NULL}));
    json_object_object_add(h, "ReadonlyRootfs", json_object_new_boolean(1));
    json_object_object_add(h, "Tmpfs", scratch(o));
    add_limits(h, o);
    /* Said only when wanted: an engine may be set to give every box an init. */
    if (o->init)
        json_object_object_add(h, "Init", json_object_new_boolean(1));
    json_object_object_add(h, "AutoRemove", json_object_new_boolean(o->auto_remove));
    if (!o->keep_log) {
        json_object *log = json_object_new_object();
        json_object_object_add(log, "Type", json_object_new_string("none"));
        json_object_object_add(h, "LogConfig", log);
    }
    add_network(h, o);
    return h;
}

json_object *cp_sealed_create_body(const struct cp_sealed_body_opts *o)
{
    json_object *c = json_object_new_object();
    json_object_object_add(c, "Image", json_object_new_string(o->image));
    if (o->entrypoint != NULL)
        json_object_object_add(c, "Entrypoint", cp_body_strv(o->entrypoint));
    if (o->cmd != NULL)
        json_object_object_add(c, "Cmd", cp_body_strv(o->cmd));
    json_object_object_add(c, "User", json_object_new_string(o->user));
    if (o->env != NULL)
        json_object_object_add(c, "Env", o->env);
    if (o->labels != NULL)
        json_object_object_add(c, "Labels", o->labels);
    json_object_object_add(c, "HostConfig", host_config(o));
    return c;
}

json_object *cp_sealed_host_config(json_object *body)
{
    json_object *h = NULL;
    json_object_object_get_ex(body, "HostConfig", &h);
    return h;
}
