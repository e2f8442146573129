/* The answers the sidecar writes inside a tunnel it ends, in place of the host's: a refusal of
 * one request (403 for a method a read-only host does not take, 400 for an ambiguous head, 403
 * for another Host) or a 502 when the host itself could not be trusted. Each names conch-place,
 * the host, the method and the path, and the way on; plain text (git shows it as "remote:"
 * lines), or {"error": "..."} for a client that reads JSON (npm). Always Connection: close. */
#ifndef CONCH_EGRESS_ANSWER_H
#define CONCH_EGRESS_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "egress/policy/policy.h"

#define CP_EGRESS_ANSWER_MAX 4096

struct cp_egress_answer_about {
    const char *host;
    const char *method; /* may be NULL when no request was read */
    const char *path;
    const char *detail; /* why, in a few words; may be NULL */
    bool json;
};

/* Writes the whole response into out (at most size bytes); returns its length. */
size_t cp_egress_answer_write(enum cp_egress_reason reason, const struct cp_egress_answer_about *a,
                              char *out, size_t size);

/* Whether a request asks for JSON: an Accept naming json, or a User-Agent starting "npm/". */
bool cp_egress_answer_wants_json(const char *head, size_t len);

#endif
