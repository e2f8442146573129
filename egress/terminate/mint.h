/* The certificates the sidecar shows a box: one per CONNECT host, signed by the egress CA
 * (ca.h), all for one P-256 key made at start (a key per host would buy nothing: the box
 * trusts the CA, not the key). Minted on first need and kept, so a host already seen costs a
 * look-up, not a signature. Shared by every worker thread. */
#ifndef CONCH_EGRESS_MINT_H
#define CONCH_EGRESS_MINT_H

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdbool.h>
#include <time.h>

#include "src/base/error.h"

#define CP_EGRESS_MINT_CACHE_MAX 4096
#define CP_EGRESS_MINT_DAYS      7
#define CP_EGRESS_MINT_RENEW_S   86400 /* re-minted when less than this is left */

struct cp_egress_minter;

/* From the CA's PEM (cert then key; ca.h). */
int cp_egress_minter_new(const char *ca_pem, struct cp_egress_minter **out, cp_error_t *err);
void cp_egress_minter_free(struct cp_egress_minter *m);

/* The certificate for host (a valid name, lower-case); *cert_out is the caller's reference
 * (X509_free). *minted says whether it was made now rather than found. */
int cp_egress_mint(struct cp_egress_minter *m, const char *host, X509 **cert_out, bool *minted,
                   cp_error_t *err);
/* The key of every minted certificate; borrowed. */
EVP_PKEY *cp_egress_minter_key(const struct cp_egress_minter *m);
/* The CA's certificate; borrowed. */
X509 *cp_egress_minter_ca(const struct cp_egress_minter *m);

#endif
