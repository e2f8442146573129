/* Unit tests for the ClientHello check: the server name must be the CONNECT host, and nothing
 * but a ClientHello may open a tunnel (issue 10, domain fronting and tunnel smuggling). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "egress/proxy/hello.h"

#define HOST "echo.test"

struct bytes {
    uint8_t b[CP_TLS_HELLO_MAX * 4];
    size_t n;
};

static void put(struct bytes *o, const void *data, size_t len)
{
    assert_true(o->n + len <= sizeof(o->b));
    memcpy(o->b + o->n, data, len);
    o->n += len;
}

static void put16(struct bytes *o, size_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(o, b, 2);
}

/* An extension: type, length, body. */
static void put_ext(struct bytes *o, unsigned type, const void *body, size_t len)
{
    put16(o, type);
    put16(o, len);
    put(o, body, len);
}

/* A server_name extension holding one host_name. */
static void put_sni(struct bytes *o, const char *name, size_t len)
{
    struct bytes e = {0};
    put16(&e, len + 3);
    put(&e, "\0", 1);
    put16(&e, len);
    put(&e, name, len);
    put_ext(o, 0, e.b, e.n);
}

/* A whole ClientHello in one record; exts NULL for one without extensions. */
static void hello(struct bytes *o, const struct bytes *exts)
{
    static const uint8_t suites[] = {0x00, 0x02, 0x13, 0x01};
    struct bytes body = {0}, hs = {0};
    put(&body, "\x03\x03", 2);
    uint8_t random[32] = {0};
    put(&body, random, sizeof(random));
    put(&body, "\0", 1); /* session id */
    put(&body, suites, sizeof(suites));
    put(&body, "\x01\x00", 2); /* compression: null */
    if (exts != NULL) {
        put16(&body, exts->n);
        put(&body, exts->b, exts->n);
    }
    uint8_t head[4] = {1, (uint8_t)(body.n >> 16), (uint8_t)(body.n >> 8), (uint8_t)body.n};
    put(&hs, head, 4);
    put(&hs, body.b, body.n);
    put(o, "\x16\x03\x01", 3);
    put16(o, hs.n);
    put(o, hs.b, hs.n);
}

static void hello_for(struct bytes *o, const char *name)
{
    struct bytes exts = {0};
    put_ext(&exts, 0x000a, "\x00\x02\x00\x1d", 4); /* supported_groups, before the name */
    put_sni(&exts, name, strlen(name));
    hello(o, &exts);
}

/* The same handshake bytes framed into records of at most size bytes. */
static void reframe(const struct bytes *in, size_t size, struct bytes *out)
{
    for (size_t i = 5; i < in->n; i += size) {
        size_t len = in->n - i < size ? in->n - i : size;
        put(out, "\x16\x03\x01", 3);
        put16(out, len);
        put(out, in->b + i, len);
    }
}

static enum cp_egress_reason judge(const struct bytes *o, char *sni, size_t size)
{
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    int r = cp_tls_hello_check(o->b, o->n, HOST, &reason, sni, size);
    if (r != 0)
        fail_msg("the check asked for more bytes after %zu", o->n);
    return reason;
}

static void test_egress_hello__the_connect_host__allowed(void **state)
{
    struct bytes o = {0};
    char sni[256];
    hello_for(&o, HOST);
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_ALLOWED);
    assert_string_equal(sni, HOST);
}

static void test_egress_hello__capitals_and_trailing_dot__allowed(void **state)
{
    struct bytes o = {0};
    char sni[256];
    hello_for(&o, "Echo.TEST.");
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_ALLOWED);
}

static void test_egress_hello__another_name__sni_mismatch(void **state)
{
    const char *names[] = {"evil.example", "echo.test.evil", "xecho.test",
                           "echo.tes",     "echo.test..",    "sub.echo.test"};
    char sni[256];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct bytes o = {0};
        hello_for(&o, names[i]);
        assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_SNI_MISMATCH);
        assert_string_equal(sni, names[i]);
    }
}

static void test_egress_hello__name_with_nul__mismatch_and_printable(void **state)
{
    struct bytes o = {0}, exts = {0};
    char sni[256];
    put_sni(&exts, "echo.test\0evil", 14);
    hello(&o, &exts);
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_SNI_MISMATCH);
    assert_string_equal(sni, "echo.test?evil");
}

