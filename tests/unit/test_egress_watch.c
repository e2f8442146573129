/* Unit tests for the handshake watch: after the first ClientHello of a blind tunnel, every
 * ClientHello until the server's real ServerHello must name the CONNECT host (issue 20: a
 * HelloRetryRequest let a second hello name another server). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "egress/proxy/hello.h"
#include "egress/proxy/watch.h"

#define HOST "echo.test"

struct bytes {
    uint8_t b[4 * CP_TLS_HELLO_MAX];
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

static void put_ext(struct bytes *o, unsigned type, const void *body, size_t len)
{
    put16(o, type);
    put16(o, len);
    put(o, body, len);
}

/* A handshake message: type, 24-bit length, body. */
static void put_message(struct bytes *o, uint8_t type, const struct bytes *body)
{
    uint8_t head[4] = {type, (uint8_t)(body->n >> 16), (uint8_t)(body->n >> 8), (uint8_t)body->n};
    put(o, head, 4);
    put(o, body->b, body->n);
}

/* One record of the given type around payload. */
static void put_record(struct bytes *o, uint8_t type, const struct bytes *payload)
{
    uint8_t head[3] = {type, 3, 3};
    put(o, head, 3);
    put16(o, payload->n);
    put(o, payload->b, payload->n);
}

/* A ClientHello message (no record header) naming name. */
static void hello_message(struct bytes *o, const char *name)
{
    static const uint8_t suites[] = {0x00, 0x02, 0x13, 0x01};
    struct bytes body = {0}, exts = {0}, sni = {0};
    size_t len = strlen(name);
    put16(&sni, len + 3);
    put(&sni, "\0", 1);
    put16(&sni, len);
    put(&sni, name, len);
    put_ext(&exts, 0x000a, "\x00\x02\x00\x17", 4);
    put_ext(&exts, 0x0000, sni.b, sni.n);
    put(&body, "\x03\x03", 2);
    uint8_t random[32] = {7};
    put(&body, random, sizeof(random));
    put(&body, "\0", 1);
    put(&body, suites, sizeof(suites));
    put(&body, "\x01\x00", 2);
    put16(&body, exts.n);
    put(&body, exts.b, exts.n);
    put_message(o, 1, &body);
}

/* A ClientHello in one handshake record. */
static void hello_record(struct bytes *o, const char *name)
{
    struct bytes m = {0};
    hello_message(&m, name);
    put_record(o, 22, &m);
}

/* The same handshake bytes in records of at most size bytes. */
static void hello_records(struct bytes *o, const char *name, size_t size)
{
    struct bytes m = {0};
    hello_message(&m, name);
    for (size_t i = 0; i < m.n; i += size) {
        struct bytes part = {0};
        put(&part, m.b + i, m.n - i < size ? m.n - i : size);
        put_record(o, 22, &part);
    }
}

static const uint8_t retry_random[32] = {
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c};

/* A ServerHello record; retry makes it a HelloRetryRequest. */
static void server_hello(struct bytes *o, bool retry)
{
    struct bytes body = {0}, m = {0};
    uint8_t random[32] = {1, 2, 3};
    put(&body, "\x03\x03", 2);
    put(&body, retry ? retry_random : random, 32);
    put(&body, "\0", 1);
    put(&body, "\x13\x01\x00", 3);
    put(&body, "\x00\x06\x00\x2b\x00\x02\x03\x04", 8); /* supported_versions: TLS 1.3 */
    put_message(&m, 2, &body);
    put_record(o, 22, &m);
}

static void ccs(struct bytes *o)
{
    put(o, "\x14\x03\x03\x00\x01\x01", 6);
}

static enum cp_egress_reason client(struct cp_tls_watch *w, const struct bytes *o, char *sni)
{
    return cp_tls_watch_client(w, o->b, o->n, HOST, sni, 256);
}

/* The attack: the first hello right, a retry request, the second naming another. */
static void test_egress_watch__retry_then_another_name__refused(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes ch1 = {0}, hrr = {0}, ch2 = {0};
    char sni[256];
    hello_record(&ch1, HOST);
    server_hello(&hrr, true);
    ccs(&ch2);
    hello_record(&ch2, "evil.example");
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    cp_tls_watch_server(&w, hrr.b, hrr.n);
    assert_false(cp_tls_watch_done(&w));
    assert_int_equal(client(&w, &ch2, sni), CP_EGRESS_SNI_MISMATCH);
    assert_string_equal(sni, "evil.example");
    /* Refused for good, whatever comes next. */
    struct bytes right = {0};
    hello_record(&right, HOST);
    assert_int_equal(client(&w, &right, sni), CP_EGRESS_SNI_MISMATCH);
    cp_tls_watch_dispose(&w);
}

