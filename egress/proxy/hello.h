/* The first bytes of a tunnel: a TLS ClientHello whose server name is the CONNECT host.
 *
 * Without this check a tunnel to a listed host carries anything: a ClientHello naming another
 * site behind the same CDN (domain fronting), plain HTTP with another Host, a second CONNECT.
 * The hello may come in several records and several packets; the caller keeps the raw bytes
 * (at most CP_TLS_HELLO_MAX) and asks again after each read. */
#ifndef CONCH_EGRESS_HELLO_H
#define CONCH_EGRESS_HELLO_H

#include <stddef.h>
#include <stdint.h>

#include "egress/policy/policy.h"

/* Raw bytes (record headers included) the proxy holds while the hello is incomplete. Real
 * hellos are 200 to 2,000 bytes (post-quantum key shares included); one full record fits. */
#define CP_TLS_HELLO_MAX (16384 + 5 + 1024)

/* Judges data[0..len) against host (lower-case, no trailing dot, as the request parser gives
 * it). Returns 1 when more bytes are needed, or 0 with *reason set:
 *   CP_EGRESS_ALLOWED       a well-formed ClientHello naming exactly host;
 *   CP_EGRESS_SNI_MISMATCH  its server name is another (copied, printable, into sni);
 *   CP_EGRESS_NO_SNI        it names no server;
 *   CP_EGRESS_ECH           it hides the real name in an encrypted ClientHello;
 *   CP_EGRESS_NOT_TLS       anything else: not TLS, not a ClientHello, malformed;
 *   CP_EGRESS_HELLO_TOO_BIG len reached CP_TLS_HELLO_MAX without a whole hello.
 * sni gets "" when no name was read. */
int cp_tls_hello_check(const uint8_t *data, size_t len, const char *host,
                       enum cp_egress_reason *reason, char *sni, size_t sni_size);

/* Judges one whole handshake message msg[0..len), its 4-byte header included, as above:
 * CP_EGRESS_NOT_TLS when it is not a ClientHello or its lengths disagree. For the hellos that
 * follow the first on a tunnel (watch.h). */
enum cp_egress_reason cp_tls_client_hello_judge(const uint8_t *msg, size_t len, const char *host,
                                                char *sni, size_t sni_size);

#endif
