/* Probe boxes on a sealed network: the sidecar must answer them, this computer must not. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/seal/egress-image.h"
#include "places/container/seal/seal-probe.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define TARGETS_MAX 200
#define BRIDGE_NAME "com.docker.network.bridge.name"

/* The seal's body (create-body.c) on the folder's sealed network, nobody's uid, owner labels so
 * that a crash's probe box is swept like any leftover box; kept after it exits, for its status. */
static json_object *probe_body(const struct cp_engine *e, const char *image, const char *network,
                               char *const *args)
{
    cleanup_strv char **owner = cp_box_owner_labels();
    struct cp_sealed_body_opts o = {
        .image = image,
        .entrypoint = (char *[]){"/conch-place", "seal-probe", NULL},
        .cmd = args,
        .user = "65534:65534",
        .labels = cp_body_work_labels(owner),
        .pids = 16,
        .memory = 64LL * 1024 * 1024,
        .cpus = 1,
        .network = network,
        .no_ipv6 = true,
        .tmpfs_copies_up = e->quirks.tmpfs_copies_up,
    };
    return cp_sealed_create_body(&o);
}

static int probe_box(struct cp_engine *e, const char *image, const char *network, char *const *args,
                     int *status_out, cp_error_t *err)
{
    cleanup_json json_object *body = probe_body(e, image, network, args);
    cleanup_free char *name = cp_box_name(), *id = NULL;
    if (cp_box_create(e, body, name, &id, err) < 0)
        return cp_error_wrap(err, "making a probe box on %s", network);
    int r = cp_box_start(e, id, err);
    if (r == 0)
        r = cp_box_wait(e, id, status_out, err);
    cleanup_error cp_error_t rm = NULL;
    if (cp_box_remove(e, id, &rm) < 0)
        cp_debug("%s", rm->msg);
    return r < 0 ? cp_error_wrap(err, "running a probe box on %s", network) : 0;
}

/* Makes, runs and removes one probe box; *status_out is seal-probe's exit status. A Ctrl-C
 * waits the few seconds the probe lasts at most, so that no probe box outlives the run; the
 * signal then ends the run as it would have (nothing of the command has started). */
static int probe_run(struct cp_engine *e, const char *image, const char *network, char *const *args,
                     int *status_out, cp_error_t *err)
{
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    int r = probe_box(e, image, network, args, status_out, err);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return r;
}

/* The bridge the network's boxes hang on: libpod names it; Docker's is br- and the id's first
 * twelve digits unless the network names its own. NULL when the engine does not say. */
static char *bridge_of(struct cp_engine *e, const char *network)
{
    cleanup_error cp_error_t err = NULL;
    cleanup_json json_object *net = NULL;
    bool libpod = e->quirks.libpod_routes;
    cleanup_free char *path =
        xasprintf(libpod ? "/libpod/networks/%s/json" : "/networks/%s", network);
    long status = 0;
    int r = libpod ? cp_engine_libpod_call(e, "GET", path, NULL, &status, &net, &err)
                   : cp_engine_call_status(e, "GET", path, NULL, &status, &net, &err);
    if (r < 0 || status != 200)
        return NULL;
    if (libpod) {
        const char *br = cp_json_str(net, "network_interface");
        return br ? xstrdup(br) : NULL;
    }
    json_object *options = NULL;
    json_object_object_get_ex(net, "Options", &options);
    const char *named = cp_json_str(options, BRIDGE_NAME), *id = cp_json_str(net, "Id");
    if (named != NULL)
        return xstrdup(named);
    return id != NULL && strlen(id) >= 12 ? xasprintf("br-%.12s", id) : NULL;
}

/* The rule that lets the network's own traffic through; for Podman also the one for all of its
 * bridges (their names end in a number). */