static void test_egress_watch__retry_then_same_name__allowed_until_server_hello(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes ch1 = {0}, hrr = {0}, ch2 = {0}, sh = {0}, after = {0};
    char sni[256];
    hello_record(&ch1, HOST);
    server_hello(&hrr, true);
    ccs(&ch2);
    hello_record(&ch2, "ECHO.test.");
    server_hello(&sh, false);
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    cp_tls_watch_server(&w, hrr.b, hrr.n);
    assert_int_equal(client(&w, &ch2, sni), CP_EGRESS_ALLOWED);
    assert_string_equal(sni, "");
    assert_false(cp_tls_watch_done(&w));
    cp_tls_watch_server(&w, sh.b, sh.n);
    assert_true(cp_tls_watch_done(&w));
    assert_int_equal(w.retries, 1);
    /* After the ServerHello the watch reads nothing: TLS 1.2's ClientKeyExchange passes. */
    struct bytes cke = {0}, body = {0};
    put(&body, "\x20", 1);
    put(&body, retry_random, 32);
    put_message(&cke, 16, &body);
    put_record(&after, 22, &cke);
    assert_int_equal(client(&w, &after, sni), CP_EGRESS_ALLOWED);
    assert_null(w.hs);
    cp_tls_watch_dispose(&w);
}

/* A client need not wait for the retry request: the second hello sent at once, in the same
 * read or in the same record as the first, is judged all the same. */
static void test_egress_watch__second_hello_with_the_first__judged(void **state)
{
    char sni[256];
    struct cp_tls_watch w1 = {0}, w2 = {0};
    struct bytes both = {0};
    hello_record(&both, HOST);
    hello_record(&both, "evil.example");
    assert_int_equal(client(&w1, &both, sni), CP_EGRESS_SNI_MISMATCH);
    cp_tls_watch_dispose(&w1);
    struct bytes m = {0}, one = {0};
    hello_message(&m, HOST);
    hello_message(&m, "evil.example");
    put_record(&one, 22, &m);
    assert_int_equal(client(&w2, &one, sni), CP_EGRESS_SNI_MISMATCH);
    assert_string_equal(sni, "evil.example");
    cp_tls_watch_dispose(&w2);
}

/* Fed a byte at a time, in 7-byte records, the second hello is refused at its last byte and
 * not before: the bytes before it may go on, since the server acts on no partial message. */
static void test_egress_watch__second_hello_byte_by_byte__refused_at_its_last_byte(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes ch1 = {0}, hrr = {0}, ch2 = {0};
    char sni[256];
    hello_record(&ch1, HOST);
    server_hello(&hrr, true);
    hello_records(&ch2, "evil.example", 7);
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    for (size_t i = 0; i < hrr.n; i++)
        cp_tls_watch_server(&w, hrr.b + i, 1);
    assert_false(cp_tls_watch_done(&w));
    for (size_t i = 0; i + 1 < ch2.n; i++)
        if (cp_tls_watch_client(&w, ch2.b + i, 1, HOST, sni, sizeof(sni)) != CP_EGRESS_ALLOWED)
            fail_msg("refused at byte %zu of %zu", i, ch2.n);
    assert_int_equal(cp_tls_watch_client(&w, ch2.b + ch2.n - 1, 1, HOST, sni, sizeof(sni)),
                     CP_EGRESS_SNI_MISMATCH);
    cp_tls_watch_dispose(&w);
}

static void test_egress_watch__record_inside_a_hello__not_tls(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes ch1 = {0}, ch2 = {0}, mixed = {0};
    char sni[256];
    hello_record(&ch1, HOST);
    hello_records(&ch2, HOST, 20);
    put(&mixed, ch2.b, 25);
    ccs(&mixed);
    put(&mixed, ch2.b + 25, ch2.n - 25);
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    assert_int_equal(client(&w, &mixed, sni), CP_EGRESS_NOT_TLS);
    cp_tls_watch_dispose(&w);
}

/* Before the server's ServerHello a client sends no other handshake message, and no record
 * TLS does not define. */
