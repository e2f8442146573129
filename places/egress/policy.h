/* The allow-list the proxy enforces: host patterns, the CIDRs listed names may reach although
 * they are not public, and names pinned to addresses instead of being looked up. */
#ifndef CONCH_EGRESS_POLICY_H
#define CONCH_EGRESS_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "places/egress/addr.h"
#include "places/egress/verdict.h"
#include "src/base/error.h"

#define CP_EGRESS_ADDRS_MAX 16

struct cp_egress_pin {
    char *host;
    struct cp_ip ip;
};

struct cp_egress_policy {
    char **patterns; /* lower-cased; exact names or "*.suffix" */
    size_t npatterns;
    struct cp_cidr *cidrs;
    size_t ncidrs;
    struct cp_egress_pin *pins;
    size_t npins;
    bool any_public; /* --allow-all: every name is listed; its addresses are still checked */
};

int cp_egress_policy_add_host(struct cp_egress_policy *p, const char *pattern, cp_error_t *err);
/* One pattern a line; '#' starts a comment; blank lines skipped; errors say file:line:. */
int cp_egress_policy_add_file(struct cp_egress_policy *p, const char *path, cp_error_t *err);
int cp_egress_policy_add_cidr(struct cp_egress_policy *p, const char *cidr, cp_error_t *err);
/* "HOST=ADDRESS": HOST is answered with ADDRESS without a lookup. The address is checked like
 * any other, so a pin does not by itself open a private network. */
int cp_egress_policy_add_pin(struct cp_egress_policy *p, const char *spec, cp_error_t *err);

bool cp_egress_policy_listed(const struct cp_egress_policy *p, const char *host);
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
