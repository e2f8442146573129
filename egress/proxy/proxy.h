/* The egress proxy's event loop: CONNECT host:443 for listed names, then a ClientHello for
 * that same name, and every later one until the server's ServerHello (watch.h), one epoll
 * loop and one thread (lookups too, see resolver.h). Knows nothing of the engine. */
#ifndef CONCH_EGRESS_PROXY_H
#define CONCH_EGRESS_PROXY_H

#include <signal.h>
#include <stdio.h>

#include "egress/policy/policy.h"
#include "egress/proxy/resolver.h"
#include "egress/sign-ins/sign-ins.h"
#include "egress/terminate/terminate.h"
#include "egress/proxy/upstream.h"
#include "src/base/error.h"

struct cp_egress_proxy_config {
    const struct cp_egress_policy *policy;
    const char *secret;       /* NULL: the per-box credential is optional (see box-credential.h) */
    FILE *log;                /* one JSON line per decision (elog.h) */
    unsigned max_conns;       /* client connections, in any stage */
    unsigned head_timeout_ms; /* from accept to a whole head, and from the 200 to a whole
                                 ClientHello; not reset by trickled bytes */
    unsigned dial_timeout_ms; /* from the head to a connected upstream */
    unsigned idle_timeout_ms; /* a tunnel with no byte either way */
    unsigned exit_idle_ms;    /* exit 0 after this long with no connection; 0: never */
    const char *dns_servers;  /* NULL: /etc/resolv.conf's */
    const struct cp_egress_upstream *upstream; /* NULL or host "": dial directly */
    volatile sig_atomic_t *stop; /* set (by a signal handler) to end the loop; may be NULL */
    /* The TLS ends of read and write hosts' tunnels (terminate.h); NULL: every tunnel is
     * blind, as a pass-through host's. */
    struct cp_egress_tls *tls;
    /* Sign-ins added to reading requests in those tunnels (sign-ins-table.h); NULL: none. When
     * sign_ins_fd is not -1 the loop reads messages from it that replace the table
     * (sign-ins-feed.h). */
    struct cp_egress_sign_ins_holder *sign_ins;
    int sign_ins_fd;
};

/* Fills in the defaults for every field left zero. */
void cp_egress_proxy_defaults(struct cp_egress_proxy_config *cfg);

/* Binds and listens on "ADDR:PORT" or "[V6ADDR]:PORT". */
int cp_egress_listen(const char *addr_port, int *fd_out, cp_error_t *err);

/* Serves on listen_fd (left open) until *stop is set or the exit-idle time passes. */
int cp_egress_proxy_run(int listen_fd, const struct cp_egress_proxy_config *cfg, cp_error_t *err);

#endif
