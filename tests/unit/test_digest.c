/* Unit tests for the ground's digests and codecs (libcrypto underneath): known vectors, and
 * base64 that refuses what is not base64 rather than guessing. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/base/digest.h"

static void test_digest__hmac_sha256__rfc4231_case2(void **state)
{
    (void)state;
    uint8_t mac[CP_SHA256_LEN];
    char hex[2 * CP_SHA256_LEN + 1];
    cp_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, mac);
    cp_hex(mac, sizeof(mac), hex);
    assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

static void test_digest__base64__round_trips_every_length(void **state)
{
    (void)state;
    unsigned char data[40];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 37 + 200);
    for (size_t n = 0; n <= sizeof(data); n++) {
        char *text = cp_base64_encode(data, n);
        unsigned char *back = NULL;
        size_t back_len = 0;
        assert_int_equal(cp_base64_decode(text, strlen(text), &back, &back_len), 0);
        assert_int_equal(back_len, n);
        assert_memory_equal(back, data, n);
        free(back);
        free(text);
    }
}

static void test_digest__base64_unpadded__decodes(void **state)
{
    (void)state;
    unsigned char *out = NULL;
    size_t len = 0;
    assert_int_equal(cp_base64_decode("Ym94OnRv", 8, &out, &len), 0);
    assert_int_equal(len, 6);
    assert_string_equal((char *)out, "box:to");
    free(out);
    assert_int_equal(cp_base64_decode("Ym94OnQ", 7, &out, &len), 0);
    assert_string_equal((char *)out, "box:t");
    free(out);
}

static void test_digest__base64_malformed__refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"Ym94 OnRv", "Ym9=OnRv", "Ym94OnR", "Y", "Ym94Om\n=", "Ym9-"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned char *out = NULL;
        size_t len = 0;
        int rc = cp_base64_decode(bad[i], strlen(bad[i]), &out, &len);
        if (i == 2) { /* seven characters: a valid unpadded form */
            assert_int_equal(rc, 0);
            free(out);
            continue;
        }
        assert_int_equal(rc, -1);
        assert_null(out);
    }
}

static void test_digest__folder_key__stable_fnv1a(void **state)
{
    (void)state;
    char *k = cp_folder_key("/work/main");
    char *again = cp_folder_key("/work/main");
    char *other = cp_folder_key("/work/main2");
    assert_int_equal(strlen(k), 16);
    assert_string_equal(k, again);
    assert_string_not_equal(k, other);
    free(k);
    free(again);
    free(other);
    char *empty = cp_folder_key("");
    assert_string_equal(empty, "14650fb0739d0383"); /* the basis every copy was named with */
    free(empty);
}

/* The keeper's socket name is a record of fields: NULL is "-", each field ends in 0xff. */
static void test_digest__fnv_field__record_values_kept(void **state)
{
    (void)state;
    uint64_t h = CP_FNV_BASIS;
    h = cp_fnv_field(h, "box");
    h = cp_fnv_field(h, NULL);
    h = cp_fnv_field(h, "me");
    h = cp_fnv_field(h, "-");
    assert_true(h == 0xa851916128191f9cULL);
    assert_true(cp_fnv_field(cp_fnv_field(CP_FNV_BASIS, "ab"), "c") !=
                cp_fnv_field(cp_fnv_field(CP_FNV_BASIS, "a"), "bc"));
    char *k = cp_folder_key("/work/main");
    assert_string_equal(k, "f78332a24f6865b3");
    free(k);
    assert_true(cp_fnv(CP_FNV_BASIS, "", 0) == CP_FNV_BASIS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest__hmac_sha256__rfc4231_case2),
        cmocka_unit_test(test_digest__base64__round_trips_every_length),
        cmocka_unit_test(test_digest__base64_unpadded__decodes),
        cmocka_unit_test(test_digest__base64_malformed__refused),
        cmocka_unit_test(test_digest__folder_key__stable_fnv1a),
        cmocka_unit_test(test_digest__fnv_field__record_values_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
