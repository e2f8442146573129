/* Unit tests for the relay's ticket store: good once, for its time only, bound to what it was
 * minted for, found only by the hash of its 32 bytes; and the frames the runner reads. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "relay/frames.h"
#include "relay/tickets.h"

static char *const cmd[] = {"sh", "-c", "echo hi", NULL};

#define S(x) ((int64_t)(x)*1000) /* the store's clock is in milliseconds */

/* The hash the door computes from a ticket's 64 hex digits. */
static void hash_of(const char *hex, uint8_t out[CP_SHA256_LEN])
{
    uint8_t raw[CP_RELAY_TICKET_LEN];
    for (size_t i = 0; i < sizeof(raw); i++) {
        unsigned b = 0;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
        raw[i] = (uint8_t)b;
    }
    cp_sha256(raw, sizeof(raw), out);
}

static void mint(struct cp_tickets *t, long ttl, int64_t now, char hex[CP_RELAY_TICKET_HEX + 1],
                 uint8_t hash[CP_SHA256_LEN])
{
    cp_error_t err = NULL;
    assert_int_equal(cp_tickets_mint(t, cmd, "container", "/work/f", ttl, now, hex, &err), 0);
    hash_of(hex, hash);
}

static void test_relay_tickets__minted__is_64_hex_and_buys_its_command_once(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char hex[CP_RELAY_TICKET_HEX + 1];
    uint8_t h[CP_SHA256_LEN];
    mint(t, 60, S(100), hex, h);
    assert_int_equal(strlen(hex), CP_RELAY_TICKET_HEX);
    assert_int_equal(strspn(hex, "0123456789abcdef"), CP_RELAY_TICKET_HEX);
    struct cp_ticket *k = NULL;
    assert_int_equal(cp_tickets_take(t, h, S(101), &k), CP_TICKET_GOOD);
    assert_non_null(k);
    assert_string_equal(k->argv[0], "sh");
    assert_string_equal(k->argv[2], "echo hi");
    assert_null(k->argv[3]);
    assert_string_equal(k->place, "container");
    assert_string_equal(k->workdir, "/work/f");
    cp_ticket_free(k);
    assert_int_equal(cp_tickets_take(t, h, S(102), &k), CP_TICKET_USED);
    assert_null(k);
    cp_tickets_free(t);
}

static void test_relay_tickets__two_mints__are_different(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char a[CP_RELAY_TICKET_HEX + 1], b[CP_RELAY_TICKET_HEX + 1];
    uint8_t ha[CP_SHA256_LEN], hb[CP_SHA256_LEN];
    mint(t, 60, S(100), a, ha);
    mint(t, 60, S(100), b, hb);
    assert_string_not_equal(a, b);
    assert_int_equal(cp_tickets_live(t, S(100)), 2);
    cp_tickets_free(t);
}

static void test_relay_tickets__past_its_time__is_expired(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char hex[CP_RELAY_TICKET_HEX + 1];
    uint8_t h[CP_SHA256_LEN];
    mint(t, 5, S(100), hex, h);
    struct cp_ticket *k = NULL;
    assert_int_equal(cp_tickets_take(t, h, S(105), &k), CP_TICKET_EXPIRED);
    assert_null(k);
    /* long after, it is forgotten: unknown */
    assert_int_equal(cp_tickets_take(t, h, S(105 + 2 * CP_TICKET_TTL_MAX), &k), CP_TICKET_UNKNOWN);
    cp_tickets_free(t);
}

static void test_relay_tickets__one_second__is_good_for_a_whole_second(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char hex[CP_RELAY_TICKET_HEX + 1];
    uint8_t h[CP_SHA256_LEN];
    /* Minted late in a second: a clock of whole seconds would end it 0.3 s later. */
    mint(t, 1, S(100) + 700, hex, h);
    struct cp_ticket *k = NULL;
    assert_int_equal(cp_tickets_take(t, h, S(101) + 600, &k), CP_TICKET_GOOD);
    cp_ticket_free(k);
    mint(t, 1, S(100) + 700, hex, h);
    assert_int_equal(cp_tickets_take(t, h, S(101) + 700, &k), CP_TICKET_EXPIRED);
    assert_null(k);
    cp_tickets_free(t);
}

