/* The address classifier: a listed name must not lead into the proxy's own networks. One table
 * holds IANA's IPv4 and IPv6 special-purpose address registries (RFC 6890 and the RFCs that
 * added rows since), with multicast and the deprecated ranges beside them; an address takes the
 * row of its longest matching prefix. IPv4 carried inside IPv6 (mapped, NAT64, 6to4, Teredo) is
 * judged by the IPv4 it carries, since a resolver can hand one back to reach 127.0.0.1 or
 * 10.0.0.1 through a gateway. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "egress/policy/addr.h"
#include "src/base/util.h"

/* Where a row's addresses carry an IPv4 address, and so which one decides. */
enum carries {
    CARRIES_NOTHING = 0,
    CARRIES_LAST32,      /* the last 32 bits: mapped, compatible, NAT64's well-known /96 */
    CARRIES_NAT64_LOCAL, /* any layout a local-use NAT64 /48 may hold */
    CARRIES_NAT64_OTHER, /* any layout of the rest of 64:ff9b::/32 */
    CARRIES_6TO4,        /* bits 16..47 */
    CARRIES_TEREDO,      /* the server in bits 32..63, the client inverted in the last 32 */
};

struct special {
    int family;
    uint16_t net[8]; /* IPv6: the eight groups; IPv4: the four octets */
    unsigned prefix;
    enum cp_addr_kind kind; /* for a row that carries IPv4: the least it is */
    enum carries carries;
};

#define V4 AF_INET
#define V6 AF_INET6

/* Each row: its RFC, and whether IANA's registry calls it globally reachable ("global: yes").
 * Every row is refused, the globally reachable ones too: each is an anycast service (PCP,
 * TURN, AMT, AS112) whose nearest instance may be a box of the network the proxy sits in, or
 * an identifier rather than an address (ORCHID, DETs); no registry is ever served there. */
