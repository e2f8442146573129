/* The proxy's decision log: one JSON object a line, which conch-place reads back after a
 * sealed command failed, to name the hosts the sidecar refused for that box.
 *
 * {"time":"2025-01-31T12:00:00Z","box":"b1","host":"evil.example","port":443,
 *  "verdict":"refused","reason":"not-listed","status":403,"addr":"203.0.113.9"}
 *
 * verdict is "allowed" (a tunnel opened), "refused" (the proxy said no: the allow-list, the
 * port, the method, the address, the credential or the request's form) or "failed" (the
 * host was allowed but did not resolve or answer). host is the normalised name, or the
 * request-target as sent (non-printable bytes as '?') when it held no name; box is "" when the
 * request named none; addr is present only when one was chosen. sni is the server name a
 * refused ClientHello gave (printable), via the upstream proxy (host:port, no credential) a
 * tunnel went through; each present only when there is one. For an sni-mismatch the refusal
 * hint names the sni: that is the host the box was after.
 *
 * Inside a tunnel the sidecar ends (terminate.h) every request is a line of its own, with
 * "method" and "path" (the request-target as sent, non-printable bytes as '?', cut at 200
 * characters), e.g. {..."verdict":"refused","reason":"method","status":403,"method":"PUT",
 * "path":"/pkg"}. Lines are written whole from several threads (one locked write each).
 *
 * Sign-ins (sign-ins-table.h): an allowed request that carried one adds "signed_in":true and
 * "source" (the file or helper it came from); a 401 or 403 from the host to such a request is
 * a line of its own, verdict "failed", reason "sign-in-refused", with the host's "status",
 * method, path and source. The channel's messages have lines with no box and host "": reason
 * "sign-ins-taken" (verdict "allowed", "sign_ins": the count) or "sign-ins" (verdict
 * "refused", "detail": which entry and field, never a value). No line ever holds a
 * credential. */
#ifndef CONCH_EGRESS_ELOG_H
#define CONCH_EGRESS_ELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <json-c/json.h>

#include "egress/egress.h"
#include "egress/policy/verdict.h"
#include "src/base/error.h"

struct cp_egress_decision {
    time_t time;
    const char *box;
    const char *host;
    unsigned port;
    enum cp_egress_reason reason;
    const char *addr;   /* NULL when none */
    const char *sni;    /* NULL when none */
    const char *via;    /* NULL when none */
    const char *method; /* a request inside a terminated tunnel; NULL for the tunnel's own */
    const char *path;   /* its request-target; NULL when method is */
    int status;         /* 0: the reason's; else the host's (a refused sign-in's 401 or 403) */
    bool signed_in;     /* the request carried a sign-in the sidecar added */
    const char *source; /* where that sign-in came from (never the credential); or NULL */
    const char *header; /* a named sign-in's header name (never its value); or NULL */
    const char *detail; /* a refused sign-in message's fault (no content); or NULL */
    size_t sign_ins;    /* CP_EGRESS_SIGN_INS_TAKEN: the entries of the new table */
};

#define CP_EGRESS_LOG_PATH_MAX 200

/* A refusal for one box, read back from the log. */
struct cp_egress_log_refusal {
    char *host;
    char *method; /* NULL for a refusal of the tunnel itself */
    char *path;   /* NULL when method is */
    char *reason; /* the log's slug */
};

const char *cp_egress_verdict_name(enum cp_egress_reason reason);

/* Writes one line and flushes it, so a reader sees every decision made so far. */
int cp_egress_log_write(FILE *f, const struct cp_egress_decision *d, cp_error_t *err);

/* The distinct hosts refused for box, in the order first refused, from log text (e.g. the
 * sidecar's standard error as the engine's log API hands it back, or a file's contents).
 * Lines that are not decision lines are skipped. *hosts_out is a NULL-terminated vector, the
 * caller's (cp_strv_free), empty when nothing was refused. */
int cp_egress_log_refused_text(const char *text, size_t len, const char *box, char ***hosts_out,
                               cp_error_t *err);
/* The same from a log file (at most its last 16 MiB are read). */
int cp_egress_log_refused(const char *path, const char *box, char ***hosts_out, cp_error_t *err);

/* The distinct refusals for box, in the order first met: each "refused" line, and each
 * "failed" one whose reason is upstream-cert (the sidecar's own verification said no), as
 * host, method, path and reason. *out is the caller's (cp_egress_log_refusals_free); NULL with
 * *n 0 when nothing was refused. */
int cp_egress_log_refusals_text(const char *text, size_t len, const char *box,
                                struct cp_egress_log_refusal **out, size_t *n, cp_error_t *err);
void cp_egress_log_refusals_free(struct cp_egress_log_refusal *r, size_t n);

#endif
