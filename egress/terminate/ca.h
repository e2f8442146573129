/* The sidecar's own certificate authority, which signs the certificates it shows a box for
 * each host whose TLS it ends (mint.h). The host side makes one per conch home and hands it to
 * the sidecar with its keys on standard input (keys-message.h), never in its environment, which the
 * engine keeps in the box's config; a box only ever gets the certificate, never the key. */
#ifndef CONCH_EGRESS_CA_H
#define CONCH_EGRESS_CA_H

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "egress/egress.h"
#include "src/base/error.h"

/* The certificate and key of pem, checked to match; both the caller's. */
int cp_egress_ca_load(const char *pem, X509 **cert_out, EVP_PKEY **key_out, cp_error_t *err);

/* OpenSSL's error queue, drained into err with what was being done. */
int cp_egress_ssl_error(cp_error_t *err, const char *doing);

void cp_cleanup_x509(X509 **x);
void cp_cleanup_pkey(EVP_PKEY **k);
#define cleanup_x509 __attribute__((cleanup(cp_cleanup_x509)))
#define cleanup_pkey __attribute__((cleanup(cp_cleanup_pkey)))

/* The extension a certificate gets, by its OpenSSL config text (e.g. "critical,CA:TRUE"),
 * with cert's own issuer for key identifiers. */
int cp_egress_x509_ext(X509 *cert, X509 *issuer, int nid, const char *value, cp_error_t *err);
/* A random positive 128-bit serial. */
int cp_egress_x509_serial(X509 *cert, cp_error_t *err);

#endif
