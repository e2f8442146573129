/* Why the proxy said yes or no, and the HTTP answer each reason gives (RFC 9209 Proxy-Status). */
#ifndef CONCH_EGRESS_VERDICT_H
#define CONCH_EGRESS_VERDICT_H

#include <stddef.h>

#include "egress/egress.h"

/* Writes the whole refusal (status line, Proxy-Status, Connection: close, body naming the
 * target and the allow-list) into out; never more than size bytes, the list cut with "..."
 * when it does not fit. Returns the length written. host_port is printable ASCII already. */
size_t cp_egress_response(enum cp_egress_reason reason, const char *host_port,
                          const char *const *allowed, size_t nallowed, char *out, size_t size);

#endif