static char *firewall_step(struct cp_engine *e, const char *network)
{
    cleanup_free char *br = bridge_of(e, network);
    if (br == NULL)
        return xasprintf("Let traffic between boxes on the network %s through this computer's "
                         "firewall, or run with --unsealed.",
                         network);
    size_t stem = strlen(br);
    while (stem > 0 && br[stem - 1] >= '0' && br[stem - 1] <= '9')
        stem--;
    cleanup_free char *all = e->quirks.numbered_bridges && stem > 0
                                 ? xasprintf(" (or, for every Podman bridge: -i %.*s+ -o %.*s+)",
                                             (int)stem, br, (int)stem, br)
                                 : xstrdup("");
    return xasprintf("Let the bridge's own traffic through, as root: iptables -I DOCKER-USER "
                     "-i %s -o %s -j ACCEPT%s. Or run with --unsealed.",
                     br, br, all);
}

int cp_seal_probe_sidecar(struct cp_engine *e, const char *image, const char *network,
                          const char *ip, cp_error_t *err)
{
    cleanup_free char *target = xasprintf("%s:%d", ip, CP_SIDECAR_PORT);
    char *args[] = {"--must", target, NULL};
    int status = -1;
    if (probe_run(e, image, network, args, &status, err) < 0)
        return cp_error_code(err);
    if (status == 0)
        return 0;
    cp_error_make(err, CP_ERR_UNREACHABLE, 0,
                  "a box on the internal network %s cannot reach its egress sidecar at %s: "
                  "this computer's firewall drops traffic across the network's bridge (Docker "
                  "sets the FORWARD policy to DROP, which also reaches other engines' bridges)",
                  network, target);
    cleanup_free char *step = firewall_step(e, network);
    cp_error_hint(err, "%s", step);
    return cp_error_code(err);
}

/* ---- doctor: this computer's addresses, tried from a probe box ---- */

struct listeners {
    int fd[2]; /* 0.0.0.0 and :: on one port */
    int port;
};

static void listeners_close(struct listeners *l)
{
    for (int i = 0; i < 2; i++)
        if (l->fd[i] >= 0)
            close(l->fd[i]);
}

