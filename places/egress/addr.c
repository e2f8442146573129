/* The address classifier: a listed name must not lead into the proxy's own networks. The ranges
 * are those of RFC 6890 that are not globally reachable, plus IPv4 carried inside IPv6, which a
 * resolver can hand back to reach 127.0.0.1 or 10.0.0.1 through a NAT64 or 6to4 gateway. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "places/egress/addr.h"
#include "src/base/util.h"

static uint32_t v4_at(const uint8_t *b)
{
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

static bool in4(uint32_t a, uint32_t net, unsigned prefix)
{
    uint32_t mask = prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
    return (a & mask) == net;
}

static enum cp_addr_kind classify4(uint32_t a)
{
    if (a == 0xffffffffu)
        return CP_ADDR_BROADCAST;
    if (in4(a, 0x00000000, 8))
        return CP_ADDR_UNSPECIFIED; /* "this network"; 0.0.0.0 reaches the local host */
    if (in4(a, 0x7f000000, 8))
        return CP_ADDR_LOOPBACK;
    if (in4(a, 0x0a000000, 8) || in4(a, 0xac100000, 12) || in4(a, 0xc0a80000, 16))
        return CP_ADDR_PRIVATE;
    if (in4(a, 0xa9fe0000, 16))
        return CP_ADDR_LINK_LOCAL; /* also the cloud metadata service, 169.254.169.254 */
    if (in4(a, 0x64400000, 10))
        return CP_ADDR_CGNAT;
    if (in4(a, 0xe0000000, 4))
        return CP_ADDR_MULTICAST;
    if (in4(a, 0xf0000000, 4) || in4(a, 0xc0000000, 24) || in4(a, 0xc0000200, 24) ||
        in4(a, 0xc6120000, 15) || in4(a, 0xc6336400, 24) || in4(a, 0xcb007100, 24))
        return CP_ADDR_RESERVED;
    return CP_ADDR_PUBLIC;
}

static bool prefix6(const uint8_t *b, const uint8_t *p, unsigned bits)
{
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(b, p, whole) != 0)
        return false;
    return rest == 0 || ((b[whole] ^ p[whole]) & (0xff << (8 - rest))) == 0;
}

/* The worst of two kinds: anything special beats public. */
static enum cp_addr_kind worst(enum cp_addr_kind a, enum cp_addr_kind b)
{
    return a != CP_ADDR_PUBLIC ? a : b;
}

/* RFC 6052 2.2: a NAT64 prefix of length L carries the IPv4 address in the 32 bits after it,
 * skipping bits 64..71. */
static uint32_t nat64_v4(const uint8_t *b, unsigned prefix)
{
    uint8_t v[4];
    for (unsigned i = prefix / 8, k = 0; k < 4; i++)
        if (i != 8)
            v[k++] = b[i];
    return v4_at(v);
}

/* The worst IPv4 an address may carry under each layout, most common layout first so the kind
 * named is the likeliest one. */
static enum cp_addr_kind nat64_worst(const uint8_t *b, const unsigned *layouts, size_t n)
{
    enum cp_addr_kind k = CP_ADDR_PUBLIC;
    for (size_t i = 0; i < n; i++)
        k = worst(k, classify4(nat64_v4(b, layouts[i])));
    return k;
}

/* NAT64 (RFC 6052, RFC 8215). Which layout a gateway uses is its operator's choice, not ours
 * to know, so an address is as bad as the worst IPv4 it carries in any layout its prefix can
 * hold:
 *   64:ff9b::/96 (well-known): the /96 layout only, as RFC 6052 fixes it;
 *   64:ff9b:1::/48 (local use): a gateway may take a /48, /56, /64 or /96 from it;
 *   the rest of 64:ff9b::/32 is assigned to nobody: reserved, or worse if a /32 to /96
 *   layout puts a special IPv4 in it.
 * The price: a gateway on exactly 64:ff9b:1::/96 carries 0.0.0.0 in the /48 layout, so its
 * addresses need --allow-cidr. Returns false outside 64:ff9b::/32. */
static bool nat64(const uint8_t *b, enum cp_addr_kind *out)
{
    static const uint8_t wkp[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
    static const unsigned local_layouts[] = {96, 64, 56, 48};
    static const unsigned all_layouts[] = {96, 64, 56, 48, 40, 32};
    if (!prefix6(b, wkp, 32))
        return false;
    if (memcmp(b, wkp, 12) == 0)
        *out = classify4(v4_at(b + 12));
    else if (prefix6(b, local, 48))
        *out = nat64_worst(b, local_layouts, ARRAY_SIZE(local_layouts));
    else
        *out = worst(nat64_worst(b, all_layouts, ARRAY_SIZE(all_layouts)), CP_ADDR_RESERVED);
    return true;
}

/* IPv4 carried in IPv6; returns false when the address carries none. */
static bool embedded4(const uint8_t *b, enum cp_addr_kind *out)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t zero[12] = {0};
    static const uint8_t six_to_four[2] = {0x20, 0x02};
    static const uint8_t teredo[4] = {0x20, 0x01, 0, 0};
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, zero, 12) == 0) {
        *out = classify4(v4_at(b + 12));
        return true;
    }
    if (nat64(b, out))
        return true;
    if (prefix6(b, six_to_four, 16)) {
        *out = classify4(v4_at(b + 2));
        return true;
    }
    if (prefix6(b, teredo, 32)) {
        /* Teredo names its server in bits 32..63 and the client, inverted, in the last 32. */
        *out = worst(classify4(v4_at(b + 4)), classify4(~v4_at(b + 12)));
        return true;
    }
    return false;
}