static void test_egress_watch__other_client_messages_before_server_hello__not_tls(void **state)
{
    char sni[256];
    struct cp_tls_watch w = {0}, w2 = {0}, w3 = {0};
    struct bytes ch1 = {0}, other = {0}, body = {0}, m = {0};
    hello_record(&ch1, HOST);
    put(&body, "\x01\x02", 2);
    put_message(&m, 16, &body);
    put_record(&other, 22, &m);
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    assert_int_equal(client(&w, &other, sni), CP_EGRESS_NOT_TLS);
    cp_tls_watch_dispose(&w);
    struct bytes heartbeat = {0};
    put(&heartbeat, "\x18\x03\x03\x00\x01\x01", 6);
    assert_int_equal(client(&w2, &ch1, sni), CP_EGRESS_ALLOWED);
    assert_int_equal(client(&w2, &heartbeat, sni), CP_EGRESS_NOT_TLS);
    cp_tls_watch_dispose(&w2);
    struct bytes empty = {0};
    put(&empty, "\x16\x03\x03\x00\x00", 5);
    assert_int_equal(client(&w3, &ch1, sni), CP_EGRESS_ALLOWED);
    assert_int_equal(client(&w3, &empty, sni), CP_EGRESS_NOT_TLS);
    cp_tls_watch_dispose(&w3);
}

/* Early data and change_cipher_spec records go by unread. */
static void test_egress_watch__early_data_and_ccs__pass(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes flight = {0};
    char sni[256];
    hello_record(&flight, HOST);
    ccs(&flight);
    put(&flight,
        "\x17\x03\x03\x00\x04"
        "abcd",
        9);
    assert_int_equal(client(&w, &flight, sni), CP_EGRESS_ALLOWED);
    cp_tls_watch_dispose(&w);
}

/* A server stream the watch cannot follow never ends the watch: the client's hellos stay
 * judged for the life of the tunnel. */
static void test_egress_watch__server_not_tls__watched_to_the_end(void **state)
{
    const char *const streams[] = {"HTTP/1.1 200 OK\r\n\r\n",
                                   "\x16\x03\x03\x00\x05\x0b\x00\x00\x01\x00"};
    const size_t lens[] = {19, 10};
    for (size_t i = 0; i < 2; i++) {
        struct cp_tls_watch w = {0};
        struct bytes ch1 = {0}, ch2 = {0}, sh = {0};
        char sni[256];
        hello_record(&ch1, HOST);
        hello_record(&ch2, "evil.example");
        server_hello(&sh, false);
        assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
        cp_tls_watch_server(&w, (const uint8_t *)streams[i], lens[i]);
        cp_tls_watch_server(&w, sh.b, sh.n);
        assert_false(cp_tls_watch_done(&w));
        assert_int_equal(client(&w, &ch2, sni), CP_EGRESS_SNI_MISMATCH);
        cp_tls_watch_dispose(&w);
    }
}

/* The server's alert or change_cipher_spec before its ServerHello is skipped, not taken for
 * the end of the handshake. */
static void test_egress_watch__server_records_before_server_hello__skipped(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes ch1 = {0}, server = {0}, ch2 = {0};
    char sni[256];
    hello_record(&ch1, HOST);
    ccs(&server);
    server_hello(&server, true);
    ccs(&server);
    hello_record(&ch2, "evil.example");
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    cp_tls_watch_server(&w, server.b, server.n);
    assert_false(cp_tls_watch_done(&w));
    assert_int_equal(client(&w, &ch2, sni), CP_EGRESS_SNI_MISMATCH);
    cp_tls_watch_dispose(&w);
}

static void test_egress_watch__second_hello_too_big__refused(void **state)
{
    struct cp_tls_watch w = {0};
    struct bytes ch1 = {0}, big = {0};
    char sni[256];
    hello_record(&ch1, HOST);
    put(&big, "\x16\x03\x03\x00\x04\x01\x01\x00\x00", 9); /* promises 64 KiB */
    assert_int_equal(client(&w, &ch1, sni), CP_EGRESS_ALLOWED);
    assert_int_equal(client(&w, &big, sni), CP_EGRESS_HELLO_TOO_BIG);
    cp_tls_watch_dispose(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_watch__retry_then_another_name__refused),
        cmocka_unit_test(test_egress_watch__retry_then_same_name__allowed_until_server_hello),
        cmocka_unit_test(test_egress_watch__second_hello_with_the_first__judged),
        cmocka_unit_test(test_egress_watch__second_hello_byte_by_byte__refused_at_its_last_byte),
        cmocka_unit_test(test_egress_watch__record_inside_a_hello__not_tls),
        cmocka_unit_test(test_egress_watch__other_client_messages_before_server_hello__not_tls),
        cmocka_unit_test(test_egress_watch__early_data_and_ccs__pass),
        cmocka_unit_test(test_egress_watch__server_not_tls__watched_to_the_end),
        cmocka_unit_test(test_egress_watch__server_records_before_server_hello__skipped),
        cmocka_unit_test(test_egress_watch__second_hello_too_big__refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