static int listen_on(int family, int port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_storage ss = {0};
    socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (family == AF_INET) {
        ((struct sockaddr_in *)&ss)->sin_family = AF_INET;
        ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
    } else {
        ((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
        ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
        if (fd >= 0)
            (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, SOMAXCONN) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* One free port on every IPv4 and (where this computer has IPv6) every IPv6 address. */
static int listeners_open(struct listeners *l, cp_error_t *err)
{
    for (int tries = 0; tries < 8; tries++) {
        l->fd[0] = listen_on(AF_INET, 0);
        struct sockaddr_in sin;
        socklen_t len = sizeof(sin);
        if (l->fd[0] < 0 || getsockname(l->fd[0], (struct sockaddr *)&sin, &len) < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot listen on 0.0.0.0");
        l->port = ntohs(sin.sin_port);
        l->fd[1] = listen_on(AF_INET6, l->port);
        if (l->fd[1] >= 0 || errno == EAFNOSUPPORT)
            return 0;
        close(l->fd[0]);
        l->fd[0] = -1;
    }
    return cp_error_make(err, CP_ERR_FAILED, errno, "cannot listen on :: and 0.0.0.0 at once");
}

/* "ADDR:PORT" for each address of this computer but loopback (which in a box is the box's
 * own); a link-local IPv6 address is tried through the box's own interface. */
static size_t host_targets(int port, char **out, size_t max)
{
    struct ifaddrs *ifa = NULL;
    size_t n = 0;
    if (getifaddrs(&ifa) < 0)
        return 0;
    for (struct ifaddrs *i = ifa; i != NULL && n < max; i = i->ifa_next) {
        char a[INET6_ADDRSTRLEN];
        int fam = i->ifa_addr ? i->ifa_addr->sa_family : AF_UNSPEC;
        if (fam == AF_INET) {
            struct in_addr *in = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            if ((ntohl(in->s_addr) >> 24) != 127 && inet_ntop(AF_INET, in, a, sizeof(a)))
                out[n++] = xasprintf("%s:%d", a, port);
        } else if (fam == AF_INET6) {
            struct in6_addr *in6 = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
            if (!IN6_IS_ADDR_LOOPBACK(in6) && inet_ntop(AF_INET6, in6, a, sizeof(a)))
                out[n++] =
                    xasprintf("[%s%s]:%d", a, IN6_IS_ADDR_LINKLOCAL(in6) ? "%eth0" : "", port);
        }
    }
    freeifaddrs(ifa);
    /* Rootless networking's own ways to this computer: slirp4netns forwards its 10.0.2.2 (and
     * its resolver 10.0.2.3) to this computer's loopback, where the listeners hear them. */
    static const char *const slirp[] = {"10.0.2.2", "10.0.2.3"};
    for (size_t i = 0; i < ARRAY_SIZE(slirp) && n < max; i++)
        out[n++] = xasprintf("%s:%d", slirp[i], port);
    return n;
}

/* The addresses of this computer that connections arrived at, ", "-joined; NULL when none. */
static char *arrivals(const struct listeners *l)
{
    cleanup_free char *seen = NULL;
    for (int i = 0; i < 2; i++) {
        int c;
        while (l->fd[i] >= 0 && (c = accept4(l->fd[i], NULL, NULL, SOCK_CLOEXEC)) >= 0) {
            struct sockaddr_storage ss;
            socklen_t len = sizeof(ss);
            char a[INET6_ADDRSTRLEN] = "?";
            if (getsockname(c, (struct sockaddr *)&ss, &len) == 0)
                inet_ntop(ss.ss_family,
                          ss.ss_family == AF_INET
                              ? (void *)&((struct sockaddr_in *)&ss)->sin_addr
                              : (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr,
                          a, sizeof(a));
            close(c);
            char *more = xasprintf("%s%s%s", seen ? seen : "", seen ? ", " : "", a);
            free(seen);
            seen = more;
        }
    }
    return steal_pointer(&seen);
}

static void report(const char *what, const char *failure, const char *step, int *failures)
{
    if (failure == NULL) {
        printf("seal: %s: ok\n", what);
        return;
    }
    (*failures)++;
    printf("seal: %s: FAILED: %s\n  next: %s\n", what, failure, step);
}

static int doctor_probe(struct cp_engine *e, const struct cp_sidecar *s, const char *image,
                        struct listeners *l, int *failures, cp_error_t *err)
{
    char *targets[TARGETS_MAX] = {0};
    size_t n = host_targets(l->port, targets, TARGETS_MAX);
    cleanup_free char *must = xasprintf("%s:%d", s->ip, CP_SIDECAR_PORT);
    char **args = xcalloc(2 * n + 3, sizeof(char *));
    args[0] = "--must";
    args[1] = must;
    for (size_t i = 0; i < n; i++) {
        args[2 + 2 * i] = "--try";
        args[3 + 2 * i] = targets[i];
    }
    int status = -1;
    int r = probe_run(e, image, s->name, args, &status, err);
    free(args);
    for (size_t i = 0; i < n; i++)
        free(targets[i]);
    if (r < 0)
        return cp_error_code(err);
    cleanup_free char *step = firewall_step(e, s->name), *reached = arrivals(l);
    report("a box on the folder's internal network reaches the egress sidecar",
           status == 0 ? NULL : "the connection was dropped or refused", step, failures);
    cleanup_free char *what =
        xasprintf("no address of this computer answers a sealed box (%zu tried)", n);
    cleanup_free char *failure =
        reached ? xasprintf("a sealed box reached this computer at %s", reached) : NULL;
    report(what, failure,
           "Run 'conch-place clean' so that the network is made again, with no address of this "
           "computer on it (Docker 20.10 or later, or Podman with CNI); until then run only "
           "trusted commands, or none, sealed.",
           failures);
    return 0;
}

int cp_seal_doctor(struct cp_engine *e, const struct cp_sidecar *s, int *failures_out,
                   cp_error_t *err)
{
    *failures_out = 0;
    printf("seal: network %s: internal, this folder's own, no address of this computer on it, "
           "no IPv6 in its boxes: ok\n",
           s->name);
    cleanup_free char *image = NULL;
    struct listeners l = {.fd = {-1, -1}};
    if (cp_egress_image_ensure(e, &image, err) < 0 || listeners_open(&l, err) < 0) {
        listeners_close(&l);
        return cp_error_wrap(err, "the seal's probes");
    }
    int r = doctor_probe(e, s, image, &l, failures_out, err);
    listeners_close(&l);
    return r < 0 ? cp_error_wrap(err, "the seal's probes") : 0;
}
