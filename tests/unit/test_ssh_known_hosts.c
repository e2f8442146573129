/* Unit tests for the known_hosts check: plain and hashed names, ports, markers, verdicts. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "places/ssh/known-hosts.h"
#include "src/base/digest.h"
#include "src/base/util.h"

/* Two ed25519 keys and one ECDSA key, made with ssh-keygen for these tests. */
#define K1 "AAAAC3NzaC1lZDI1NTE5AAAAIDQHpkz6gbP4yt++iXeb6x6m+wqfmqu8FX5L0RhLi7cZ"
#define K2 "AAAAC3NzaC1lZDI1NTE5AAAAIJ1rDwFAC4YsCFJNKVOHLZCXfrKRKbInPGiBXA7LRKaP"
#define K3                                                                                         \
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBDbsaTvVZuvC9tSi/aB45YTfpCH7qFaumA/"      \
    "+KmB2qY8edac6+zhNYrV+SLm0n0ydpTHbp0WTANNvkWzWZcW2gyg="
/* ssh-keygen -H of "box.example K1" and "[box.example]:2222 K2". */
#define H1 "|1|+ERsR1SI+QJp5l8LpPRzDpmzMnQ=|8Jr1yiBzCvbQARz3QplRfR1V8AI="
#define H2 "|1|k6kDeTd3/LQs3LA5jIH7BCDHXNM=|9sZN18CE/TLAeBLmj+wqwBFh4Oc="

/* The verdict for the server key key_b64 offered by name, against text. */
static int check(const char *text, const char *name, const char *key_b64, struct cp_kh_verdict *v,
                 cp_error_t *err)
{
    cleanup_free unsigned char *key = NULL;
    size_t key_len = 0;
    assert_int_equal(cp_base64_decode(key_b64, strlen(key_b64), &key, &key_len), 0);
    memset(v, 0, sizeof(*v));
    return cp_known_hosts_scan(text, strlen(text), "kh", name, key, key_len, v, err);
}

static void test_known_hosts__plain_name__match(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("# c\n\nother " K2 "\nbox.example,10.0.0.1 ssh-ed25519 " K1 " me\n",
                           "box.example", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_MATCH);
    assert_string_equal(v.where, "kh:4");
}

static void test_known_hosts__no_line__unknown_with_hint(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("other.example ssh-ed25519 " K1 "\n", "box.example", K1, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_UNKNOWN);
    assert_int_equal(cp_known_hosts_verdict_error(&v, "box", "box.example", &err),
                     CP_ERR_NOT_FOUND);
    assert_non_null(strstr(err->hint, "from a terminal (`ssh box`)"));
}

static void test_known_hosts__other_key_same_type__changed_refused(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("box.example ssh-ed25519 " K1 "\n", "box.example", K2, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_CHANGED);
    assert_int_equal(cp_known_hosts_verdict_error(&v, "box", "box.example", &err), CP_ERR_DENIED);
    assert_non_null(strstr(err->msg, "CHANGED"));
    assert_non_null(strstr(err->msg, "kh:1"));
}

static void test_known_hosts__other_key_type_only__unknown_with_types(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("box.example ecdsa-sha2-nistp256 " K3 "\n", "box.example", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_UNKNOWN);
    assert_string_equal(v.known_types, "ecdsa-sha2-nistp256");
}

static void test_known_hosts__second_key_matches__match_wins_over_changed(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("box.example ssh-ed25519 " K2 "\nbox.example ssh-ed25519 " K1 "\n",
                           "box.example", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_MATCH);
}

