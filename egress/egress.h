/* The egress sidecar's contract with the container place, which starts it and reads it back:
 * the names of the environment it takes, the boxes' proxy credential, its certificate
 * authority, the decision log's records and the refusal reasons in them, and the two messages
 * it is given on its sign-in channel (the keys, and the sign-ins, whose encoder and decoder are
 * both here); and, for `conch-place egress-proxy`, the sidecar's process. This is the container
 * place's only way into egress/; what lies behind it (the allow-list, the proxy's loop, the
 * terminated tunnels, the sign-in channel) is the sidecar's own and may change without the
 * place knowing. */
#ifndef CONCH_EGRESS_H
#define CONCH_EGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "src/base/error.h"
#include "src/base/strvec.h"

/* ---- the environment ---- */

/* The secret a proxy run by hand derives boxes' credentials from (policy/box-credential.h). */
#define CP_EGRESS_SECRET_ENV "CONCH_EGRESS_SECRET"

/* The environment variable a proxy run by hand takes its CA from: the PEM below, cert then key
 * (the sidecar conch-place starts refuses it: sign-ins/keys-message.h). */
#define CP_EGRESS_CA_ENV "CONCH_EGRESS_CA"

/* Extra roots as PEM text, taken from the environment (copied and unset) at start. */
#define CP_EGRESS_TRUST_ENV "CONCH_EGRESS_TRUST"

/* ---- a box's proxy credential (the scheme: policy/box-credential.h) ---- */

#define CP_EGRESS_TOKEN_CHARS 64

/* The token for a box under a secret: 64 hex digits and a NUL into out. */
int cp_egress_box_token(const char *secret, const char *box, char out[CP_EGRESS_TOKEN_CHARS + 1],
                        cp_error_t *err);

/* ---- the certificate authority (terminate/ca.c) ---- */

/* A CA of conch-place's own: the certificate (PEM) followed by its private key (PEM), in one
 * string. EC P-256, CN "conch-place egress CA <random hex>", 10 years, basicConstraints
 * critical CA:TRUE pathlen:0, keyUsage critical keyCertSign,cRLSign. *pem_out is the
 * caller's; free it with cp_free_secret (it holds the key). */
int cp_egress_ca_generate(char **pem_out, cp_error_t *err);
/* The certificate part only, PEM; fails if pem holds no cert+key pair that match. */
int cp_egress_ca_cert_pem(const char *pem, char **cert_out, cp_error_t *err);
/* SHA-256 of the certificate's DER, 64 lower-case hex digits and a NUL. */
int cp_egress_ca_fingerprint(const char *pem, char hex_out[65], cp_error_t *err);

/* ---- the decision log (policy/elog.h) and its refusal reasons (policy/verdict.c) ---- */

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

/* The decision object on one log line that may carry a prefix (a timestamp, or the engine's
 * frame header, some bytes of which can be '{'), or NULL; the caller's. */
json_object *cp_egress_log_object(const char *line, size_t len);

/* ---- the keys message (sign-ins/keys-message.h) ---- */

#define CP_EGRESS_KEYS_ANSWER "keys"

struct cp_egress_keys {
    char *secret;      /* at least CP_EGRESS_SECRET_MIN bytes */
    char *ca_pem;      /* the certificate, then its key */
    char *https_proxy; /* NULL: none */
    char *no_proxy;    /* NULL: none */
};

/* Wipes and frees every value. */
void cp_egress_keys_dispose(struct cp_egress_keys *k);

/* The message for k and id (hex), one line ending in '\n'; the caller's (cp_free_secret). */
char *cp_egress_keys_message(const struct cp_egress_keys *k, const char *id);

/* ---- the sign-ins message (sign-ins-codec.c) ---- */

