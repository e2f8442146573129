/* Builds the create body with json-c (never by pasting strings): the seal, row by row. */
#include "config.h"

#include <string.h>

#include "places/container/box-spec.h"
#include "places/container/caches.h"
#include "places/container/egress-trust.h"
#include "src/base/util.h"

#define GIB (1024LL * 1024 * 1024)

static json_object *strv_array(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static json_object *bind_mount(const char *src, const char *dst, bool ro)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "Type", json_object_new_string("bind"));
    json_object_object_add(m, "Source", json_object_new_string(src));
    json_object_object_add(m, "Target", json_object_new_string(dst));
    json_object_object_add(m, "ReadOnly", json_object_new_boolean(ro));
    return m;
}

/* The layer's volume at the folder's path, or the cache's at its own. NoCopy: an engine copies
 * what an image holds at a volume's path into it when it looks empty, which would land as the
 * box's writes. */
static json_object *volume_mount(const char *volume, const char *dst)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "Type", json_object_new_string("volume"));
    json_object_object_add(m, "Source", json_object_new_string(volume));
    json_object_object_add(m, "Target", json_object_new_string(dst));
    json_object_object_add(m, "ReadOnly", json_object_new_boolean(0));
    json_object *o = json_object_new_object();
    json_object_object_add(o, "NoCopy", json_object_new_boolean(1));
    json_object_object_add(m, "VolumeOptions", o);
    return m;
}

static json_object *mounts(const struct cp_box_spec *s)
{
    json_object *a = json_object_new_array();
    json_object_array_add(a, s->layer != NULL ? volume_mount(s->layer, s->workdir)
                                              : bind_mount(s->workdir, s->workdir, false));
    /* The top .git is seen through the layer and lands by git's table (mirror/git-table.c);
     * every other one (submodules', nested repositories', worktrees' files) stays read-only.
     * A .git made during the run stays in the layer: the gate never lands one. */
    cleanup_free char *top = s->layer != NULL ? xasprintf("%s/.git", s->workdir) : NULL;
    for (size_t i = 0; s->sealed && s->gits != NULL && s->gits[i] != NULL; i++)
        if (top == NULL || strcmp(s->gits[i], top) != 0)
            json_object_array_add(a, bind_mount(s->gits[i], s->gits[i], true));
    for (size_t i = 0; s->protected_files != NULL && s->protected_files[i] != NULL; i++)
        json_object_array_add(a, bind_mount(s->empty_file, s->protected_files[i], true));
    for (size_t i = 0;
         s->settings != NULL && s->settings[i] != NULL && s->copies != NULL && s->copies[i] != NULL;
         i++)
        json_object_array_add(a, bind_mount(s->copies[i], s->settings[i], true));
    for (size_t i = 0; s->ca_bundle != NULL && s->ca_paths != NULL && s->ca_paths[i] != NULL; i++)
        json_object_array_add(a, bind_mount(s->ca_bundle, s->ca_paths[i], true));
    /* The folder's caches, their credential files covered; NoCopy as for the layer. */
    if (s->cache != NULL)
        json_object_array_add(a, volume_mount(s->cache, CP_CACHE_TARGET));
    for (size_t i = 0; s->cache != NULL && cp_cache_covers[i] != NULL; i++)
        json_object_array_add(a, bind_mount(s->empty_file, cp_cache_covers[i], true));
    if (s->no_dns != NULL) /* the engines then write no resolver of their own */
        json_object_array_add(a, bind_mount(s->empty_file, "/etc/resolv.conf", true));
    return a;
}

/* Podman adds unbounded writable tmpfs on /var/tmp and /run to read-only boxes unless
 * something is mounted there; bounding them ourselves keeps both engines alike. */
static json_object *tmpfs(const struct cp_box_spec *s)
{
    json_object *t = json_object_new_object();
    json_object_object_add(t, "/tmp",
                           json_object_new_string("rw,exec,nosuid,nodev,size=2g,mode=1777"));
    json_object_object_add(t, "/var/tmp", json_object_new_string("rw,nosuid,nodev,size=64m"));
    json_object_object_add(t, "/run", json_object_new_string("rw,nosuid,nodev,size=16m"));
    /* Podman copies what is under a tmpfs into it (tmpcopyup) unless told not to: the very
     * keys the cover exists to hide. Docker knows no such option and refuses it. */
    const char *cover = s->tmpfs_copies_up ? "ro,nosuid,nodev,noexec,size=64k,mode=0555,notmpcopyup"
                                           : "ro,nosuid,nodev,noexec,size=64k,mode=0555";
    for (size_t i = 0; s->protected_dirs != NULL && s->protected_dirs[i] != NULL; i++)
        json_object_object_add(t, s->protected_dirs[i], json_object_new_string(cover));
    return t;
}

/* No IPv6 in a sealed box: the host keeps an IPv6 link-local address on every bridge, internal
 * ones included, and a box with IPv6 reached it there (Podman/CNI, measured: fe80::...%eth0
 * answered a listener on ::). Docker already does this for boxes on networks without IPv6;
 * saying it keeps both engines alike. The box's /proc/sys is read-only and it has no
 * CAP_NET_ADMIN, so it cannot turn IPv6 back on. */
json_object *cp_box_seal_sysctls(void)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "net.ipv6.conf.all.disable_ipv6", json_object_new_string("1"));
    json_object_object_add(o, "net.ipv6.conf.default.disable_ipv6", json_object_new_string("1"));
    return o;
}