static void test_known_hosts__hashed_name__match(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check(H1 " ssh-ed25519 " K1 "\n", "box.example", K1, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_MATCH);
    assert_int_equal(check(H1 " ssh-ed25519 " K1 "\n", "box.examplf", K1, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_UNKNOWN);
}

static void test_known_hosts__hashed_bracket_port__only_that_port(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *name = cp_known_hosts_name("box.example", 2222);
    assert_string_equal(name, "[box.example]:2222");
    assert_int_equal(check(H2 " ssh-ed25519 " K2 "\n", name, K2, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_MATCH);
    assert_int_equal(check(H2 " ssh-ed25519 " K2 "\n", "box.example", K2, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_UNKNOWN);
}

static void test_known_hosts__port_22_entry__not_trusted_for_2222(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("box.example ssh-ed25519 " K1 "\n", "[box.example]:2222", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_UNKNOWN);
}

static void test_known_hosts__negated_pattern__no_match(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        check("*.example,!box.example ssh-ed25519 " K1 "\n", "box.example", K1, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_UNKNOWN);
    assert_int_equal(check("*.EXAMPLE ssh-ed25519 " K1 "\n", "box.example", K1, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_MATCH);
}

static void test_known_hosts__revoked_key__refused_even_if_listed(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("box.example ssh-ed25519 " K1 "\n@revoked * ssh-ed25519 " K1 "\n",
                           "box.example", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_REVOKED);
    assert_string_equal(v.where, "kh:2");
    assert_int_equal(cp_known_hosts_verdict_error(&v, "box", "box.example", &err), CP_ERR_DENIED);
}

static void test_known_hosts__revoked_other_key__match_stands(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("@revoked * ssh-ed25519 " K2 "\nbox.example ssh-ed25519 " K1 "\n",
                           "box.example", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_MATCH);
}

static void test_known_hosts__cert_authority_only__refused(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        check("@cert-authority *.example ssh-ed25519 " K2 "\n", "box.example", K1, &v, &err), 0);
    assert_int_equal(v.result, CP_KH_CA_ONLY);
    assert_int_equal(cp_known_hosts_verdict_error(&v, "box", "box.example", &err), CP_ERR_UNSAFE);
    assert_non_null(strstr(err->msg, "kh:1: only a @cert-authority line"));
}

static void test_known_hosts__cert_authority_key_as_host_key__not_a_match(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        check("@cert-authority *.example ssh-ed25519 " K1 "\n", "box.example", K1, &v, &err), 0);
    assert_int_not_equal(v.result, CP_KH_MATCH);
}

static void test_known_hosts__unknown_marker__refused(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_true(check("@revoke * ssh-ed25519 " K1 "\n", "box.example", K1, &v, &err) < 0);
    assert_non_null(strstr(err->msg, "kh:1: unknown marker"));
}

static void test_known_hosts__garbage_lines__skipped_not_fatal(void **state)
{
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(check("box.example 1024 35 1234567\nbox.example ssh-ed25519 !!!\n"
                           "box.example sk-ssh-ed25519@openssh.com AAAA\n"
                           "box.example ssh-ed25519 " K1 "\r\n",
                           "box.example", K1, &v, &err),
                     0);
    assert_int_equal(v.result, CP_KH_MATCH);
}

static void test_known_hosts__world_writable_file__refused(void **state)
{
    char dir[] = "/tmp/conch-test-kh-XXXXXX";
    assert_non_null(mkdtemp(dir));
    cleanup_free char *path = xasprintf("%s/known_hosts", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("box.example ssh-ed25519 " K1 "\n", fp);
    fclose(fp);
    chmod(path, 0666);
    char *files[] = {"none", "/nonexistent/known_hosts", path, NULL};
    cleanup_free unsigned char *key = NULL;
    size_t key_len = 0;
    assert_int_equal(cp_base64_decode(K1, strlen(K1), &key, &key_len), 0);
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_known_hosts_check(files, "box.example", key, key_len, &v, &err),
                     CP_ERR_UNSAFE);
    chmod(path, 0644);
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(cp_known_hosts_check(files, "box.example", key, key_len, &v, &err2), 0);
    assert_int_equal(v.result, CP_KH_MATCH);
    unlink(path);
    rmdir(dir);
}

static void hex(const uint8_t *d, char *out)
{
    for (int i = 0; i < CP_SHA1_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_ssh_sha1__rfc_vectors__match(void **state)
{
    uint8_t d[CP_SHA1_LEN];
    char h[41];
    cp_sha1("abc", 3, d);
    hex(d, h);
    assert_string_equal(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    cp_sha1(two, strlen(two), d);
    hex(d, h);
    assert_string_equal(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    /* RFC 2202 test case 2 */
    cp_hmac_sha1("Jefe", 4, "what do ya want for nothing?", 28, d);
    hex(d, h);
    assert_string_equal(h, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
    /* RFC 2202 test case 6: a key longer than a block */
    uint8_t key[80];
    memset(key, 0xaa, sizeof(key));
    const char *msg = "Test Using Larger Than Block-Size Key - Hash Key First";
    cp_hmac_sha1(key, sizeof(key), msg, strlen(msg), d);
    hex(d, h);
    assert_string_equal(h, "aa4ae5e15272d00e95705637ce8a3b55ed402112");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_hosts__plain_name__match),
        cmocka_unit_test(test_known_hosts__no_line__unknown_with_hint),
        cmocka_unit_test(test_known_hosts__other_key_same_type__changed_refused),
        cmocka_unit_test(test_known_hosts__other_key_type_only__unknown_with_types),
        cmocka_unit_test(test_known_hosts__second_key_matches__match_wins_over_changed),
        cmocka_unit_test(test_known_hosts__hashed_name__match),
        cmocka_unit_test(test_known_hosts__hashed_bracket_port__only_that_port),
        cmocka_unit_test(test_known_hosts__port_22_entry__not_trusted_for_2222),
        cmocka_unit_test(test_known_hosts__negated_pattern__no_match),
        cmocka_unit_test(test_known_hosts__revoked_key__refused_even_if_listed),
        cmocka_unit_test(test_known_hosts__revoked_other_key__match_stands),
        cmocka_unit_test(test_known_hosts__cert_authority_only__refused),
        cmocka_unit_test(test_known_hosts__cert_authority_key_as_host_key__not_a_match),
        cmocka_unit_test(test_known_hosts__unknown_marker__refused),
        cmocka_unit_test(test_known_hosts__garbage_lines__skipped_not_fatal),
        cmocka_unit_test(test_known_hosts__world_writable_file__refused),
        cmocka_unit_test(test_ssh_sha1__rfc_vectors__match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
