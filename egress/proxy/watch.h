/* The rest of a blind tunnel's handshake, after its first ClientHello passed (hello.h).
 *
 * A TLS 1.3 server that answers with a HelloRetryRequest reads a second ClientHello, which
 * may name another server than the first: an upstream OpenSSL served the second name
 * (issue 20). So until the server's real ServerHello (one that is not a HelloRetryRequest)
 * has gone by, every handshake message the client sends must be a ClientHello for the
 * CONNECT host. The server's records are read too, because only its ServerHello says when
 * that is over: the client's records alone cannot tell TLS 1.3's second ClientHello (a
 * handshake record after a change_cipher_spec) from TLS 1.2's encrypted Finished (the same).
 * After the ServerHello, the client's handshake messages are ClientKeyExchange and the like
 * (TLS 1.2) or encrypted (TLS 1.3), and a server takes no other hello on that connection:
 * the watch ends and the tunnel splices again. A TLS 1.2 renegotiation's hello is encrypted
 * and out of any blind tunnel's sight; that is what ending TLS at the sidecar is for.
 *
 * Pure functions over the bytes each side sends, fed in the order the proxy reads them,
 * before it passes them on. */
#ifndef CONCH_EGRESS_WATCH_H
#define CONCH_EGRESS_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "egress/policy/policy.h"

/* Where one direction's record stream is: inside a header, or in a body. */
struct cp_tls_framing {
    uint8_t head[5];
    size_t head_len;  /* 5 while in a body */
    size_t body_left; /* of the record whose header is head */
};

struct cp_tls_watch {
    struct cp_tls_framing client, server;
    uint8_t *hs; /* the client's handshake bytes of a message not yet whole; NULL when none */
    size_t hs_len;
    uint8_t msg[38]; /* the start of the server's current handshake message */
    size_t msg_len, msg_skip;
    unsigned retries;              /* HelloRetryRequests seen */
    enum cp_egress_reason refused; /* CP_EGRESS_ALLOWED until the client's bytes are refused */
    bool done;                     /* the server's ServerHello went by: nothing more to watch */
    bool lost; /* the server's stream is not TLS as we know it: watched to the end */
};

/* Bytes the client sent (the first hello's included), before they go on. Returns
 * CP_EGRESS_ALLOWED to pass them, or the reason to close the tunnel instead (the reasons of
 * cp_tls_hello_check; sni then holds the refused name, or ""). Once refused, always refused. */
enum cp_egress_reason cp_tls_watch_client(struct cp_tls_watch *w, const uint8_t *data, size_t len,
                                          const char *host, char *sni, size_t sni_size);

/* Bytes the server sent, before they go on. */
void cp_tls_watch_server(struct cp_tls_watch *w, const uint8_t *data, size_t len);

/* True once the watch has nothing more to check: then the tunnel is a plain one. */
bool cp_tls_watch_done(const struct cp_tls_watch *w);

void cp_tls_watch_dispose(struct cp_tls_watch *w);

#endif
