/* Unit tests for the address classifier, CIDRs and the allow-list (abuse cases 71, 83). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "egress/policy/addr.h"
#include "egress/policy/policy.h"

static enum cp_addr_kind kind_of(const char *text)
{
    struct cp_ip ip;
    if (cp_ip_parse(text, &ip) < 0)
        fail_msg("'%s' did not parse", text);
    return cp_addr_classify(&ip);
}

static void expect_kind(const char *text, enum cp_addr_kind want)
{
    enum cp_addr_kind got = kind_of(text);
    if (got != want)
        fail_msg("%s: got %s, want %s", text, cp_addr_kind_name(got), cp_addr_kind_name(want));
}

static void test_egress_addr__public_addresses__public(void **state)
{
    expect_kind("140.82.112.6", CP_ADDR_PUBLIC);
    expect_kind("8.8.8.8", CP_ADDR_PUBLIC);
    expect_kind("2606:50c0:8000::153", CP_ADDR_PUBLIC);
    expect_kind("::ffff:140.82.112.6", CP_ADDR_PUBLIC);
    expect_kind("64:ff9b::808:808", CP_ADDR_PUBLIC);
}

/* An IPv4 address in a NAT64 prefix of the given length, as RFC 6052 2.2 lays it out: the 32
 * bits follow the prefix, skipping bits 64..71. */
static struct cp_ip nat64_at(const uint8_t *prefix, unsigned len, const char *v4_text)
{
    struct cp_ip ip = {.family = AF_INET6}, v4;
    assert_int_equal(cp_ip_parse(v4_text, &v4), 0);
    memcpy(ip.bytes, prefix, len / 8);
    for (unsigned i = len / 8, k = 0; k < 4; i++)
        if (i != 8)
            ip.bytes[i] = v4.bytes[k++];
    return ip;
}

static void test_egress_addr__nat64_every_layout__special_carried_ipv4_refused(void **state)
{
    static const uint8_t wkp[16] = {0, 0x64, 0xff, 0x9b};
    static const uint8_t local[16] = {0, 0x64, 0xff, 0x9b, 0, 1};
    static const unsigned lens[] = {32, 40, 48, 56, 64, 96};
    static const char *const special[] = {
        "127.0.0.1",  "10.1.2.3", "172.16.5.4", "172.31.0.9", "192.168.1.1",     "169.254.169.254",
        "100.64.0.1", "0.0.0.0",  "224.0.0.1",  "192.0.2.1",  "255.255.255.255", "127.255.0.1"};
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        for (size_t v = 0; v < sizeof(special) / sizeof(special[0]); v++) {
            struct cp_ip a = nat64_at(wkp, lens[l], special[v]);
            if (cp_addr_classify(&a) == CP_ADDR_PUBLIC)
                fail_msg("%s in 64:ff9b::/%u judged public", special[v], lens[l]);
            if (lens[l] < 48)
                continue; /* a /32 or /40 does not fit in the local-use /48 */
            struct cp_ip b = nat64_at(local, lens[l], special[v]);
            if (cp_addr_classify(&b) == CP_ADDR_PUBLIC)
                fail_msg("%s in 64:ff9b:1::/%u judged public", special[v], lens[l]);
        }
    }
    /* The example: 127.0.0.1 in the /64 layout under the local-use prefix. */
    expect_kind("64:ff9b:1:0:7f:0:100:0", CP_ADDR_LOOPBACK);
    expect_kind("64:ff9b:1:0:a:102:300:0", CP_ADDR_PRIVATE);
    assert_int_not_equal(kind_of("64:ff9b:1:ac:10:504::"), CP_ADDR_PUBLIC);  /* /56 */
    assert_int_not_equal(kind_of("64:ff9b:1:c0a8:1:100::"), CP_ADDR_PUBLIC); /* /48 */
    assert_int_not_equal(kind_of("64:ff9b:7f00:1::"), CP_ADDR_PUBLIC);       /* /32 */
    /* Public stays public where every layout carries a public address. */
    expect_kind("64:ff9b::5db8:d822", CP_ADDR_PUBLIC);
    expect_kind("64:ff9b:1:5d5d:5d:5d5d:5db8:d822", CP_ADDR_PUBLIC);
    /* The rest of 64:ff9b::/32 is nobody's: never public. */
    expect_kind("64:ff9b:5d5d:5d5d:5d:5d5d:5db8:d822", CP_ADDR_RESERVED);
}