static enum cp_addr_kind classify6(const uint8_t *b)
{
    static const uint8_t any[16] = {0};
    static const uint8_t one[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint8_t discard[8] = {0x01, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t doc[4] = {0x20, 0x01, 0x0d, 0xb8};
    if (memcmp(b, any, 16) == 0)
        return CP_ADDR_UNSPECIFIED;
    if (memcmp(b, one, 16) == 0)
        return CP_ADDR_LOOPBACK;
    enum cp_addr_kind inner;
    if (embedded4(b, &inner))
        return inner;
    if (b[0] == 0xff)
        return CP_ADDR_MULTICAST;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
        return CP_ADDR_LINK_LOCAL;
    if ((b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0))
        return CP_ADDR_PRIVATE; /* unique local fc00::/7 and the old site-local fec0::/10 */
    if (prefix6(b, discard, 64) || prefix6(b, doc, 32))
        return CP_ADDR_RESERVED;
    /* Only 2000::/3 is handed out as global unicast; anything else is not ours to dial. */
    return (b[0] & 0xe0) == 0x20 ? CP_ADDR_PUBLIC : CP_ADDR_RESERVED;
}

enum cp_addr_kind cp_addr_classify(const struct cp_ip *ip)
{
    if (ip->family == AF_INET)
        return classify4(v4_at(ip->bytes));
    if (ip->family == AF_INET6)
        return classify6(ip->bytes);
    return CP_ADDR_RESERVED;
}

const char *cp_addr_kind_name(enum cp_addr_kind kind)
{
    static const char *const names[] = {
        [CP_ADDR_PUBLIC] = "public",         [CP_ADDR_UNSPECIFIED] = "unspecified",
        [CP_ADDR_LOOPBACK] = "loopback",     [CP_ADDR_PRIVATE] = "private",
        [CP_ADDR_LINK_LOCAL] = "link-local", [CP_ADDR_CGNAT] = "carrier-grade NAT",
        [CP_ADDR_MULTICAST] = "multicast",   [CP_ADDR_BROADCAST] = "broadcast",
        [CP_ADDR_RESERVED] = "reserved",
    };
    return (unsigned)kind < ARRAY_SIZE(names) ? names[kind] : "reserved";
}

int cp_ip_from_sockaddr(const struct sockaddr *sa, struct cp_ip *out)
{
    memset(out, 0, sizeof(*out));
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        out->family = AF_INET;
        memcpy(out->bytes, &in->sin_addr, 4);
        return 0;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        out->family = AF_INET6;
        memcpy(out->bytes, &in6->sin6_addr, 16);
        return 0;
    }
    return -1;
}

int cp_ip_parse(const char *text, struct cp_ip *out)
{
    memset(out, 0, sizeof(*out));
    if (inet_pton(AF_INET, text, out->bytes) == 1) {
        out->family = AF_INET;
        return 0;
    }
    if (inet_pton(AF_INET6, text, out->bytes) == 1) {
        out->family = AF_INET6;
        return 0;
    }
    return -1;
}

void cp_ip_format(const struct cp_ip *ip, char *out, size_t size)
{
    if (inet_ntop(ip->family, ip->bytes, out, (socklen_t)size) == NULL)
        snprintf(out, size, "?");
}

static bool host_bits_zero(const struct cp_cidr *c)
{
    unsigned total = c->net.family == AF_INET ? 32 : 128;
    for (unsigned bit = c->prefix; bit < total; bit++)
        if (c->net.bytes[bit / 8] & (0x80 >> (bit % 8)))
            return false;
    return true;
}

int cp_cidr_parse(const char *text, struct cp_cidr *out, cp_error_t *err)
{
    char addr[INET6_ADDRSTRLEN + 1];
    const char *slash = strchr(text, '/');
    size_t alen = slash ? (size_t)(slash - text) : strlen(text);
    if (alen >= sizeof(addr))
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a CIDR (ADDRESS/PREFIX)", text);
    memcpy(addr, text, alen);
    addr[alen] = '\0';
    if (cp_ip_parse(addr, &out->net) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a CIDR: bad address", text);
    long max = out->net.family == AF_INET ? 32 : 128, prefix = max;
    if (slash != NULL && cp_parse_long(slash + 1, 0, max, &prefix) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a CIDR: prefix must be 0 to %ld",
                             text, max);
    out->prefix = (unsigned)prefix;
    if (!host_bits_zero(out))
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "'%s' has bits set after the prefix; did you mean a network address?",
                             text);
    return 0;
}

bool cp_cidr_contains(const struct cp_cidr *cidr, const struct cp_ip *ip)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (cidr->net.family == AF_INET && ip->family == AF_INET6 && memcmp(ip->bytes, mapped, 12) == 0)
        return prefix6(ip->bytes + 12, cidr->net.bytes, cidr->prefix);
    if (cidr->net.family != ip->family)
        return false;
    return prefix6(ip->bytes, cidr->net.bytes, cidr->prefix);
}
