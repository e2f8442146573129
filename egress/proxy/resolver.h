/* Name lookups on the event loop, with c-ares: no lookup blocks anything, so a name whose DNS
 * never answers costs its own connection a time-out and nobody else a wait (a pool of
 * blocking getaddrinfo threads let eight such names hold every thread while an unrelated
 * pinned CONNECT waited 3.6 s). c-ares is Debian's libc-ares2, a few hundred KiB that the
 * sidecar image takes with the binary's other libraries; getaddrinfo_a would be threads again.
 * Pinned names are answered at once, with no lookup. */
#ifndef CONCH_EGRESS_RESOLVER_H
#define CONCH_EGRESS_RESOLVER_H

#include <stddef.h>

#include "egress/policy/policy.h"
#include "src/base/error.h"

struct cp_egress_answer {
    int ok; /* 1 when the name resolved to at least one address */
    size_t n;
    struct cp_ip addrs[CP_EGRESS_ADDRS_MAX];
};

struct cp_egress_resolver;
struct cp_egress_job;

/* policy (may be NULL) answers pinned names; servers ("ADDR[:PORT],...", NULL for
 * /etc/resolv.conf's) is where to ask. */
int cp_egress_resolver_new(const struct cp_egress_policy *policy, const char *servers,
                           struct cp_egress_resolver **out, cp_error_t *err);
/* Readable when a lookup's socket is: then call cp_egress_resolver_take. */
int cp_egress_resolver_fd(const struct cp_egress_resolver *r);
/* Starts a lookup. Returns 1 with *out set when the answer is known at once (a pinned name, a
 * name of /etc/hosts, a failure), else 0 with *job set: the answer comes back, with tag,
 * through cp_egress_resolver_take. The job stays the resolver's. */
int cp_egress_resolver_submit(struct cp_egress_resolver *r, const char *host, void *tag,
                              struct cp_egress_answer *out, struct cp_egress_job **job);
/* The tag's owner is gone: its answer is dropped when it arrives. */
void cp_egress_resolver_cancel(struct cp_egress_job *job);
/* Reads what the lookup sockets hold, expires lookups past their time, then takes one finished
 * lookup: 1 with *tag and *out set, 0 when none is ready. Call it until it returns 0 when the
 * fd is readable, and now and then for the time-outs. */
int cp_egress_resolver_take(struct cp_egress_resolver *r, void **tag, struct cp_egress_answer *out);
/* Ends every lookup (their answers are dropped) and frees the resolver. */
void cp_egress_resolver_free(struct cp_egress_resolver *r);

#endif
