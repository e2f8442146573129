/* Unit tests for the scrubber (egress/sign-ins/scrub.h): each form an echo writes a sign-in in is
 * masked, wherever the stream is cut; the answer keeps its length; a short form alone and
 * ordinary words are left; what is held back is only what could still begin a form. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "egress/sign-ins/scrub.h"
#include "src/base/buf.h"
#include "src/base/digest.h"
#include "src/base/util.h"

#define TOKEN "npm_S3cretT0ken/with+signs="

struct sink {
    char out[8192];
    size_t len;
};

static int to_sink(void *ctx, const char *data, size_t len)
{
    struct sink *s = ctx;
    assert_true(s->len + len <= sizeof(s->out));
    memcpy(s->out + s->len, data, len);
    s->len += len;
    return 0;
}

/* Streams text through a scrubber of value, cut at every point (and a byte at a time), and
 * checks each result equals the whole text masked at once. Returns the masked text. */
static char *stream_every_cut(const char *value, const char *text)
{
    size_t n = strlen(text);
    struct cp_scrub whole;
    cp_scrub_init(&whole);
    cp_scrub_add_authorization(&whole, value);
    char *want = xstrdup(text);
    cp_scrub_mask(&whole, want, n);
    cp_scrub_dispose(&whole);
    for (size_t cut = 0; cut <= n + 1; cut++) {
        struct cp_scrub s;
        cp_scrub_init(&s);
        cp_scrub_add_authorization(&s, value);
        struct sink k = {.len = 0};
        if (cut <= n) {
            assert_int_equal(cp_scrub_feed(&s, text, cut, to_sink, &k), 0);
            assert_int_equal(cp_scrub_feed(&s, text + cut, n - cut, to_sink, &k), 0);
        } else {
            for (size_t i = 0; i < n; i++)
                assert_int_equal(cp_scrub_feed(&s, text + i, 1, to_sink, &k), 0);
        }
        assert_int_equal(cp_scrub_finish(&s, to_sink, &k), 0);
        assert_int_equal(k.len, n);
        if (memcmp(k.out, want, n) != 0)
            fail_msg("cut %zu: %.*s", cut, (int)n, k.out);
        cp_scrub_dispose(&s);
    }
    return want;
}

static void test_scrub__bearer_echo__masked_at_every_cut(void **state)
{
    const char *text = "{\"headers\":{\"authorization\":\"Bearer " TOKEN "\"},\"ok\":1}";
    char *got = stream_every_cut("Bearer " TOKEN, text);
    assert_null(strstr(got, "S3cret"));
    assert_non_null(strstr(got, "\"ok\":1"));
    assert_int_equal(strlen(got), strlen(text));
    free(got);
}

static void test_scrub__token_escaped_forms__masked(void **state)
{
    static const char *echoes[] = {
        "a npm_S3cretT0ken%2Fwith%2Bsigns%3D b",        /* percent-encoded, upper */
        "a npm_S3cretT0ken%2fwith%2bsigns%3d b",        /* lower */
        "a npm_S3cretT0ken/with%2Bsigns%3D b",          /* the slash kept */
        "a npm_S3cretT0ken\\/with+signs= b",            /* JSON-escaped */
        "a Bearer+npm_S3cretT0ken%2Fwith%2Bsigns%3D b", /* form-encoded whole value */
        "a Bearer%20npm_S3cretT0ken%2Fwith%2Bsigns%3D b",
    };
    for (size_t i = 0; i < ARRAY_SIZE(echoes); i++) {
        char *got = stream_every_cut("Bearer " TOKEN, echoes[i]);
        if (strstr(got, "S3cret") != NULL)
            fail_msg("echo %zu not masked: %s", i, got);
        assert_memory_equal(got, "a ", 2);
        free(got);
    }
}

static void test_scrub__basic__pair_and_password_masked(void **state)
{
    char *b64 = cp_base64_encode("tester:Pa55word-long", strlen("tester:Pa55word-long"));
    cleanup_free char *value = xasprintf("Basic %s", b64);
    cleanup_free char *text =
        xasprintf("echo %s | user tester:Pa55word-long | pw Pa55word-long | %s", value, b64);
    char *got = stream_every_cut(value, text);
    assert_null(strstr(got, "Pa55"));
    assert_null(strstr(got, b64));
    assert_non_null(strstr(got, "echo "));
    free(got);
    free(b64);
}

/* A form of fewer than CP_SCRUB_MIN bytes alone would mask ordinary words: only the longer
 * forms it is part of are searched. */
static void test_scrub__short_password__only_inside_longer_forms(void **state)
{
    char *b64 = cp_base64_encode("someone:abc", 11);
    cleanup_free char *value = xasprintf("Basic %s", b64);
    cleanup_free char *text = xasprintf("abc is a word; someone:abc is not; %s neither", b64);
    char *got = stream_every_cut(value, text);
    assert_memory_equal(got, "abc is a word", 13);
    assert_null(strstr(got, "someone:abc"));
    assert_null(strstr(got, b64));
    free(got);
    free(b64);
}

static void test_scrub__no_forms__nothing_held(void **state)
{
    struct cp_scrub s;
    cp_scrub_init(&s);
    assert_false(cp_scrub_active(&s));
    struct sink k = {.len = 0};
    assert_int_equal(cp_scrub_feed(&s, "plain", 5, to_sink, &k), 0);
    assert_int_equal(k.len, 5); /* nothing to search for: nothing held back */
    cp_scrub_dispose(&s);
}

/* Only longest - 1 bytes wait for more, so a stream is not held up. */
static void test_scrub__held_back__at_most_longest_minus_one(void **state)
{
    struct cp_scrub s;
    cp_scrub_init(&s);
    cp_scrub_add_authorization(&s, "Bearer " TOKEN);
    assert_true(cp_scrub_active(&s));
    char big[4096];
    memset(big, 'z', sizeof(big));
    struct sink k = {.len = 0};
    assert_int_equal(cp_scrub_feed(&s, big, sizeof(big), to_sink, &k), 0);
    assert_int_equal(k.len, sizeof(big) - (s.longest - 1));
    assert_int_equal(cp_scrub_finish(&s, to_sink, &k), 0);
    assert_int_equal(k.len, sizeof(big));
    cp_scrub_dispose(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scrub__bearer_echo__masked_at_every_cut),
        cmocka_unit_test(test_scrub__token_escaped_forms__masked),
        cmocka_unit_test(test_scrub__basic__pair_and_password_masked),
        cmocka_unit_test(test_scrub__short_password__only_inside_longer_forms),
        cmocka_unit_test(test_scrub__no_forms__nothing_held),
        cmocka_unit_test(test_scrub__held_back__at_most_longest_minus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
