/* The allow-list the proxy enforces: host patterns, the CIDRs listed names may reach although
 * they are not public, and names pinned to addresses instead of being looked up. */
#ifndef CONCH_EGRESS_POLICY_H
#define CONCH_EGRESS_POLICY_H

#include <stdbool.h>
#include <stddef.h>

/* The rest of this folder's interface, which other parts of egress/ reach through this header
 * alone: addresses, the box's credential, the CONNECT head and HTTP/1.1 parsers, the method
 * table, the reasons' answers and the decision log. */
#include "egress/policy/addr.h"
#include "egress/policy/box-credential.h"
#include "egress/policy/connect-request.h"
#include "egress/policy/elog.h"
#include "egress/policy/http1.h"
#include "egress/policy/methods.h"
#include "egress/policy/verdict.h"
#include "src/base/error.h"
#include "src/base/strvec.h"

#define CP_EGRESS_ADDRS_MAX 16

/* What a listed host may do. A read host's tunnel is ended at the sidecar and only fetching
 * requests pass (methods.h); a write host's is ended too, every method passing; a pass-through
 * host keeps a blind tunnel, checked only on its TLS server name (hello.h, watch.h), for
 * clients that pin certificates. */
enum cp_egress_mode {
    CP_EGRESS_MODE_READ = 0,
    CP_EGRESS_MODE_WRITE,
    CP_EGRESS_MODE_PASS,
};

struct cp_egress_pin {
    char *host;
    struct cp_ip ip;
};

struct cp_egress_policy {
    struct cp_strvec patterns;  /* lower-cased; exact names or "*.suffix" */
    enum cp_egress_mode *modes; /* one per pattern */
    struct cp_cidr *cidrs;
    size_t ncidrs;
    struct cp_egress_pin *pins;
    size_t npins;
    bool any_public; /* --allow-all: every name is listed; its addresses are still checked */
};

/* A read host (--allow). */
int cp_egress_policy_add_host(struct cp_egress_policy *p, const char *pattern, cp_error_t *err);
/* A write host (--allow-write) and a pass-through host (--allow-pass). */
int cp_egress_policy_add_write(struct cp_egress_policy *p, const char *pattern, cp_error_t *err);
int cp_egress_policy_add_pass(struct cp_egress_policy *p, const char *pattern, cp_error_t *err);
int cp_egress_policy_add_mode(struct cp_egress_policy *p, const char *pattern,
                              enum cp_egress_mode mode, cp_error_t *err);
/* One "PATTERN [write|pass-through]" a line; '#' starts a comment; blank lines skipped;
 * errors say file:line:. */
int cp_egress_policy_add_file(struct cp_egress_policy *p, const char *path, cp_error_t *err);
int cp_egress_policy_add_cidr(struct cp_egress_policy *p, const char *cidr, cp_error_t *err);
/* "HOST=ADDRESS": HOST is answered with ADDRESS without a lookup. The address is checked like
 * any other, so a pin does not by itself open a private network. */
int cp_egress_policy_add_pin(struct cp_egress_policy *p, const char *spec, cp_error_t *err);

bool cp_egress_policy_listed(const struct cp_egress_policy *p, const char *host);
/* The mode of a listed host: of the patterns that match it the most specific decides (an
 * exact name over any wildcard, a longer suffix over a shorter), and of equally specific ones
 * the most open (write, then pass-through, then read: a host listed twice was meant to be
 * used the second way). A name only --allow-all lets in is read. */
enum cp_egress_mode cp_egress_policy_mode(const struct cp_egress_policy *p, const char *host);
const char *cp_egress_mode_name(enum cp_egress_mode mode);
const struct cp_ip *cp_egress_policy_pinned(const struct cp_egress_policy *p, const char *host);

/* CP_EGRESS_ALLOWED when every address may be dialled, else CP_EGRESS_SPECIAL_ADDRESS with
 * *bad set to the first that may not: one bad answer refuses the name, since which address a
 * client ends up on is not its choice. */
enum cp_egress_reason cp_egress_policy_check_addrs(const struct cp_egress_policy *p,
                                                   const struct cp_ip *addrs, size_t n,
                                                   size_t *bad);

void cp_egress_policy_dispose(struct cp_egress_policy *p);
#define cleanup_egress_policy __attribute__((cleanup(cp_egress_policy_dispose)))

#endif