static const struct special specials[] = {
    /* IPv4 special-purpose registry */
    {V4, {0}, 8, CP_ADDR_UNSPECIFIED, 0},  /* RFC 791 3.2 "this network"; global: no */
    {V4, {0}, 32, CP_ADDR_UNSPECIFIED, 0}, /* RFC 1122 "this host on this network"; global: no */
    {V4, {10}, 8, CP_ADDR_PRIVATE, 0},     /* RFC 1918 private use; global: no */
    {V4, {100, 64}, 10, CP_ADDR_CGNAT, 0}, /* RFC 6598 shared address space; global: no */
    {V4, {127}, 8, CP_ADDR_LOOPBACK, 0},   /* RFC 1122 loopback; global: no */
    {V4, {169, 254}, 16, CP_ADDR_LINK_LOCAL, 0},      /* RFC 3927 link local, and the cloud metadata
                                                         service 169.254.169.254; global: no */
    {V4, {172, 16}, 12, CP_ADDR_PRIVATE, 0},          /* RFC 1918 private use; global: no */
    {V4, {192, 0, 0, 0}, 24, CP_ADDR_RESERVED, 0},    /* RFC 6890 IETF protocol assignments;
                                                         global: no */
    {V4, {192, 0, 0, 0}, 29, CP_ADDR_RESERVED, 0},    /* RFC 7335 service continuity; global: no */
    {V4, {192, 0, 0, 8}, 32, CP_ADDR_RESERVED, 0},    /* RFC 7600 dummy address; global: no */
    {V4, {192, 0, 0, 9}, 32, CP_ADDR_RESERVED, 0},    /* RFC 7723 PCP anycast; global: yes */
    {V4, {192, 0, 0, 10}, 32, CP_ADDR_RESERVED, 0},   /* RFC 8155 TURN anycast; global: yes */
    {V4, {192, 0, 0, 170}, 32, CP_ADDR_RESERVED, 0},  /* RFC 8880 NAT64 discovery; global: no */
    {V4, {192, 0, 0, 171}, 32, CP_ADDR_RESERVED, 0},  /* RFC 8880 NAT64 discovery; global: no */
    {V4, {192, 0, 2, 0}, 24, CP_ADDR_RESERVED, 0},    /* RFC 5737 documentation; global: no */
    {V4, {192, 31, 196, 0}, 24, CP_ADDR_RESERVED, 0}, /* RFC 7535 AS112-v4; global: yes */
    {V4, {192, 52, 193, 0}, 24, CP_ADDR_RESERVED, 0}, /* RFC 7450 AMT; global: yes */
    {V4, {192, 88, 99, 0}, 24, CP_ADDR_RESERVED, 0},  /* RFC 7526 deprecated 6to4 relay anycast;
                                                         global: n/a */
    {V4, {192, 168}, 16, CP_ADDR_PRIVATE, 0},         /* RFC 1918 private use; global: no */
    {V4, {192, 175, 48, 0}, 24, CP_ADDR_RESERVED, 0}, /* RFC 7534 AS112 delegation; global: yes */
    {V4, {198, 18}, 15, CP_ADDR_RESERVED, 0},         /* RFC 2544 benchmarking; global: no */
    {V4, {198, 51, 100, 0}, 24, CP_ADDR_RESERVED, 0}, /* RFC 5737 documentation; global: no */
    {V4, {203, 0, 113, 0}, 24, CP_ADDR_RESERVED, 0},  /* RFC 5737 documentation; global: no */
    {V4, {240}, 4, CP_ADDR_RESERVED, 0},              /* RFC 1112 reserved; global: no */
    {V4, {255, 255, 255, 255}, 32, CP_ADDR_BROADCAST, 0}, /* RFC 919 limited broadcast;
                                                             global: no */
    /* IPv4 beside the registry */
    {V4, {224}, 4, CP_ADDR_MULTICAST, 0}, /* RFC 5771 multicast */

    /* IPv6 special-purpose registry */
    {V6, {0}, 128, CP_ADDR_UNSPECIFIED, 0},                   /* RFC 4291 unspecified; global: no */
    {V6, {0, 0, 0, 0, 0, 0, 0, 1}, 128, CP_ADDR_LOOPBACK, 0}, /* RFC 4291 loopback; global: no */
    {V6, {0, 0, 0, 0, 0, 0xffff}, 96, CP_ADDR_PUBLIC, CARRIES_LAST32}, /* RFC 4291 IPv4-mapped;
                                                                          global: no */
    {V6, {0x64, 0xff9b}, 96, CP_ADDR_PUBLIC, CARRIES_LAST32},          /* RFC 6052 NAT64 well-known
                                                                          prefix; global: yes */
    {V6, {0x64, 0xff9b, 1}, 48, CP_ADDR_PUBLIC, CARRIES_NAT64_LOCAL},  /* RFC 8215 local-use
                                                                          NAT64; global: no */
    {V6, {0x100}, 64, CP_ADDR_RESERVED, 0},             /* RFC 6666 discard-only; global: no */
    {V6, {0x100, 0, 0, 1}, 64, CP_ADDR_RESERVED, 0},    /* RFC 9780 dummy prefix; global: no */
    {V6, {0x2001}, 23, CP_ADDR_RESERVED, 0},            /* RFC 2928 IETF protocol assignments;
                                                           global: no */
    {V6, {0x2001}, 32, CP_ADDR_PUBLIC, CARRIES_TEREDO}, /* RFC 4380 Teredo; global: n/a */
    {V6, {0x2001, 1, 0, 0, 0, 0, 0, 1}, 128, CP_ADDR_RESERVED, 0}, /* RFC 7723 PCP anycast;
                                                                      global: yes */
    {V6, {0x2001, 1, 0, 0, 0, 0, 0, 2}, 128, CP_ADDR_RESERVED, 0}, /* RFC 8155 TURN anycast;
                                                                      global: yes */
    {V6, {0x2001, 1, 0, 0, 0, 0, 0, 3}, 128, CP_ADDR_RESERVED, 0}, /* RFC 9665 DNS-SD SRP
                                                                      anycast; global: yes */
    {V6, {0x2001, 2, 0}, 48, CP_ADDR_RESERVED, 0},     /* RFC 5180 benchmarking; global: no */
    {V6, {0x2001, 3}, 32, CP_ADDR_RESERVED, 0},        /* RFC 7450 AMT; global: yes */
    {V6, {0x2001, 4, 0x112}, 48, CP_ADDR_RESERVED, 0}, /* RFC 7535 AS112-v6; global: yes */
    {V6, {0x2001, 0x10}, 28, CP_ADDR_RESERVED, 0},     /* RFC 4843 ORCHID, deprecated; global: no */
    {V6, {0x2001, 0x20}, 28, CP_ADDR_RESERVED, 0},     /* RFC 7343 ORCHIDv2; global: yes */
    {V6, {0x2001, 0x30}, 28, CP_ADDR_RESERVED, 0},     /* RFC 9374 drone DETs; global: yes */
    {V6, {0x2001, 0xdb8}, 32, CP_ADDR_RESERVED, 0},    /* RFC 3849 documentation; global: no */
    {V6, {0x2002}, 16, CP_ADDR_PUBLIC, CARRIES_6TO4},  /* RFC 3056 6to4; global: n/a */
    {V6, {0x2620, 0x4f, 0x8000}, 48, CP_ADDR_RESERVED, 0}, /* RFC 7534 AS112 delegation;
                                                              global: yes */
    {V6, {0x3fff}, 20, CP_ADDR_RESERVED, 0},               /* RFC 9637 documentation; global: no */
    {V6, {0x5f00}, 16, CP_ADDR_RESERVED, 0},               /* RFC 9602 SRv6 SIDs; global: no */
    {V6, {0xfc00}, 7, CP_ADDR_PRIVATE, 0},                 /* RFC 4193 unique local; global: no */
    {V6, {0xfe80}, 10, CP_ADDR_LINK_LOCAL, 0},             /* RFC 4291 link-local; global: no */
    /* IPv6 beside the registry */
    {V6, {0}, 96, CP_ADDR_PUBLIC, CARRIES_LAST32}, /* RFC 4291 2.5.5.1 IPv4-compatible,
                                                      deprecated; a stack may still route it */
    {V6, {0x64, 0xff9b}, 32, CP_ADDR_RESERVED, CARRIES_NAT64_OTHER}, /* the rest of RFC 8215's
                                                                        /32: nobody's */
    {V6, {0xfec0}, 10, CP_ADDR_PRIVATE, 0},  /* RFC 3879 site-local, deprecated */
    {V6, {0xff00}, 8, CP_ADDR_MULTICAST, 0}, /* RFC 4291 2.7 multicast */
};