static json_object *host_config(const struct cp_box_spec *s)
{
    json_object *h = json_object_new_object();
    json_object_object_add(h, "CapDrop", strv_array((char *[]){"ALL", NULL}));
    json_object_object_add(h, "SecurityOpt", strv_array((char *[]){"no-new-privileges", NULL}));
    json_object_object_add(h, "ReadonlyRootfs", json_object_new_boolean(1));
    json_object_object_add(h, "Tmpfs", tmpfs(s));
    json_object_object_add(h, "Mounts", mounts(s));
    json_object_object_add(h, "PidsLimit", json_object_new_int64(512));
    json_object_object_add(h, "Memory", json_object_new_int64(4 * GIB));
    json_object_object_add(h, "MemorySwap", json_object_new_int64(4 * GIB));
    json_object_object_add(h, "NanoCpus", json_object_new_int64(s->cpus * 1000000000LL));
    json_object_object_add(h, "Init", json_object_new_boolean(1));
    json_object_object_add(h, "AutoRemove", json_object_new_boolean(0));
    json_object *log = json_object_new_object();
    json_object_object_add(log, "Type", json_object_new_string("none"));
    json_object_object_add(h, "LogConfig", log);
    if (s->network != NULL)
        json_object_object_add(h, "NetworkMode", json_object_new_string(s->network));
    /* A box joining a holder's namespace takes its network as the holder was made: Docker
     * refuses a resolver or net sysctls of its own there. Podman's ns: mode takes a resolver
     * (the sidecar's address, as on the network) and would set the sysctls on the holder's. */
    bool in_holder = s->network != NULL && strncmp(s->network, "container:", 10) == 0;
    bool joins = in_holder || (s->network != NULL && strncmp(s->network, "ns:", 3) == 0);
    if (s->sealed && s->network != NULL && !joins)
        json_object_object_add(h, "Sysctls", cp_box_seal_sysctls());
    if (s->userns != NULL)
        json_object_object_add(h, "UsernsMode", json_object_new_string(s->userns));

    /* Docker's embedded resolver still answers at 127.0.0.11 on a user network; its upstream
     * is made one that answers nothing, never a loopback one (dialled from the host before
     * CVE-2024-29018's fix). */
    if (s->no_dns != NULL && !in_holder)
        json_object_object_add(h, "Dns", strv_array((char *[]){(char *)s->no_dns, NULL}));
    return h;
}

/* git in a box seen through the layer makes no automatic maintenance: a gc there would pack
 * the folder's objects again into a pack the gate must check and land, and its pruning of loose
 * objects never lands (nothing under objects/ is deleted here), so each such commit would cost
 * a whole repack for nothing. This computer's git keeps its own maintenance. Command-line
 * scope, which the command's own GIT_CONFIG_COUNT replaces. */
static const char *const git_env[] = {
    "GIT_CONFIG_COUNT=2",       "GIT_CONFIG_KEY_0=maintenance.auto",
    "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_KEY_1=gc.auto",
    "GIT_CONFIG_VALUE_1=0",     NULL,
};

static json_object *environment(const struct cp_box_spec *s)
{
    json_object *a = json_object_new_array();
    json_object_array_add(a, json_object_new_string("HOME=/tmp"));
    const char *lang = getenv("LANG");
    cleanup_free char *l = xasprintf("LANG=%s", lang && *lang ? lang : "C.UTF-8");
    json_object_array_add(a, json_object_new_string(l));
    for (size_t i = 0; s->env != NULL && s->env[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(s->env[i]));
    /* The sidecar ends TLS with its own CA: the usual clients are pointed at the bundle. */
    for (size_t i = 0; s->ca_bundle != NULL && cp_box_ca_env[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(cp_box_ca_env[i]));
    for (size_t i = 0; s->cache != NULL && cp_cache_env[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(cp_cache_env[i]));
    for (size_t i = 0; s->layer != NULL && git_env[i] != NULL; i++)
        json_object_array_add(a, json_object_new_string(git_env[i]));
    return a;
}

static json_object *labels(const struct cp_box_spec *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "conch.work", json_object_new_string("1"));
    for (size_t i = 0; s->labels != NULL && s->labels[i] != NULL; i++) {
        const char *eq = strchr(s->labels[i], '=');
        if (eq == NULL)
            continue;
        cleanup_free char *k = strndup(s->labels[i], (size_t)(eq - s->labels[i]));
        json_object_object_add(o, k, json_object_new_string(eq + 1));
    }
    return o;
}

json_object *cp_box_spec_json(const struct cp_box_spec *s)
{
    json_object *c = json_object_new_object();
    json_object_object_add(c, "Image", json_object_new_string(s->image));
    if (s->argv != NULL)
        json_object_object_add(c, "Cmd", strv_array(s->argv));
    /* An image's entrypoint would wrap the command in something we did not ask for. */
    json_object_object_add(c, "Entrypoint", json_object_new_array());
    cleanup_free char *user = xasprintf("%u:%u", s->uid, s->gid);
    json_object_object_add(c, "User", json_object_new_string(user));
    json_object_object_add(c, "WorkingDir", json_object_new_string(s->workdir));
    json_object_object_add(c, "Env", environment(s));
    json_object_object_add(c, "Labels", labels(s));
    json_object_object_add(c, "Tty", json_object_new_boolean(0));
    json_object_object_add(c, "OpenStdin", json_object_new_boolean(s->interactive));
    json_object_object_add(c, "StdinOnce", json_object_new_boolean(s->interactive));
    json_object_object_add(c, "AttachStdin", json_object_new_boolean(s->interactive));
    json_object_object_add(c, "AttachStdout", json_object_new_boolean(1));
    json_object_object_add(c, "AttachStderr", json_object_new_boolean(1));
    json_object_object_add(c, "StopTimeout", json_object_new_int(2));
    json_object_object_add(c, "HostConfig", host_config(s));
    return c;
}
