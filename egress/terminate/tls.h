/* The two TLS ends of a terminated tunnel: the server a box talks to (a minted certificate,
 * mint.h) and the client that talks to the real host (verified against this computer's roots
 * and the operator's). Built once at start, shared read-only by every worker. */
#ifndef CONCH_EGRESS_TLS_H
#define CONCH_EGRESS_TLS_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#include "egress/egress.h"
#include "src/base/error.h"

struct cp_egress_tls;

struct cp_egress_tls_options {
    const char *ca_pem;             /* the egress CA, cert then key (ca.h) */
    const char *const *trust_files; /* --trust: PEM bundles */
    size_t ntrust;
    const char *trust_pem; /* CONCH_EGRESS_TRUST's text, or NULL */
};

int cp_egress_tls_new(const struct cp_egress_tls_options *o, struct cp_egress_tls **out,
                      cp_error_t *err);
void cp_egress_tls_free(struct cp_egress_tls *t);

/* A server end for host (its certificate minted or found) over fd, which first yields the
 * prefix bytes the proxy already read (the ClientHello). The caller's. */
int cp_egress_tls_server(struct cp_egress_tls *t, const char *host, int fd, const uint8_t *prefix,
                         size_t prefix_len, SSL **out, cp_error_t *err);
/* A client end to host over fd: SNI host, ALPN http/1.1, the chain and the name verified. */
int cp_egress_tls_client(struct cp_egress_tls *t, const char *host, int fd, SSL **out,
                         cp_error_t *err);

#endif
