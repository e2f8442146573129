/* Why the proxy said yes or no, and the HTTP answer each reason gives (RFC 9209 Proxy-Status). */
#ifndef CONCH_EGRESS_VERDICT_H
#define CONCH_EGRESS_VERDICT_H

#include <stddef.h>

enum cp_egress_reason {
    CP_EGRESS_ALLOWED = 0,
    CP_EGRESS_MALFORMED,       /* not HTTP/1.x as the RFC writes it */
    CP_EGRESS_HEAD_TOO_BIG,    /* past the head size or header count */
    CP_EGRESS_NOT_CONNECT,     /* any method but CONNECT: plain HTTP is never proxied */
    CP_EGRESS_ABSOLUTE_FORM,   /* "GET http://host/": plain HTTP through a proxy */
    CP_EGRESS_IP_LITERAL,      /* the list names hosts, so an address is never listed */
    CP_EGRESS_PORT,            /* anything but exactly "443" */
    CP_EGRESS_BAD_HOST,        /* not a letter-digit-hyphen name */
    CP_EGRESS_BODY,            /* Content-Length or Transfer-Encoding on a CONNECT */
    CP_EGRESS_EARLY_DATA,      /* bytes after the head before the 200, in any packet */
    CP_EGRESS_NOT_LISTED,      /* a good name that is not on the allow-list */
    CP_EGRESS_SPECIAL_ADDRESS, /* a listed name resolving into a network we do not reach */
    CP_EGRESS_AUTH,            /* no or wrong per-box credential */
    CP_EGRESS_DNS,             /* the name did not resolve */
    CP_EGRESS_UNREACHABLE,     /* no address accepted the connection */
    CP_EGRESS_HEAD_TIMEOUT,    /* the head did not arrive in time */
    CP_EGRESS_DIAL_TIMEOUT,    /* resolving and connecting took too long */
    CP_EGRESS_BUSY,            /* the connection limit is reached */
    CP_EGRESS_NOT_TLS,         /* the tunnel's first bytes are not a TLS ClientHello */
    CP_EGRESS_NO_SNI,          /* a ClientHello that names no server */
    CP_EGRESS_SNI_MISMATCH,    /* a ClientHello naming another server than the CONNECT host */
    CP_EGRESS_ECH,             /* an encrypted ClientHello, whose real server name is hidden */
    CP_EGRESS_HELLO_TOO_BIG,   /* no whole ClientHello within the bound */
    CP_EGRESS_HELLO_TIMEOUT,   /* no whole ClientHello in time */
    CP_EGRESS_UPSTREAM,        /* the upstream proxy did not open the tunnel */
    /* Inside a terminated tunnel (terminate.h): one decision a request. */
    CP_EGRESS_METHOD,            /* a method or path a read-only host does not take (methods.h) */
    CP_EGRESS_REQUEST,           /* a request head that could be read two ways (smuggling shapes) */
    CP_EGRESS_HIDDEN_REQUEST,    /* a body a host could take for a request of its own (CL.0) */
    CP_EGRESS_HOST_HEADER,       /* a Host header naming another host than the CONNECT */
    CP_EGRESS_UPSTREAM_CERT,     /* the real host's certificate did not verify */
    CP_EGRESS_UPSTREAM_TLS,      /* the TLS handshake with the real host failed otherwise */
    CP_EGRESS_UPSTREAM_HTTP,     /* the real host's answer could not be framed */
    CP_EGRESS_CLIENT_TLS,        /* the box's handshake with the sidecar failed (its CA?) */
    CP_EGRESS_SIGN_IN_REFUSED,   /* the host answered 401 or 403 to a request we signed in */
    CP_EGRESS_SIGN_IN_UNCHECKED, /* a compressed answer from a host with sign-ins (scrub.h) */
    CP_EGRESS_PLACEHOLDER,       /* a named sign-in's placeholder where it is not replaced */
    /* The sign-in channel (sign-ins-feed.h): no host, no box; never answered to anyone. */
    CP_EGRESS_SIGN_INS,       /* a sign-in message refused whole; the table before it stays */
    CP_EGRESS_SIGN_INS_TAKEN, /* a sign-in message took the place of the table */
    CP_EGRESS_REASON_COUNT,
};

struct cp_egress_reason_info {
    int status;
    const char *status_text;
    const char *proxy_status_error; /* an RFC 9209 error type */
    const char *slug;               /* the log's "reason" field */
    const char *sentence;           /* for the body and Proxy-Status details */
};

const struct cp_egress_reason_info *cp_egress_reason_info(enum cp_egress_reason reason);

/* Finds a reason by its log slug; -1 when unknown. */
int cp_egress_reason_from_slug(const char *slug);

/* Writes the whole refusal (status line, Proxy-Status, Connection: close, body naming the
 * target and the allow-list) into out; never more than size bytes, the list cut with "..."
 * when it does not fit. Returns the length written. host_port is printable ASCII already. */
size_t cp_egress_response(enum cp_egress_reason reason, const char *host_port,
                          const char *const *allowed, size_t nallowed, char *out, size_t size);

#endif