static void test_egress_addr__special_ipv4__each_kind(void **state)
{
    expect_kind("127.0.0.1", CP_ADDR_LOOPBACK);
    expect_kind("10.0.0.1", CP_ADDR_PRIVATE);
    expect_kind("172.16.5.4", CP_ADDR_PRIVATE);
    expect_kind("192.168.1.1", CP_ADDR_PRIVATE);
    expect_kind("169.254.169.254", CP_ADDR_LINK_LOCAL);
    expect_kind("100.64.0.1", CP_ADDR_CGNAT);
    expect_kind("100.127.255.254", CP_ADDR_CGNAT);
    expect_kind("0.0.0.0", CP_ADDR_UNSPECIFIED);
    expect_kind("224.0.0.1", CP_ADDR_MULTICAST);
    expect_kind("255.255.255.255", CP_ADDR_BROADCAST);
    expect_kind("240.0.0.1", CP_ADDR_RESERVED);
    expect_kind("198.18.0.1", CP_ADDR_RESERVED);
    expect_kind("172.32.0.1", CP_ADDR_PUBLIC); /* just past 172.16.0.0/12 */
    expect_kind("100.128.0.1", CP_ADDR_PUBLIC);
}

static void test_egress_addr__special_ipv6__each_kind(void **state)
{
    expect_kind("::", CP_ADDR_UNSPECIFIED);
    expect_kind("::1", CP_ADDR_LOOPBACK);
    expect_kind("fe80::1", CP_ADDR_LINK_LOCAL);
    expect_kind("fc00::1", CP_ADDR_PRIVATE);
    expect_kind("fd12:3456::1", CP_ADDR_PRIVATE);
    expect_kind("ff02::2", CP_ADDR_MULTICAST);
    expect_kind("2001:db8::1", CP_ADDR_RESERVED);
}

static void test_egress_addr__ipv4_hidden_in_ipv6__classified_as_the_ipv4(void **state)
{
    expect_kind("::ffff:10.0.0.1", CP_ADDR_PRIVATE);
    expect_kind("::ffff:127.0.0.1", CP_ADDR_LOOPBACK);
    expect_kind("::127.0.0.1", CP_ADDR_LOOPBACK);
    expect_kind("64:ff9b::a00:1", CP_ADDR_PRIVATE);
    expect_kind("64:ff9b:1::a9fe:a9fe", CP_ADDR_LINK_LOCAL);
    expect_kind("2002:a00:1::1", CP_ADDR_PRIVATE);
    expect_kind("2002:7f00:1::", CP_ADDR_LOOPBACK);
    /* Teredo: client 10.0.0.1 carried inverted in the last 32 bits. */
    expect_kind("2001:0:4136:e378:8000:63bf:f5ff:fffe", CP_ADDR_PRIVATE);
    /* RFC 4380's example: a public server, a client in 192.0.2.0/24 (documentation). */
    expect_kind("2001:0:4136:e378:8000:63bf:3fff:fdd2", CP_ADDR_RESERVED);
    expect_kind("2001:0:4136:e378:8000:63bf:f7f7:f7f7", CP_ADDR_PUBLIC); /* client 8.8.8.8 */
    expect_kind("2001:0:a00:1::", CP_ADDR_PRIVATE); /* the server half private */
}

/* One case per row of the special-purpose table: the row as cp_ip_format writes it, two
 * addresses inside it, and the kind both get (for a row that carries IPv4, the kind of the IPv4
 * the two carry: such a row is public where that IPv4 is). */
struct row_case {
    const char *row;
    const char *inside[2];
    enum cp_addr_kind kind;
    bool carries;
};