static uint32_t v4_at(const uint8_t *b)
{
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

static bool prefix6(const uint8_t *b, const uint8_t *p, unsigned bits)
{
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(b, p, whole) != 0)
        return false;
    return rest == 0 || ((b[whole] ^ p[whole]) & (0xff << (8 - rest))) == 0;
}

static void row_net(const struct special *s, struct cp_ip *out)
{
    memset(out, 0, sizeof(*out));
    out->family = s->family;
    for (size_t i = 0; i < 8; i++) {
        if (s->family == AF_INET6) {
            out->bytes[2 * i] = (uint8_t)(s->net[i] >> 8);
            out->bytes[2 * i + 1] = (uint8_t)s->net[i];
        } else if (i < 4) {
            out->bytes[i] = (uint8_t)s->net[i];
        }
    }
}

static const struct special *longest_match(const struct cp_ip *ip)
{
    const struct special *best = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(specials); i++) {
        const struct special *s = &specials[i];
        struct cp_ip net;
        if (s->family != ip->family || (best != NULL && s->prefix <= best->prefix))
            continue;
        row_net(s, &net);
        if (prefix6(ip->bytes, net.bytes, s->prefix))
            best = s;
    }
    return best;
}

static enum cp_addr_kind classify4(uint32_t a)
{
    struct cp_ip ip = {
        .family = AF_INET,
        .bytes = {(uint8_t)(a >> 24), (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a}};
    return cp_addr_classify(&ip);
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

/* NAT64 (RFC 6052, RFC 8215). Which layout a gateway uses is its operator's choice, not ours
 * to know, so an address is as bad as the worst IPv4 it carries in any layout its prefix can
 * hold:
 *   64:ff9b::/96 (well-known): the /96 layout only, as RFC 6052 fixes it;
 *   64:ff9b:1::/48 (local use): a gateway may take a /48, /56, /64 or /96 from it;
 *   the rest of 64:ff9b::/32 is assigned to nobody: reserved, or worse if a /32 to /96
 *   layout puts a special IPv4 in it.
 * The price: a gateway on exactly 64:ff9b:1::/96 carries 0.0.0.0 in the /48 layout, so its
 * addresses need --allow-cidr. Most common layout first, so the kind named is the likeliest. */
static enum cp_addr_kind nat64_worst(const uint8_t *b, bool local)
{
    static const unsigned local_layouts[] = {96, 64, 56, 48};
    static const unsigned all_layouts[] = {96, 64, 56, 48, 40, 32};
    const unsigned *layouts = local ? local_layouts : all_layouts;
    size_t n = local ? ARRAY_SIZE(local_layouts) : ARRAY_SIZE(all_layouts);
    enum cp_addr_kind k = CP_ADDR_PUBLIC;
    for (size_t i = 0; i < n; i++)
        k = worst(k, classify4(nat64_v4(b, layouts[i])));
    return k;
}

static enum cp_addr_kind carried(const uint8_t *b, enum carries how)
{
    switch (how) {
    case CARRIES_LAST32:
        return classify4(v4_at(b + 12));
    case CARRIES_NAT64_LOCAL:
        return nat64_worst(b, true);
    case CARRIES_NAT64_OTHER:
        return nat64_worst(b, false);
    case CARRIES_6TO4:
        return classify4(v4_at(b + 2));
    case CARRIES_TEREDO:
        return worst(classify4(v4_at(b + 4)), classify4(~v4_at(b + 12)));
    case CARRIES_NOTHING:
        break;
    }
    return CP_ADDR_PUBLIC;
}

enum cp_addr_kind cp_addr_classify(const struct cp_ip *ip)
{
    if (ip->family != AF_INET && ip->family != AF_INET6)
        return CP_ADDR_RESERVED;
    const struct special *s = longest_match(ip);
    if (s != NULL)
        return worst(carried(ip->bytes, s->carries), s->kind);
    /* Outside the table, IPv4 is public; IPv6 only in 2000::/3, the one block handed out as
     * global unicast: anything else is not ours to dial. */
    return ip->family == AF_INET || (ip->bytes[0] & 0xe0) == 0x20 ? CP_ADDR_PUBLIC
                                                                  : CP_ADDR_RESERVED;
}

bool cp_addr_special_row(size_t i, struct cp_cidr *out)
{
    if (i >= ARRAY_SIZE(specials))
        return false;
    row_net(&specials[i], &out->net);
    out->prefix = specials[i].prefix;
    return true;
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