static void test_egress_hello__no_server_name__no_sni(void **state)
{
    struct bytes o = {0}, exts = {0};
    char sni[256];
    put_ext(&exts, 0x000a, "\x00\x02\x00\x1d", 4);
    hello(&o, &exts);
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_NO_SNI);
    struct bytes bare = {0};
    hello(&bare, NULL);
    assert_int_equal(judge(&bare, sni, sizeof(sni)), CP_EGRESS_NO_SNI);
    assert_string_equal(sni, "");
}

static void test_egress_hello__encrypted_hello__ech(void **state)
{
    static const unsigned types[] = {0xfe0d, 0xffce};
    char sni[256];
    for (size_t i = 0; i < 2; i++) {
        struct bytes o = {0}, exts = {0};
        put_sni(&exts, HOST, strlen(HOST)); /* the outer name is right; the inner is hidden */
        put_ext(&exts, types[i], "abcd", 4);
        hello(&o, &exts);
        assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_ECH);
    }
}

static void test_egress_hello__ambiguous_names__not_tls(void **state)
{
    char sni[256];
    /* The right name first, another in a second extension: a server may read the last. */
    struct bytes o = {0}, exts = {0};
    put_sni(&exts, HOST, strlen(HOST));
    put_sni(&exts, "evil.example", 12);
    hello(&o, &exts);
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
    /* And the other way round, where a last-one-wins reader would allow it. */
    struct bytes rev = {0}, erev = {0};
    put_sni(&erev, "evil.example", 12);
    put_sni(&erev, HOST, strlen(HOST));
    hello(&rev, &erev);
    assert_int_equal(judge(&rev, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
    /* Two names in one list. */
    struct bytes two = {0}, e2 = {0}, list = {0};
    put16(&list, 2 * 3 + strlen(HOST) + 12);
    put(&list, "\0", 1);
    put16(&list, strlen(HOST));
    put(&list, HOST, strlen(HOST));
    put(&list, "\0", 1);
    put16(&list, 12);
    put(&list, "evil.example", 12);
    put_ext(&e2, 0, list.b, list.n);
    hello(&two, &e2);
    assert_int_equal(judge(&two, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
    /* Another extension twice. */
    struct bytes dup = {0}, e3 = {0};
    put_sni(&e3, HOST, strlen(HOST));
    put_ext(&e3, 0x000a, "\x00\x02\x00\x1d", 4);
    put_ext(&e3, 0x000a, "\x00\x02\x00\x17", 4);
    hello(&dup, &e3);
    assert_int_equal(judge(&dup, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
}

static void test_egress_hello__other_protocols__not_tls_at_once(void **state)
{
    static const char *const texts[] = {"GET / HTTP/1.1\r\nHost: other.test\r\n\r\n",
                                        "CONNECT other.test:443 HTTP/1.1\r\n\r\n", "SSH-2.0-x\r\n",
                                        "\x80\x2e\x01\x03\x01"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
        char sni[8];
        /* One byte is enough to refuse. */
        assert_int_equal(
            cp_tls_hello_check((const uint8_t *)texts[i], 1, HOST, &reason, sni, sizeof(sni)), 0);
        assert_int_equal(reason, CP_EGRESS_NOT_TLS);
    }
}

static void test_egress_hello__not_a_client_hello__not_tls(void **state)
{
    char sni[256];
    struct bytes o = {0};
    hello_for(&o, HOST);
    o.b[5] = 2; /* a ServerHello */
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
    struct bytes alert = {0};
    put(&alert, "\x15\x03\x03\x00\x02\x02\x28", 7);
    assert_int_equal(judge(&alert, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
    struct bytes empty = {0};
    put(&empty, "\x16\x03\x01\x00\x00", 5); /* a zero-length handshake record */
    assert_int_equal(judge(&empty, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
    struct bytes version = {0};
    hello_for(&version, HOST);
    version.b[1] = 2;
    assert_int_equal(judge(&version, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
}

static void test_egress_hello__lengths_that_disagree__not_tls(void **state)
{
    char sni[256];
    struct bytes o = {0};
    hello_for(&o, HOST);
    /* One byte more in the record and the handshake header, none in the body: the extensions'
     * length no longer fills the message. */
    struct bytes longer = {0};
    put(&longer, o.b, o.n);
    put(&longer, "\0", 1);
    longer.b[4]++;
    longer.b[8]++;
    assert_int_equal(judge(&longer, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
}

static void test_egress_hello__every_split__more_until_whole(void **state)
{
    struct bytes o = {0}, framed = {0};
    hello_for(&o, "evil.example");
    reframe(&o, 3, &framed); /* 3-byte records: the header itself is split */
    const struct bytes *cases[] = {&o, &framed};
    for (size_t c = 0; c < 2; c++) {
        for (size_t len = 1; len < cases[c]->n; len++) {
            enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
            char sni[256];
            if (cp_tls_hello_check(cases[c]->b, len, HOST, &reason, sni, sizeof(sni)) != 1)
                fail_msg("case %zu decided at %zu of %zu bytes", c, len, cases[c]->n);
        }
        char sni[256];
        assert_int_equal(judge(cases[c], sni, sizeof(sni)), CP_EGRESS_SNI_MISMATCH);
        assert_string_equal(sni, "evil.example");
    }
    struct bytes right = {0}, right_framed = {0};
    hello_for(&right, HOST);
    reframe(&right, 1, &right_framed);
    char sni[256];
    assert_int_equal(judge(&right_framed, sni, sizeof(sni)), CP_EGRESS_ALLOWED);
}

static void test_egress_hello__another_record_between__not_tls(void **state)
{
    struct bytes o = {0}, framed = {0}, mixed = {0};
    char sni[256];
    hello_for(&o, HOST);
    reframe(&o, 20, &framed);
    put(&mixed, framed.b, 25);
    put(&mixed, "\x14\x03\x03\x00\x01\x01", 6); /* change_cipher_spec inside the hello */
    put(&mixed, framed.b + 25, framed.n - 25);
    assert_int_equal(judge(&mixed, sni, sizeof(sni)), CP_EGRESS_NOT_TLS);
}

static void test_egress_hello__bytes_after_the_hello__still_judged_by_it(void **state)
{
    struct bytes o = {0};
    char sni[256];
    hello_for(&o, HOST);
    put(&o,
        "\x17\x03\x03\x00\x03"
        "abc",
        8); /* early application data follows */
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_ALLOWED);
}

static void test_egress_hello__too_big__refused_within_bound(void **state)
{
    char sni[256];
    struct bytes o = {0};
    /* A handshake header that promises more than the bound. */
    put(&o, "\x16\x03\x01\x00\x04\x01\x01\x00\x00", 9);
    assert_int_equal(judge(&o, sni, sizeof(sni)), CP_EGRESS_HELLO_TOO_BIG);
    /* Raw bytes at the bound without a whole hello: tiny records of a long padding hello. */
    struct bytes big = {0}, exts = {0}, framed = {0};
    static uint8_t pad[12000];
    put_sni(&exts, HOST, strlen(HOST));
    put_ext(&exts, 0x0015, pad, sizeof(pad));
    hello(&big, &exts);
    reframe(&big, 8, &framed);
    assert_true(framed.n > CP_TLS_HELLO_MAX);
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    assert_int_equal(
        cp_tls_hello_check(framed.b, CP_TLS_HELLO_MAX, HOST, &reason, sni, sizeof(sni)), 0);
    assert_int_equal(reason, CP_EGRESS_HELLO_TOO_BIG);
    /* The same hello in one record fits and passes. */
    assert_int_equal(judge(&big, sni, sizeof(sni)), CP_EGRESS_ALLOWED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_hello__the_connect_host__allowed),
        cmocka_unit_test(test_egress_hello__capitals_and_trailing_dot__allowed),
        cmocka_unit_test(test_egress_hello__another_name__sni_mismatch),
        cmocka_unit_test(test_egress_hello__name_with_nul__mismatch_and_printable),
        cmocka_unit_test(test_egress_hello__no_server_name__no_sni),
        cmocka_unit_test(test_egress_hello__encrypted_hello__ech),
        cmocka_unit_test(test_egress_hello__ambiguous_names__not_tls),
        cmocka_unit_test(test_egress_hello__other_protocols__not_tls_at_once),
        cmocka_unit_test(test_egress_hello__not_a_client_hello__not_tls),
        cmocka_unit_test(test_egress_hello__lengths_that_disagree__not_tls),
        cmocka_unit_test(test_egress_hello__every_split__more_until_whole),
        cmocka_unit_test(test_egress_hello__another_record_between__not_tls),
        cmocka_unit_test(test_egress_hello__bytes_after_the_hello__still_judged_by_it),
        cmocka_unit_test(test_egress_hello__too_big__refused_within_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
