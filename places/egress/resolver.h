/* Name lookups off the event loop: getaddrinfo blocks, so a few threads (never one per
 * connection) run it and hand answers back through an eventfd the loop polls. The lookup
 * function is injectable, so tests answer from a table instead of the network. */
#ifndef CONCH_EGRESS_RESOLVER_H
#define CONCH_EGRESS_RESOLVER_H

#include <stddef.h>

#include "places/egress/addr.h"
#include "places/egress/policy.h"
#include "src/base/error.h"

struct cp_egress_answer {
    int ok; /* 1 when the name resolved to at least one address */
    size_t n;
    struct cp_ip addrs[CP_EGRESS_ADDRS_MAX];
};

/* Runs on a worker thread: must touch nothing but its arguments and ctx (read only). */
typedef void (*cp_egress_resolve_fn)(void *ctx, const char *host, struct cp_egress_answer *out);

/* getaddrinfo, TCP, both families; pinned names (ctx is a const struct cp_egress_policy *,
 * or NULL) answered from the policy without a lookup. */
void cp_egress_resolve_default(void *ctx, const char *host, struct cp_egress_answer *out);

struct cp_egress_resolver;
struct cp_egress_job;

int cp_egress_resolver_new(cp_egress_resolve_fn fn, void *ctx, unsigned threads,
                           struct cp_egress_resolver **out, cp_error_t *err);
/* Readable when answers are waiting. */
int cp_egress_resolver_fd(const struct cp_egress_resolver *r);
/* Queues a lookup; tag comes back with the answer. The job stays the resolver's. */
struct cp_egress_job *cp_egress_resolver_submit(struct cp_egress_resolver *r, const char *host,
                                                void *tag);
/* The tag's owner is gone: its answer is dropped when it arrives. Event-loop thread only. */
void cp_egress_resolver_cancel(struct cp_egress_job *job);
/* Takes one finished lookup: 1 with *tag and *out set, 0 when none is ready; call it until it
 * returns 0 each time the fd is readable (one wake-up may stand for many). Cancelled jobs
 * are skipped. Event-loop thread only. */
int cp_egress_resolver_take(struct cp_egress_resolver *r, void **tag, struct cp_egress_answer *out);
/* Stops and joins the threads (a lookup in progress is waited for). */
void cp_egress_resolver_free(struct cp_egress_resolver *r);

#endif