#define ALL_F "ffff:ffff:ffff:ffff:ffff"
static const struct row_case row_cases[] = {
    {"0.0.0.0/8", {"0.0.0.0", "0.255.255.255"}, CP_ADDR_UNSPECIFIED, false},
    {"0.0.0.0/32", {"0.0.0.0", "0.0.0.0"}, CP_ADDR_UNSPECIFIED, false},
    {"10.0.0.0/8", {"10.0.0.1", "10.255.255.255"}, CP_ADDR_PRIVATE, false},
    {"100.64.0.0/10", {"100.64.0.1", "100.127.255.254"}, CP_ADDR_CGNAT, false},
    {"127.0.0.0/8", {"127.0.0.1", "127.255.255.255"}, CP_ADDR_LOOPBACK, false},
    {"169.254.0.0/16", {"169.254.169.254", "169.254.0.1"}, CP_ADDR_LINK_LOCAL, false},
    {"172.16.0.0/12", {"172.16.5.4", "172.31.255.255"}, CP_ADDR_PRIVATE, false},
    {"192.0.0.0/24", {"192.0.0.11", "192.0.0.255"}, CP_ADDR_RESERVED, false},
    {"192.0.0.0/29", {"192.0.0.1", "192.0.0.7"}, CP_ADDR_RESERVED, false},
    {"192.0.0.8/32", {"192.0.0.8", "192.0.0.8"}, CP_ADDR_RESERVED, false},
    {"192.0.0.9/32", {"192.0.0.9", "192.0.0.9"}, CP_ADDR_RESERVED, false},
    {"192.0.0.10/32", {"192.0.0.10", "192.0.0.10"}, CP_ADDR_RESERVED, false},
    {"192.0.0.170/32", {"192.0.0.170", "192.0.0.170"}, CP_ADDR_RESERVED, false},
    {"192.0.0.171/32", {"192.0.0.171", "192.0.0.171"}, CP_ADDR_RESERVED, false},
    {"192.0.2.0/24", {"192.0.2.1", "192.0.2.255"}, CP_ADDR_RESERVED, false},
    {"192.31.196.0/24", {"192.31.196.1", "192.31.196.255"}, CP_ADDR_RESERVED, false},
    {"192.52.193.0/24", {"192.52.193.1", "192.52.193.255"}, CP_ADDR_RESERVED, false},
    {"192.88.99.0/24", {"192.88.99.1", "192.88.99.255"}, CP_ADDR_RESERVED, false},
    {"192.168.0.0/16", {"192.168.1.1", "192.168.255.255"}, CP_ADDR_PRIVATE, false},
    {"192.175.48.0/24", {"192.175.48.1", "192.175.48.255"}, CP_ADDR_RESERVED, false},
    {"198.18.0.0/15", {"198.18.0.1", "198.19.255.255"}, CP_ADDR_RESERVED, false},
    {"198.51.100.0/24", {"198.51.100.1", "198.51.100.255"}, CP_ADDR_RESERVED, false},
    {"203.0.113.0/24", {"203.0.113.1", "203.0.113.255"}, CP_ADDR_RESERVED, false},
    {"240.0.0.0/4", {"240.0.0.1", "255.255.255.254"}, CP_ADDR_RESERVED, false},
    {"255.255.255.255/32", {"255.255.255.255", "255.255.255.255"}, CP_ADDR_BROADCAST, false},
    {"224.0.0.0/4", {"224.0.0.1", "239.255.255.255"}, CP_ADDR_MULTICAST, false},
    {"::/128", {"::", "::"}, CP_ADDR_UNSPECIFIED, false},
    {"::1/128", {"::1", "::1"}, CP_ADDR_LOOPBACK, false},
    {"::ffff:0.0.0.0/96", {"::ffff:10.0.0.1", "::ffff:10.255.0.1"}, CP_ADDR_PRIVATE, true},
    {"64:ff9b::/96", {"64:ff9b::a00:1", "64:ff9b::10.1.2.3"}, CP_ADDR_PRIVATE, true},
    {"64:ff9b:1::/48",
     {"64:ff9b:1::a9fe:a9fe", "64:ff9b:1:ffff:ffff:ffff:a9fe:a9fe"},
     CP_ADDR_LINK_LOCAL,
     true},
    {"100::/64", {"100::1", "100::ffff:ffff:ffff:ffff"}, CP_ADDR_RESERVED, false},
    {"100:0:0:1::/64", {"100:0:0:1::1", "100:0:0:1:ffff:ffff:ffff:ffff"}, CP_ADDR_RESERVED, false},
    {"2001::/23", {"2001:100::1", "2001:1ff:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001::/32",
     {"2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:0:a00:1::"},
     CP_ADDR_PRIVATE,
     true},
    {"2001:1::1/128", {"2001:1::1", "2001:1::1"}, CP_ADDR_RESERVED, false},
    {"2001:1::2/128", {"2001:1::2", "2001:1::2"}, CP_ADDR_RESERVED, false},
    {"2001:1::3/128", {"2001:1::3", "2001:1::3"}, CP_ADDR_RESERVED, false},
    {"2001:2::/48", {"2001:2::1", "2001:2:0:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001:3::/32", {"2001:3::1", "2001:3:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001:4:112::/48", {"2001:4:112::1", "2001:4:112:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001:10::/28", {"2001:10::1", "2001:1f:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001:20::/28", {"2001:20::1", "2001:2f:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001:30::/28", {"2001:30::1", "2001:3f:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2001:db8::/32", {"2001:db8::1", "2001:db8:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"2002::/16", {"2002:a00:1::1", "2002:a00:1:ffff::"}, CP_ADDR_PRIVATE, true},
    {"2620:4f:8000::/48", {"2620:4f:8000::1", "2620:4f:8000:" ALL_F}, CP_ADDR_RESERVED, false},
    {"3fff::/20", {"3fff::1", "3fff:fff:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"5f00::/16", {"5f00::1", "5f00:ffff:ffff:" ALL_F}, CP_ADDR_RESERVED, false},
    {"fc00::/7", {"fc00::1", "fdff:ffff:ffff:" ALL_F}, CP_ADDR_PRIVATE, false},
    {"fe80::/10", {"fe80::1", "febf:ffff:ffff:" ALL_F}, CP_ADDR_LINK_LOCAL, false},
    {"::/96", {"::127.0.0.1", "::127.255.0.1"}, CP_ADDR_LOOPBACK, true},
    {"64:ff9b::/32",
     {"64:ff9b:5d5d:5d5d:5d:5d5d:5db8:d822", "64:ff9b:5d5d:5d5d:5d:5d5d:5db8:d823"},
     CP_ADDR_RESERVED,
     false},
    {"fec0::/10", {"fec0::1", "feff:ffff:ffff:" ALL_F}, CP_ADDR_PRIVATE, false},
    {"ff00::/8", {"ff02::2", "ffff:ffff:ffff:" ALL_F}, CP_ADDR_MULTICAST, false},
};

static const struct row_case *case_for(const char *row)
{
    for (size_t i = 0; i < sizeof(row_cases) / sizeof(row_cases[0]); i++)
        if (strcmp(row_cases[i].row, row) == 0)
            return &row_cases[i];
    return NULL;
}

/* A row added to the table without a case here fails, and so does a case for no row. */
static void test_egress_addr__every_registry_row__has_its_case(void **state)
{
    struct cp_cidr row;
    size_t n = 0;
    for (; cp_addr_special_row(n, &row); n++) {
        char net[64], text[80];
        cp_ip_format(&row.net, net, sizeof(net));
        snprintf(text, sizeof(text), "%s/%u", net, row.prefix);
        if (case_for(text) == NULL)
            fail_msg("row %s has no case", text);
    }
    assert_int_equal(n, sizeof(row_cases) / sizeof(row_cases[0]));
}

/* The last address of a CIDR: its network with every host bit set. */
static struct cp_ip last_of(const struct cp_cidr *c)
{
    struct cp_ip ip = c->net;
    unsigned total = ip.family == AF_INET ? 32 : 128;
    for (unsigned bit = c->prefix; bit < total; bit++)
        ip.bytes[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
    return ip;
}

static void test_egress_addr__each_registry_row__its_kind_and_never_public(void **state)
{
    for (size_t i = 0; i < sizeof(row_cases) / sizeof(row_cases[0]); i++) {
        const struct row_case *rc = &row_cases[i];
        struct cp_cidr row;
        if (cp_cidr_parse(rc->row, &row, NULL) < 0)
            fail_msg("case row %s does not parse", rc->row);
        for (size_t k = 0; k < 2; k++) {
            struct cp_ip ip;
            assert_int_equal(cp_ip_parse(rc->inside[k], &ip), 0);
            if (!cp_cidr_contains(&row, &ip))
                fail_msg("%s is not in %s", rc->inside[k], rc->row);
            enum cp_addr_kind got = cp_addr_classify(&ip);
            if (got != rc->kind)
                fail_msg("%s (row %s): got %s, want %s", rc->inside[k], rc->row,
                         cp_addr_kind_name(got), cp_addr_kind_name(rc->kind));
        }
        if (rc->carries)
            continue;
        /* A row's first and last addresses are refused too (they may fall in a longer row). */
        struct cp_ip last = last_of(&row);
        if (cp_addr_classify(&row.net) == CP_ADDR_PUBLIC ||
            cp_addr_classify(&last) == CP_ADDR_PUBLIC)
            fail_msg("an edge of %s is judged public", rc->row);
    }
}

/* Issue 20: the IPv6 documentation prefix of RFC 9637, benchmarking and ORCHIDv2 were public. */
static void test_egress_addr__ipv6_documentation_benchmarking_orchid__refused(void **state)
{
    expect_kind("3fff::1", CP_ADDR_RESERVED);
    expect_kind("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", CP_ADDR_RESERVED);
    expect_kind("2001:2::1", CP_ADDR_RESERVED);
    expect_kind("2001:20::1", CP_ADDR_RESERVED);
    expect_kind("2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", CP_ADDR_RESERVED);
    /* Their neighbours outside every row stay public. */
    expect_kind("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", CP_ADDR_PUBLIC);
    expect_kind("3fff:1000::", CP_ADDR_PUBLIC);
    expect_kind("2001:200::", CP_ADDR_PUBLIC);
}

static void test_egress_addr__cidr_parse__strict(void **state)
{
    struct cp_cidr c;
    assert_int_equal(cp_cidr_parse("127.0.0.0/8", &c, NULL), 0);
    assert_int_equal(c.prefix, 8);
    assert_int_equal(cp_cidr_parse("::1", &c, NULL), 0);
    assert_int_equal(c.prefix, 128);
    assert_true(cp_cidr_parse("127.0.0.1/8", &c, NULL) < 0); /* host bits set */
    assert_true(cp_cidr_parse("10.0.0.0/33", &c, NULL) < 0);
    assert_true(cp_cidr_parse("10.0.0.0/+8", &c, NULL) < 0);
    assert_true(cp_cidr_parse("10.0.0.0/", &c, NULL) < 0);
    assert_true(cp_cidr_parse("10.1/8", &c, NULL) < 0);
}

static void test_egress_addr__cidr_contains__mapped_matches_ipv4(void **state)
{
    struct cp_cidr c;
    struct cp_ip ip;
    assert_int_equal(cp_cidr_parse("127.0.0.0/8", &c, NULL), 0);
    cp_ip_parse("127.9.9.9", &ip);
    assert_true(cp_cidr_contains(&c, &ip));
    cp_ip_parse("::ffff:127.0.0.1", &ip);
    assert_true(cp_cidr_contains(&c, &ip));
    cp_ip_parse("128.0.0.1", &ip);
    assert_false(cp_cidr_contains(&c, &ip));
    cp_ip_parse("::1", &ip);
    assert_false(cp_cidr_contains(&c, &ip));
}

static void test_egress_policy__suffix_and_prefix_confusion__not_listed(void **state)
{
    cleanup_egress_policy struct cp_egress_policy p = {0};
    assert_int_equal(cp_egress_policy_add_host(&p, "git.example", NULL), 0);
    assert_int_equal(cp_egress_policy_add_host(&p, "*.Files.Example", NULL), 0);
    assert_true(cp_egress_policy_listed(&p, "git.example"));
    assert_true(cp_egress_policy_listed(&p, "raw.files.example"));
    assert_false(cp_egress_policy_listed(&p, "evilgit.example"));
    assert_false(cp_egress_policy_listed(&p, "git.example.evil.net"));
    assert_false(cp_egress_policy_listed(&p, "files.example"));
    assert_false(cp_egress_policy_listed(&p, "x.files.example.evil"));
    assert_false(cp_egress_policy_listed(&p, "xfiles.example"));
    assert_true(cp_egress_policy_add_host(&p, "*", NULL) < 0);
    assert_true(cp_egress_policy_add_host(&p, "a.*.example", NULL) < 0);
    assert_true(cp_egress_policy_add_host(&p, "10.0.0.1", NULL) < 0);
}

static void test_egress_policy__special_address__refused_unless_cidr_allowed(void **state)
{
    cleanup_egress_policy struct cp_egress_policy p = {0};
    struct cp_ip addrs[2];
    size_t bad = 99;
    cp_ip_parse("140.82.112.6", &addrs[0]);
    cp_ip_parse("::ffff:127.0.0.1", &addrs[1]);
    assert_int_equal(cp_egress_policy_check_addrs(&p, addrs, 1, &bad), CP_EGRESS_ALLOWED);
    assert_int_equal(cp_egress_policy_check_addrs(&p, addrs, 2, &bad), CP_EGRESS_SPECIAL_ADDRESS);
    assert_int_equal(bad, 1);
    assert_int_equal(cp_egress_policy_add_cidr(&p, "127.0.0.0/8", NULL), 0);
    assert_int_equal(cp_egress_policy_check_addrs(&p, addrs, 2, &bad), CP_EGRESS_ALLOWED);
}

static void test_egress_policy__pin__answered_without_lookup(void **state)
{
    cleanup_egress_policy struct cp_egress_policy p = {0};
    assert_int_equal(cp_egress_policy_add_pin(&p, "Reg.Example=10.1.2.3", NULL), 0);
    const struct cp_ip *ip = cp_egress_policy_pinned(&p, "reg.example");
    assert_non_null(ip);
    assert_int_equal(cp_addr_classify(ip), CP_ADDR_PRIVATE);
    assert_null(cp_egress_policy_pinned(&p, "other.example"));
    assert_true(cp_egress_policy_add_pin(&p, "reg.example=127.1", NULL) < 0);
    assert_true(cp_egress_policy_add_pin(&p, "reg.example", NULL) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_addr__public_addresses__public),
        cmocka_unit_test(test_egress_addr__special_ipv4__each_kind),
        cmocka_unit_test(test_egress_addr__special_ipv6__each_kind),
        cmocka_unit_test(test_egress_addr__ipv4_hidden_in_ipv6__classified_as_the_ipv4),
        cmocka_unit_test(test_egress_addr__nat64_every_layout__special_carried_ipv4_refused),
        cmocka_unit_test(test_egress_addr__every_registry_row__has_its_case),
        cmocka_unit_test(test_egress_addr__each_registry_row__its_kind_and_never_public),
        cmocka_unit_test(test_egress_addr__ipv6_documentation_benchmarking_orchid__refused),
        cmocka_unit_test(test_egress_addr__cidr_parse__strict),
        cmocka_unit_test(test_egress_addr__cidr_contains__mapped_matches_ipv4),
        cmocka_unit_test(test_egress_policy__suffix_and_prefix_confusion__not_listed),
        cmocka_unit_test(test_egress_policy__special_address__refused_unless_cidr_allowed),
        cmocka_unit_test(test_egress_policy__pin__answered_without_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
