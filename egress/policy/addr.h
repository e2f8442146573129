/* What kind of address a name resolved to, and the CIDRs that may reach the special kinds. */
#ifndef CONCH_EGRESS_ADDR_H
#define CONCH_EGRESS_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "src/base/error.h"

enum cp_addr_kind {
    CP_ADDR_PUBLIC = 0,
    CP_ADDR_UNSPECIFIED,
    CP_ADDR_LOOPBACK,
    CP_ADDR_PRIVATE,
    CP_ADDR_LINK_LOCAL,
    CP_ADDR_CGNAT,
    CP_ADDR_MULTICAST,
    CP_ADDR_BROADCAST,
    CP_ADDR_RESERVED, /* documentation, benchmarking, class E, discard-only, unknown family */
};

/* An address of either family, in network byte order. */
struct cp_ip {
    int family; /* AF_INET or AF_INET6 */
    uint8_t bytes[16];
};

struct cp_cidr {
    struct cp_ip net;
    unsigned prefix;
};

/* Classifies an address by the row of IANA's special-purpose registries its longest prefix
 * matches (public when none does); IPv4 wrapped in IPv6 (mapped, compatible, NAT64, 6to4,
 * Teredo) is classified as the IPv4 it carries, since that is where the packets may end up. */
enum cp_addr_kind cp_addr_classify(const struct cp_ip *ip);
/* Row i of that table, for the tests that hold one case per row; false past the last. */
bool cp_addr_special_row(size_t i, struct cp_cidr *out);
const char *cp_addr_kind_name(enum cp_addr_kind kind);

/* Converts a resolver's answer; -1 for a family we do not dial. */
int cp_ip_from_sockaddr(const struct sockaddr *sa, struct cp_ip *out);
/* Parses a strict numeric IPv4 or IPv6 address (inet_pton, so no "127.1" or "0x7f.1"). */
int cp_ip_parse(const char *text, struct cp_ip *out);
void cp_ip_format(const struct cp_ip *ip, char *out, size_t size);

/* "10.0.0.0/8", "::1/128"; a bare address is a full-length prefix. Host bits must be zero. */
int cp_cidr_parse(const char *text, struct cp_cidr *out, cp_error_t *err);
/* A mapped IPv6 address (::ffff:a.b.c.d) also matches an IPv4 CIDR that holds a.b.c.d. */
bool cp_cidr_contains(const struct cp_cidr *cidr, const struct cp_ip *ip);

#endif
