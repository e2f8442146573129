/* The sign-in table the sidecar signs a box's reading requests from: made from one sign-ins
 * message (egress.h, whose comment tells what each key means), which replaces the whole table;
 * shared by reference with the requests that use it; matched against a request's host and
 * path; and the head a request goes out with.
 *
 * The authorization value is a secret: it is wiped where this file can reach it (the table's
 * copies, the parser's buffers) and appears in no error message or log line. */
#ifndef CONCH_EGRESS_SIGN_INS_TABLE_H
#define CONCH_EGRESS_SIGN_INS_TABLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "egress/egress.h"
#include "src/base/error.h"

/* A table: immutable once parsed, shared by reference (see the holder below). */
struct cp_egress_sign_ins;

/* The table of one message (data[0..len), no newline; cp_egress_sign_ins_decode). *out is the
 * caller's reference (cp_egress_sign_ins_unref). */
int cp_egress_sign_ins_parse(const char *data, size_t len, struct cp_egress_sign_ins **out,
                             cp_error_t *err);

size_t cp_egress_sign_ins_count(const struct cp_egress_sign_ins *t);
/* The message's "id" (hex), or "" when it had none. */
const char *cp_egress_sign_ins_id(const struct cp_egress_sign_ins *t);
struct cp_egress_sign_ins *cp_egress_sign_ins_ref(struct cp_egress_sign_ins *t);
/* Drops a reference; the last one wipes every value and frees the table. NULL is fine. */
void cp_egress_sign_ins_unref(struct cp_egress_sign_ins *t);

/* The entry for a request to host (lower-case) with this request-target (origin-form, query
 * and all): host equal, the longest matching prefix; NULL when none, or when the path is one
 * the method table refuses or that holds a path parameter (";"). Borrowed from t. */
const struct cp_egress_sign_in *cp_egress_sign_ins_match(const struct cp_egress_sign_ins *t,
                                                         const char *host, const char *target);

/* Whether the table has a sign-in for host (any prefix): every answer from that host is then
 * scrubbed of them all (scrub.h), since a host may echo one request's headers in another's. */
bool cp_egress_sign_ins_host_listed(const struct cp_egress_sign_ins *t, const char *host);
/* Adds the forms of every sign-in for host to s. */
struct cp_scrub;
void cp_egress_sign_ins_scrub_host(const struct cp_egress_sign_ins *t, const char *host,
                                   struct cp_scrub *s);

/* Whether a request may carry a sign-in: only one the read table allows, on a read or a write
 * host alike (sign-ins are for fetching; an upload never carries the person's credential).
 * body: the request's whole body when the table's row reads it (an LFS batch), else NULL. */
bool cp_egress_sign_ins_may_carry(const char *method, const char *target, const char *body,
                                  size_t len);

/* Whether a request that may_carry says (reading or not) carries s: a reading one always, any
 * other only a named sign-in added with --write. */
bool cp_egress_sign_ins_carries(const struct cp_egress_sign_in *s, bool reading);

/* A named sign-in whose placeholder the head at head[0..len) holds where it would not be
 * replaced: in the request line (path or query), in another header than signing's named one,
 * or at all when signing (the sign-in the request carries, or NULL) is not that sign-in. NULL
 * when none. Compared without regard to case. Borrowed from t. */
const struct cp_egress_sign_in *
cp_egress_sign_ins_misplaced(const struct cp_egress_sign_ins *t, const char *head, size_t len,
                             const struct cp_egress_sign_in *signing);
/* A named sign-in whose placeholder data[0..len) holds (a body, which is never rewritten), or
 * NULL. */
const struct cp_egress_sign_in *
cp_egress_sign_ins_find_placeholder(const struct cp_egress_sign_ins *t, const char *data,
                                    size_t len);
/* Whether the table holds any placeholder (a body need not be searched otherwise). */
bool cp_egress_sign_ins_has_placeholders(const struct cp_egress_sign_ins *t);

/* The head at head[0..len) (one cp_http1_parse_request allowed) with every line of the sign-in's
 * header (Authorization, or a named sign-in's own) the box wrote taken out and ours put in
 * before the final empty line. Heap, the caller's: it holds the secret, so free it with
 * cp_egress_sign_ins_head_free. */
char *cp_egress_sign_ins_head(const struct cp_egress_sign_in *s, const char *head, size_t len,
                              size_t *len_out);
void cp_egress_sign_ins_head_free(char *head, size_t len);

/* Where the current table lives. A table is swapped in whole and workers take a reference
 * per request: the mutex guards only the pointer and the count's increment (a lone atomic
 * pointer could be freed between a worker's load and its increment), so the loop never waits
 * on a request, a worker never reads a freed table, and a table is wiped when its last
 * request is done with it. */
struct cp_egress_sign_ins_holder {
    pthread_mutex_t lock;
    struct cp_egress_sign_ins *table; /* NULL: none */
};

void cp_egress_sign_ins_holder_init(struct cp_egress_sign_ins_holder *h);
void cp_egress_sign_ins_holder_dispose(struct cp_egress_sign_ins_holder *h);
/* Puts t (the caller's reference, given up; NULL clears) in place of the current table. */
void cp_egress_sign_ins_holder_set(struct cp_egress_sign_ins_holder *h,
                                   struct cp_egress_sign_ins *t);
/* A reference to the current table, or NULL; cp_egress_sign_ins_unref when done. */
struct cp_egress_sign_ins *cp_egress_sign_ins_holder_get(struct cp_egress_sign_ins_holder *h);

#endif