/* Sign-ins the sidecar adds to a box's reading requests: the person's credentials for private
 * registries and git remotes, which the box must never hold. conch-place writes them to the
 * sidecar's standard input (sign-ins/sign-ins-feed.h) as one JSON document a line:
 *
 *   {"sign_ins":[{"host":"npm.corp.example","prefix":"/npm/",
 *                 "authorization":"Bearer abc","source":"~/.npmrc"}]}
 *
 * host is a lower-case name compared exactly with the tunnel's CONNECT host; prefix begins
 * with '/' and is compared with the request's path as the method table reads it
 * (cp_egress_methods_path: query cut, unreserved escapes decoded, tricks refused); a prefix
 * ending in '/' takes every path under it, another one that path and those under it as a
 * folder ("/a" takes "/a" and "/a/b", not "/ab"). authorization is the whole Authorization
 * value ("Bearer TOKEN" or "Basic BASE64"); source names where it came from (a file, or "git
 * credential (helper)") and is never secret. Each message replaces the whole table.
 *
 * A sign-in the person named (`sign-ins add HOST`) has three more keys: "header" (the header's
 * name, e.g. "X-Api-Key"), "placeholder" (the per-run value the box holds in its
 * CONCH_SIGNIN_<NAME>: letters, digits, '-' and '_') and "write" (a boolean: every method carries
 * it, not only fetching ones). Its authorization is then the header's whole value, of any
 * scheme. The named header of a request to that host and prefix is replaced by ours (added when
 * absent); the placeholder anywhere else in a request, to any host, refuses the request
 * (cp_egress_sign_ins_misplaced, cp_egress_sign_ins_find_placeholder).
 *
 * The authorization value is a secret: it appears in no error message or log line, and every
 * copy the encoder, the decoder or json-c makes of it is wiped. */
#define CP_EGRESS_SIGN_INS_MESSAGE_MAX    (1024 * 1024) /* one line, without its newline */
#define CP_EGRESS_SIGN_INS_MAX            256           /* entries in one message */
#define CP_EGRESS_SIGN_IN_HOST_MAX        253
#define CP_EGRESS_SIGN_IN_PREFIX_MAX      1024
#define CP_EGRESS_SIGN_IN_AUTH_MAX        8192
#define CP_EGRESS_SIGN_IN_SOURCE_MAX      512
#define CP_EGRESS_SIGN_IN_HEADER_MAX      64
#define CP_EGRESS_SIGN_IN_PLACEHOLDER_MIN 16
#define CP_EGRESS_SIGN_IN_PLACEHOLDER_MAX 128

struct cp_egress_sign_in {
    char *host, *prefix, *authorization, *source;
    char *header;      /* a named sign-in's header; NULL: Authorization (a registry's) */
    char *placeholder; /* a named sign-in's per-run placeholder, or NULL */
    bool write;        /* a named sign-in every method carries */
};

#define CP_EGRESS_SIGN_INS_ID_MAX 64

/* The message for v[0..n), one line ending in '\n'; id (hex, or NULL for none) comes back in
 * the sidecar's answer. The caller's: it holds the secrets, so free it with cp_free_secret. */
char *cp_egress_sign_ins_message(const struct cp_egress_sign_in *v, size_t n, const char *id);

/* A message read back: its entries (each value the message's own) and its id, "" when none. */
struct cp_egress_sign_ins_message {
    struct cp_egress_sign_in *v;
    size_t n;
    char id[CP_EGRESS_SIGN_INS_ID_MAX + 1];
};

/* Reads and validates one message (data[0..len), no newline). Any bad field refuses the whole
 * message; the error names the entry and the field, never a value. *out is the caller's
 * (cp_egress_sign_ins_message_dispose), and empty on failure. */
int cp_egress_sign_ins_decode(const char *data, size_t len, struct cp_egress_sign_ins_message *out,
                              cp_error_t *err);
/* Wipes every authorization and frees every value. */
void cp_egress_sign_ins_message_dispose(struct cp_egress_sign_ins_message *m);

/* ---- the sidecar's process (sidecar-main.c) ---- */

/* `conch-place egress-proxy`'s options, as the person or the container place gave them: strings
 * as typed (NULL when absent; the numbers are checked here), repeated options in their order,
 * flags. The command owns the strings. */
struct cp_egress_sidecar_options {
    const char *listen, *log, *dns_server, *ca_cert_out;
    const char *max_connections, *head_timeout, *idle_timeout, *exit_idle, *keys_wait;
    struct cp_strvec allow, allow_write, allow_pass, allow_file, allow_cidr, resolve, trust;
    bool allow_all, sign_ins_stdin, send_sign_ins, keys_stdin;
};

/* Sets the process up (limits, keys, TLS, the log, signals) and serves until SIGINT or SIGTERM,
 * or the exit-idle time; with send_sign_ins, hands standard input's message to this network
 * namespace's sidecar instead. 0, or a negative code with err set. */
int cp_egress_sidecar_run(const struct cp_egress_sidecar_options *o, cp_error_t *err);

#endif
