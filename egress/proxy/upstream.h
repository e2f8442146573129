/* An upstream proxy: where a company network lets HTTPS out only through its own proxy, the
 * sidecar reaches allowed hosts with CONNECT through it. The allow-list is still the proxy's to
 * apply; the upstream proxy's own address may be private (it is the operator's, not the box's
 * choice); its credential reaches the sidecar with its keys (keys-message.h) and stays in its
 * memory, never in its environment, argv, a log or the box. */
#ifndef CONCH_EGRESS_UPSTREAM_H
#define CONCH_EGRESS_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "src/base/error.h"
#include "src/base/strvec.h"

#define CP_EGRESS_UPSTREAM_ANSWER_MAX 8192

struct cp_egress_upstream {
    char host[256]; /* a name or an address (no brackets) */
    unsigned port;
    char *auth;                /* the Proxy-Authorization value, NULL without a credential */
    struct cp_strvec no_proxy; /* lower-cased names; each also covers its subdomains */
    bool no_proxy_all;         /* NO_PROXY=* */
};

/* "http://[USER[:PASSWORD]@]HOST[:PORT][/]" (the scheme may be left out; the port defaults to
 * 80; USER and PASSWORD are percent-decoded) and NO_PROXY's comma-separated names. Messages
 * never repeat the URL, which may hold the password. */
int cp_egress_upstream_parse(const char *url, const char *no_proxy, struct cp_egress_upstream *out,
                             cp_error_t *err);
/* From https_proxy or HTTPS_PROXY and no_proxy or NO_PROXY (lower case first, as curl reads
 * them). Returns 0 with out->host "" when none is set. */
int cp_egress_upstream_from_env(struct cp_egress_upstream *out, cp_error_t *err);
/* Whether a CONNECT to host:443 goes through the upstream (NO_PROXY does not name it). */
bool cp_egress_upstream_applies(const struct cp_egress_upstream *u, const char *host);
/* The CONNECT head for host:443, credential included. Returns its length; 0 if it does not
 * fit. */
size_t cp_egress_upstream_request(const struct cp_egress_upstream *u, const char *host, char *out,
                                  size_t size);
/* Reads the upstream's answer head from data[0..len): 1 when more bytes are needed, 0 with
 * *status and *head_len set, -1 when it is not an HTTP/1.x answer. */
int cp_egress_upstream_answer(const char *data, size_t len, int *status, size_t *head_len);
void cp_egress_upstream_dispose(struct cp_egress_upstream *u);

#endif
