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
/* For CP_RULE_BODY: the whole body of the request, at most CP_EGRESS_BODY_RULE_MAX bytes. */
bool cp_egress_methods_body_ok(int row, const char *body, size_t len);

/* The number of rows, and a test's switch to drop one (to prove each row has a test). */
size_t cp_egress_methods_rows(void);
void cp_egress_methods_drop_row(int row); /* -1: none */

#endif
