/* What a read-only host lets through: one commented table of the requests that fetch (a
 * registry's own clients' GETs, and the few POSTs that only ask), every other method or path
 * refused. A write host has no rules; a pass-through host is never read at all. */
#ifndef CONCH_EGRESS_METHODS_H
#define CONCH_EGRESS_METHODS_H

#include <stdbool.h>
#include <stddef.h>

#define CP_EGRESS_BODY_RULE_MAX (1024 * 1024) /* a body a rule reads, read whole */

enum cp_egress_rule_verdict {
    CP_RULE_REFUSE = 0,
    CP_RULE_ALLOW,
    CP_RULE_BODY, /* allowed if cp_egress_methods_body_ok says so, once the body is read */
};

struct cp_egress_rule_result {
    enum cp_egress_rule_verdict verdict;
    int row;         /* the table row that decided, -1 when none matched */
    const char *why; /* a refusal's detail, or the row's reason; static */
};

/* Judges method (as sent) and target (origin-form, with its query) against the table. */
struct cp_egress_rule_result cp_egress_methods_judge(const char *method, const char *target);
/* The path the table matches: target's path without the query, escapes of unreserved
 * characters decoded (an escaped '/' stays as sent: no separator), into out (size bytes). -1
 * when the table refuses the path (an escaped NUL, a malformed escape, a '\', a '.' or '..'
 * segment, escaped separators counted) or it does not fit.
 * Sign-ins (sign-ins-table.h) match their prefixes against the same text, so one decoding rule
 * decides both what a request may do and which credential it carries. */
int cp_egress_methods_path(const char *target, char *out, size_t size);
/* For CP_RULE_BODY: the whole body of the request, at most CP_EGRESS_BODY_RULE_MAX bytes. */
bool cp_egress_methods_body_ok(int row, const char *body, size_t len);

/* The number of rows, and a test's switch to drop one (to prove each row has a test). */
size_t cp_egress_methods_rows(void);
void cp_egress_methods_drop_row(int row); /* -1: none */

#endif