static int64_t clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_relay_tickets__door_clock__is_boottime_in_milliseconds(void **state)
{
    (void)state;
    /* CLOCK_BOOTTIME in milliseconds: each reading lies between the boot clock's read just
     * before and just after it (however long the machine kept us between), not 1000 times off
     * nor in whole seconds. Suspended time counts towards the 30 minutes. */
    int64_t before = clock_ms(CLOCK_BOOTTIME), a = cp_tickets_now();
    int64_t after = clock_ms(CLOCK_BOOTTIME);
    assert_true(a >= before && a <= after);
    /* A clock that moves: 40 ms later (at least: nanosleep never wakes early) it read 40 more. */
    struct timespec pause = {.tv_nsec = 40 * 1000000};
    nanosleep(&pause, NULL);
    before = clock_ms(CLOCK_BOOTTIME);
    int64_t b = cp_tickets_now();
    after = clock_ms(CLOCK_BOOTTIME);
    assert_true(b >= before && b <= after && b - a >= 40);
    /* CLOCK_MONOTONIC reads the same on a computer never suspended, so the difference is told
     * only where there is one. */
    int64_t mono = clock_ms(CLOCK_MONOTONIC), boot = clock_ms(CLOCK_BOOTTIME);
    int64_t now = cp_tickets_now();
    if (boot - mono > 1000)
        assert_true(now - mono > 1000);
}

static void test_relay_tickets__forged_or_plain_hex__is_unknown(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char hex[CP_RELAY_TICKET_HEX + 1];
    uint8_t h[CP_SHA256_LEN];
    mint(t, 60, S(100), hex, h);
    struct cp_ticket *k = NULL;
    uint8_t forged[CP_SHA256_LEN];
    memcpy(forged, h, sizeof(forged));
    forged[31] ^= 1;
    assert_int_equal(cp_tickets_take(t, forged, S(101), &k), CP_TICKET_UNKNOWN);
    /* the store keeps the hash, not the ticket: the raw bytes themselves are no key */
    uint8_t raw_as_key[CP_SHA256_LEN];
    for (size_t i = 0; i < sizeof(raw_as_key); i++) {
        unsigned b = 0;
        sscanf(hex + 2 * i, "%2x", &b);
        raw_as_key[i] = (uint8_t)b;
    }
    assert_int_equal(cp_tickets_take(t, raw_as_key, S(101), &k), CP_TICKET_UNKNOWN);
    uint8_t zero[CP_SHA256_LEN] = {0};
    assert_int_equal(cp_tickets_take(t, zero, S(101), &k), CP_TICKET_UNKNOWN);
    assert_int_equal(cp_tickets_take(t, h, S(101), &k), CP_TICKET_GOOD);
    cp_ticket_free(k);
    cp_tickets_free(t);
}

static void test_relay_tickets__lifetime_out_of_range__is_refused(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char hex[CP_RELAY_TICKET_HEX + 1];
    cp_error_t err = NULL;
    assert_true(cp_tickets_mint(t, cmd, "container", "/w", 0, S(100), hex, &err) < 0);
    cp_error_free(&err);
    assert_true(
        cp_tickets_mint(t, cmd, "container", "/w", CP_TICKET_TTL_MAX + 1, S(100), hex, &err) < 0);
    cp_error_free(&err);
    char *const empty[] = {NULL};
    assert_true(cp_tickets_mint(t, empty, "container", "/w", 60, S(100), hex, &err) < 0);
    cp_error_free(&err);
    assert_int_equal(cp_tickets_live(t, S(100)), 0);
    cp_tickets_free(t);
}

