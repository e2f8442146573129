/* The request head a box sends the proxy, parsed with explicit lengths and refused at the first
 * byte that is not what a well-behaved HTTP/1.1 client sends for CONNECT host:443. */
#ifndef CONCH_EGRESS_CONNECT_REQUEST_H
#define CONCH_EGRESS_CONNECT_REQUEST_H

#include <stddef.h>

#include "egress/policy/verdict.h"

#define CP_EGRESS_HEAD_MAX    8192 /* request line and headers together */
#define CP_EGRESS_HEADERS_MAX 64
#define CP_EGRESS_TARGET_MAX  300 /* a 253-byte name, ":", a port, and room to see it is long */

struct cp_egress_request {
    /* The request-target as sent, non-printable bytes as '?', cut at CP_EGRESS_TARGET_MAX:
     * safe to put in a log line or a body. Empty until a request line was read. */
    char target[CP_EGRESS_TARGET_MAX + 1];
    /* The host, lower-cased, without a trailing dot; set only when the target was a name. */
    char host[256];
    unsigned port;
    char auth[512];  /* the Proxy-Authorization value, "" when absent */
    size_t head_len; /* bytes of the head, final CRLF included */
};

/* Reads a head from data[0..len). Returns 1 when more bytes are needed, or 0 with *reason
 * set: CP_EGRESS_ALLOWED only means the request is well formed and aimed at a name on 443
 * (the allow-list, the credential and the addresses are checked by the caller). Bytes past
 * the head give CP_EGRESS_EARLY_DATA: nothing may ride along before the tunnel exists. */
int cp_egress_parse_head(const char *data, size_t len, struct cp_egress_request *out,
                         enum cp_egress_reason *reason);

#endif
