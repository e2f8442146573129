/* A tunnel whose TLS the sidecar ends: once the proxy's loop has checked the ClientHello's
 * name, the connection leaves the loop for a thread of its own, which answers the box's TLS
 * with a minted certificate, opens its own TLS to the host (verified), and carries HTTP/1.1
 * between them one request and one response at a time per direction, each request judged by
 * the host's mode (policy.h: methods.h's table for a read host, nothing for a write host) and
 * logged as a decision line of its own. A reading request to a host the person signed in to
 * goes out with the sidecar's Authorization in place of the box's (sign-ins-table.h). */
#ifndef CONCH_EGRESS_TERMINATE_H
#define CONCH_EGRESS_TERMINATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "egress/policy/policy.h"
#include "egress/sign-ins/sign-ins.h"
#include "egress/terminate/tls.h"
#include "src/base/error.h"

struct cp_egress_terminate_config {
    struct cp_egress_tls *tls;
    FILE *log;
    unsigned head_timeout_ms; /* each handshake, and a request head once its first byte came */
    unsigned idle_timeout_ms; /* no byte either way */
    struct cp_egress_sign_ins_holder *sign_ins; /* read per request; NULL: no sign-ins */
};

/* What the loop hands over. The fds and the hello are the worker's from the call on, whatever
 * it returns. */
struct cp_egress_handoff {
    int client_fd, upstream_fd;
    uint8_t *hello; /* the bytes read so far from the box: the ClientHello and any after it */
    size_t hello_len;
    enum cp_egress_mode mode; /* read or write */
    char host[CP_EGRESS_TARGET_MAX + 1];
    unsigned port;
    char box[CP_EGRESS_BOX_MAX + 1];
    char addr[64]; /* the address dialled, for the log */
    char via[300]; /* the upstream proxy's host:port, or "" */
};

/* Starts the worker (a detached thread). On failure the fds are closed and the hello freed. */
int cp_egress_terminate_start(const struct cp_egress_terminate_config *cfg,
                              struct cp_egress_handoff *h, cp_error_t *err);

/* Workers running now; they count against the connection limit and keep the proxy from
 * exiting idle. */
unsigned cp_egress_terminate_active(void);

#endif
