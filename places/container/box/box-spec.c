/* The box's create body, built with json-c (never by pasting strings): the seal's rows from
 * cp_sealed_create_body, then the box's own (its mounts, covers, environment, attachment). */
#include "config.h"

#include <string.h>

#include "places/container/box/box-spec.h"
#include "places/container/box/caches.h"
#include "places/container/box/create-body.h"
#include "src/base/util.h"

/* A box's trust: the bundle the sidecar's CA is added to (seal/egress-trust.c makes it) is
 * named to the usual clients by these. */
#define CA_ENV_PATH CP_BOX_CA_BUNDLE

const char *const cp_box_ca_env[] = {
    "SSL_CERT_FILE=" CA_ENV_PATH,       /* OpenSSL's clients: python, ruby, wget, git's curl */
    "NODE_EXTRA_CA_CERTS=" CA_ENV_PATH, /* node and npm keep their own roots and add these */
    "REQUESTS_CA_BUNDLE=" CA_ENV_PATH,  /* python requests, which ships certifi's roots */
    "PIP_CERT=" CA_ENV_PATH,            /* pip, which does too */
    "CURL_CA_BUNDLE=" CA_ENV_PATH,
    "GIT_SSL_CAINFO=" CA_ENV_PATH,
    "CARGO_HTTP_CAINFO=" CA_ENV_PATH,
    NULL,
};

#define GIB (1024LL * 1024 * 1024)

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
    /* The top .git is seen through the layer and lands by git's table (mirror/git/git-table.c);
     * every other one (submodules', nested repositories', worktrees' files) stays read-only.
     * A .git made during the run stays in the layer: the gate never lands one. */
    /* A git folder outside the folder (a linked worktree's common one) at its own path, through
     * a layer of its own that lands by git's table too (mirror/git/git-outside.h). */
    if (s->git_dir != NULL)
        json_object_array_add(a, s->git_layer != NULL ? volume_mount(s->git_layer, s->git_dir)
                                                      : bind_mount(s->git_dir, s->git_dir, false));
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

/* The command's box writes in /var/tmp and /run as programs expect, within bounds: these take
 * the place of the seal's empty read-only ones there (cp_sealed_create_body), beside its /tmp. */
static void tmpfs(json_object *t, const struct cp_box_spec *s)
{
    json_object_object_add(t, "/var/tmp", json_object_new_string("rw,nosuid,nodev,size=64m"));
    json_object_object_add(t, "/run", json_object_new_string("rw,nosuid,nodev,size=16m"));
    /* Podman copies what is under a tmpfs into it (tmpcopyup) unless told not to: the very
     * keys the cover exists to hide. Docker knows no such option and refuses it. */
    const char *cover = s->tmpfs_copies_up ? "ro,nosuid,nodev,noexec,size=64k,mode=0555,notmpcopyup"
                                           : "ro,nosuid,nodev,noexec,size=64k,mode=0555";
    for (size_t i = 0; s->protected_dirs != NULL && s->protected_dirs[i] != NULL; i++)
        json_object_object_add(t, s->protected_dirs[i], json_object_new_string(cover));
}

/* The box's own rows beyond the seal's: its mounts and user namespace. */
static void host_config(json_object *h, const struct cp_box_spec *s)
{
    json_object *t = NULL;
    json_object_object_get_ex(h, "Tmpfs", &t);
    tmpfs(t, s);
    json_object_object_add(h, "Mounts", mounts(s));
    if (s->userns != NULL)
        json_object_object_add(h, "UsernsMode", json_object_new_string(s->userns));
}

/* git in a box seen through the layer makes no automatic maintenance: a gc there would pack
 * the folder's objects again into a pack the gate must check and land, and its pruning of loose
 * objects never lands (nothing under objects/ is deleted here), so each such commit would cost
 * a whole repack for nothing. This computer's git keeps its own maintenance. Nor does it flush
 * what it writes (core.fsync=none): the layer is not where the work is kept, the gate's landing
 * is, and it flushes its copy here before a ref moves. git's default flushes each pack it
 * writes (a fetch's, a clone's) and its index to the disk, which the landing then writes again;
 * unflushed, a layer removed after its landing may never write it at all. A commit's loose
 * objects, index and refs git does not flush by default (strace: none). Command-line scope,
 * which the command's own GIT_CONFIG_COUNT replaces. */
static const char *const git_env[] = {
    "GIT_CONFIG_COUNT=3",       "GIT_CONFIG_KEY_0=maintenance.auto",
    "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_KEY_1=gc.auto",
    "GIT_CONFIG_VALUE_1=0",     "GIT_CONFIG_KEY_2=core.fsync",
    "GIT_CONFIG_VALUE_2=none",  NULL,
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

/* A box joining a holder's namespace takes its network as the holder was made: Docker refuses
 * a resolver or net sysctls of its own there. Podman's ns: mode takes a resolver (the sidecar's
 * address, as on the network) and would set the sysctls on the holder's. Docker's embedded
 * resolver still answers at 127.0.0.11 on a user network; its upstream is made one that answers
 * nothing, never a loopback one (dialled from the host before CVE-2024-29018's fix). */
static void network(struct cp_sealed_body_opts *o, const struct cp_box_spec *s)
{
    bool in_holder = s->network != NULL && strncmp(s->network, "container:", 10) == 0;
    bool joins = in_holder || (s->network != NULL && strncmp(s->network, "ns:", 3) == 0);
    o->network = s->network;
    o->no_ipv6 = s->sealed && s->network != NULL && !joins;
    o->resolver = !in_holder ? s->no_dns : NULL;
}

json_object *cp_box_spec_json(const struct cp_box_spec *s)
{
    cleanup_free char *user = xasprintf("%u:%u", s->uid, s->gid);
    struct cp_sealed_body_opts o = {
        .image = s->image,
        .user = user,
        /* An image's entrypoint would wrap the command in something we did not ask for. */
        .entrypoint = (char *[]){NULL},
        .cmd = s->argv,
        .env = environment(s),
        .labels = cp_body_work_labels(s->labels),
        .pids = 512,
        .memory = 4 * GIB,
        .cpus = s->cpus,
        .init = true,
        .tmp = "rw,exec,nosuid,nodev,size=2g,mode=1777",
        .tmpfs_copies_up = s->tmpfs_copies_up,
    };
    network(&o, s);
    json_object *c = cp_sealed_create_body(&o);
    json_object_object_add(c, "WorkingDir", json_object_new_string(s->workdir));
    json_object_object_add(c, "Tty", json_object_new_boolean(0));
    json_object_object_add(c, "OpenStdin", json_object_new_boolean(s->interactive));
    json_object_object_add(c, "StdinOnce", json_object_new_boolean(s->interactive));
    json_object_object_add(c, "AttachStdin", json_object_new_boolean(s->interactive));
    json_object_object_add(c, "AttachStdout", json_object_new_boolean(1));
    json_object_object_add(c, "AttachStderr", json_object_new_boolean(1));
    json_object_object_add(c, "StopTimeout", json_object_new_int(2));
    host_config(cp_sealed_host_config(c), s);
    return c;
}