static void test_relay_tickets__full_store__refuses_then_reuses_spent_slots(void **state)
{
    (void)state;
    struct cp_tickets *t = cp_tickets_new();
    char hex[CP_RELAY_TICKET_HEX + 1];
    uint8_t first[CP_SHA256_LEN], h[CP_SHA256_LEN];
    mint(t, 60, S(100), hex, first);
    for (int i = 1; i < CP_TICKETS_MAX; i++)
        mint(t, 60, S(100), hex, h);
    cp_error_t err = NULL;
    assert_true(cp_tickets_mint(t, cmd, "container", "/w", 60, S(100), hex, &err) < 0);
    cp_error_free(&err);
    struct cp_ticket *k = NULL;
    assert_int_equal(cp_tickets_take(t, first, S(100), &k), CP_TICKET_GOOD);
    cp_ticket_free(k);
    mint(t, 60, S(100), hex, h); /* the spent record makes room */
    assert_int_equal(cp_tickets_live(t, S(100)), CP_TICKETS_MAX);
    cp_tickets_free(t);
}

struct got {
    char out[64], err[64];
    size_t nout, nerr;
};

static void collect(enum cp_frame_type type, const char *d, size_t len, void *ctx)
{
    struct got *g = ctx;
    char *dst = type == CP_FRAME_OUT ? g->out + g->nout : g->err + g->nerr;
    memcpy(dst, d, len);
    *(type == CP_FRAME_OUT ? &g->nout : &g->nerr) += len;
}

static void test_relay_frames__byte_by_byte__streams_apart_and_status(void **state)
{
    (void)state;
    char s[128];
    size_t n = 0;
    cp_frame_head(s + n, CP_FRAME_OUT, 3);
    memcpy(s + n + CP_FRAME_HEAD, "abc", 3);
    n += CP_FRAME_HEAD + 3;
    cp_frame_head(s + n, CP_FRAME_ERR, 2);
    memcpy(s + n + CP_FRAME_HEAD, "e\n", 2);
    n += CP_FRAME_HEAD + 2;
    cp_frame_head(s + n, CP_FRAME_EXIT, 3);
    memcpy(s + n + CP_FRAME_HEAD, "130", 3);
    n += CP_FRAME_HEAD + 3;
    struct cp_frame_reader r;
    cp_frame_reader_init(&r);
    struct got g = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(cp_frame_feed(&r, s + i, 1, collect, &g), 0);
    assert_int_equal(g.nout, 3);
    assert_memory_equal(g.out, "abc", 3);
    assert_int_equal(g.nerr, 2);
    assert_int_equal(r.status, 130);
    assert_int_equal(cp_frame_feed(&r, "O", 1, collect, &g), -1); /* nothing after the status */
}

static void test_relay_frames__bad_frames__are_malformed(void **state)
{
    (void)state;
    struct cp_frame_reader r;
    struct got g = {0};
    char h[CP_FRAME_HEAD];
    cp_frame_reader_init(&r);
    assert_int_equal(cp_frame_feed(&r, "Z\0\0\0\1z", 6, collect, &g), -1);
    cp_frame_reader_init(&r);
    cp_frame_head(h, CP_FRAME_OUT, CP_FRAME_MAX + 1);
    assert_int_equal(cp_frame_feed(&r, h, sizeof(h), collect, &g), -1);
    cp_frame_reader_init(&r);
    cp_frame_head(h, CP_FRAME_EXIT, 3);
    assert_int_equal(cp_frame_feed(&r, h, sizeof(h), collect, &g), 0);
    assert_int_equal(cp_frame_feed(&r, "256", 3, collect, &g), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relay_tickets__minted__is_64_hex_and_buys_its_command_once),
        cmocka_unit_test(test_relay_tickets__two_mints__are_different),
        cmocka_unit_test(test_relay_tickets__past_its_time__is_expired),
        cmocka_unit_test(test_relay_tickets__one_second__is_good_for_a_whole_second),
        cmocka_unit_test(test_relay_tickets__door_clock__is_boottime_in_milliseconds),
        cmocka_unit_test(test_relay_tickets__forged_or_plain_hex__is_unknown),
        cmocka_unit_test(test_relay_tickets__lifetime_out_of_range__is_refused),
        cmocka_unit_test(test_relay_tickets__full_store__refuses_then_reuses_spent_slots),
        cmocka_unit_test(test_relay_frames__byte_by_byte__streams_apart_and_status),
        cmocka_unit_test(test_relay_frames__bad_frames__are_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
