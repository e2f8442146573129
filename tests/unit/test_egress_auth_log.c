/* Unit tests for the per-box credential and the decision log and its reader. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "egress/policy/box-credential.h"
#include "egress/policy/elog.h"
#include "src/base/digest.h"
#include "src/base/util.h"

#define SECRET "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_egress_auth__sha256__fips_vectors(void **state)
{
    uint8_t d[32];
    char h[65];
    cp_sha256("abc", 3, d);
    hex(d, 32, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char a[1000];
    memset(a, 'a', sizeof(a));
    cp_sha256(a, sizeof(a), d);
    hex(d, 32, h);
    assert_string_equal(h, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

static void test_egress_auth__box_token__hmac_sha256_hex(void **state)
{
    char token[CP_EGRESS_TOKEN_CHARS + 1];
    assert_int_equal(cp_egress_box_token(SECRET, "box-1", token, NULL), 0);
    assert_string_equal(token, "43ce08cf8b908fbeca2f8efe0b6ac8aa078d92cf688d1557ba5f09b3d7bf71e4");
    assert_true(cp_egress_box_token("short", "box-1", token, NULL) < 0);
    assert_true(cp_egress_box_token(SECRET, "box 1", token, NULL) < 0);
}

static char *basic(const char *user_pass)
{
    static const char *b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(user_pass);
    char *out = xcalloc(1, 6 + (n + 2) / 3 * 4 + 1);
    memcpy(out, "Basic ", 6);
    char *o = out + 6;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)(unsigned char)user_pass[i] << 16;
        if (i + 1 < n)
            w |= (uint32_t)(unsigned char)user_pass[i + 1] << 8;
        if (i + 2 < n)
            w |= (unsigned char)user_pass[i + 2];
        *o++ = b64[w >> 18];
        *o++ = b64[(w >> 12) & 63];
        *o++ = i + 1 < n ? b64[(w >> 6) & 63] : '=';
        *o++ = i + 2 < n ? b64[w & 63] : '=';
    }
    return out;
}

static void test_egress_auth__right_token__accepted_and_box_named(void **state)
{
    char token[CP_EGRESS_TOKEN_CHARS + 1], box[CP_EGRESS_BOX_MAX + 1];
    cp_egress_box_token(SECRET, "box-1", token, NULL);
    cleanup_free char *up = xasprintf("box-1:%s", token);
    cleanup_free char *h = basic(up);
    assert_true(cp_egress_auth_check(SECRET, h, box));
    assert_string_equal(box, "box-1");
}

static void test_egress_auth__other_boxs_token__refused(void **state)
{
    char token[CP_EGRESS_TOKEN_CHARS + 1], box[CP_EGRESS_BOX_MAX + 1];
    cp_egress_box_token(SECRET, "box-1", token, NULL);
    cleanup_free char *up = xasprintf("box-2:%s", token);
    cleanup_free char *h = basic(up);
    assert_false(cp_egress_auth_check(SECRET, h, box));
    assert_string_equal(box, "box-2"); /* still named, so the refusal is told to it */
}

static void test_egress_auth__missing_or_malformed__refused_with_secret(void **state)
{
    char box[CP_EGRESS_BOX_MAX + 1];
    assert_false(cp_egress_auth_check(SECRET, "", box));
    assert_false(cp_egress_auth_check(SECRET, "Bearer abc", box));
    assert_false(cp_egress_auth_check(SECRET, "Basic !!!!", box));
    assert_false(cp_egress_auth_check(SECRET, "Basic Ym94", box)); /* "box", no colon */
    assert_true(cp_egress_auth_check(NULL, "", box));
    cleanup_free char *h = basic("box-9:anything");
    assert_true(cp_egress_auth_check(NULL, h, box));
    assert_string_equal(box, "box-9");
}

static void test_egress_log__hostile_host__one_escaped_line(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct cp_egress_decision d = {.time = 0,
                                   .box = "b1",
                                   .host = "x\"}\n{\"box\":\"b1",
                                   .port = 443,
                                   .reason = CP_EGRESS_NOT_LISTED};
    assert_int_equal(cp_egress_log_write(f, &d, NULL), 0);
    fclose(f);
    assert_non_null(strstr(text, "\"time\":\"1970-01-01T00:00:00Z\""));
    assert_non_null(strstr(text, "\"verdict\":\"refused\",\"reason\":\"not-listed\""));
    assert_ptr_equal(strchr(text, '\n'), text + len - 1);
    free(text);
}

static void test_egress_log__refused_hosts__per_box_distinct_in_order(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct cp_egress_decision ds[] = {
        {.box = "b1", .host = "one.example", .port = 443, .reason = CP_EGRESS_NOT_LISTED},
        {.box = "b2", .host = "two.example", .port = 443, .reason = CP_EGRESS_NOT_LISTED},
        {.box = "b1", .host = "ok.example", .port = 443, .reason = CP_EGRESS_ALLOWED},
        {.box = "b1", .host = "dns.example", .port = 443, .reason = CP_EGRESS_DNS},
        {.box = "b1", .host = "three.example", .port = 80, .reason = CP_EGRESS_PORT},
        {.box = "b1", .host = "one.example", .port = 443, .reason = CP_EGRESS_NOT_LISTED},
    };
    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
        cp_egress_log_write(f, &ds[i], NULL);
    fputs("conch-place: some other line\n2026-01-01T00:00:00Z {not json\n", f);
    fclose(f);
    cleanup_strv char **hosts = NULL;
    assert_int_equal(cp_egress_log_refused_text(text, len, "b1", &hosts, NULL), 0);
    assert_int_equal(cp_strv_len(hosts), 2);
    assert_string_equal(hosts[0], "one.example");
    assert_string_equal(hosts[1], "three.example");

    char path[] = "/tmp/conch-test-elog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(cp_write_all(fd, text, len), 0);
    close(fd);
    cleanup_strv char **from_file = NULL;
    assert_int_equal(cp_egress_log_refused(path, "b2", &from_file, NULL), 0);
    assert_int_equal(cp_strv_len(from_file), 1);
    assert_string_equal(from_file[0], "two.example");
    unlink(path);
    free(text);
}

static void test_egress_log__engine_frame_prefix__still_read(void **state)
{
    /* An unsplit engine log frame: 8 header bytes, one of which is '{'. */
    static const char line[] = "\x02\0\0\0\0\0\0{"
                               "{\"box\":\"b1\",\"host\":\"x.example\",\"verdict\":\"refused\"}\n";
    cleanup_strv char **hosts = NULL;
    assert_int_equal(cp_egress_log_refused_text(line, sizeof(line) - 1, "b1", &hosts, NULL), 0);
    assert_int_equal(cp_strv_len(hosts), 1);
    assert_string_equal(hosts[0], "x.example");
}

static void test_egress_log__sni_mismatch__hint_names_the_hellos_server(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct cp_egress_decision ds[] = {
        {.box = "b1",
         .host = "registry.example",
         .port = 443,
         .reason = CP_EGRESS_SNI_MISMATCH,
         .sni = "fronted.example",
         .addr = "203.0.113.9"},
        {.box = "b1", .host = "registry.example", .port = 443, .reason = CP_EGRESS_NOT_TLS},
        {.box = "b1",
         .host = "up.example",
         .port = 443,
         .reason = CP_EGRESS_UPSTREAM,
         .via = "proxy.corp:3128"},
    };
    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
        assert_int_equal(cp_egress_log_write(f, &ds[i], NULL), 0);
    fclose(f);
    assert_non_null(strstr(text, "\"sni\":\"fronted.example\""));
    assert_non_null(strstr(text, "\"reason\":\"sni-mismatch\""));
    assert_non_null(strstr(text, "\"via\":\"proxy.corp:3128\""));
    cleanup_strv char **hosts = NULL;
    assert_int_equal(cp_egress_log_refused_text(text, len, "b1", &hosts, NULL), 0);
    /* The fronted name (what the box was after), the CONNECT host for not-tls, and nothing for
     * the upstream's failure, which no allow-list change would mend. */
    assert_int_equal(cp_strv_len(hosts), 2);
    assert_string_equal(hosts[0], "fronted.example");
    assert_string_equal(hosts[1], "registry.example");
    free(text);
}

static void test_egress_log__refusals__method_path_reason(void **state)
{
    const char *text =
        "junk\n"
        "{\"box\":\"b1\",\"host\":\"reg.example\",\"verdict\":\"allowed\",\"reason\":"
        "\"allowed\",\"method\":\"GET\",\"path\":\"/a\"}\n"
        "{\"box\":\"b1\",\"host\":\"reg.example\",\"verdict\":\"refused\",\"reason\":"
        "\"method\",\"method\":\"PUT\",\"path\":\"/pkg\"}\n"
        "{\"box\":\"b1\",\"host\":\"reg.example\",\"verdict\":\"refused\",\"reason\":"
        "\"method\",\"method\":\"PUT\",\"path\":\"/pkg\"}\n"
        "{\"box\":\"b2\",\"host\":\"x.example\",\"verdict\":\"refused\",\"reason\":"
        "\"not-listed\"}\n"
        "{\"box\":\"b1\",\"host\":\"evil.example\",\"verdict\":\"refused\",\"reason\":"
        "\"not-listed\"}\n"
        "{\"box\":\"b1\",\"host\":\"self.example\",\"verdict\":\"failed\",\"reason\":"
        "\"upstream-cert\",\"method\":\"GET\",\"path\":\"/\"}\n"
        "{\"box\":\"b1\",\"host\":\"gone.example\",\"verdict\":\"failed\",\"reason\":"
        "\"dns\"}\n";
    struct cp_egress_log_refusal *r = NULL;
    size_t n = 0;
    assert_int_equal(cp_egress_log_refusals_text(text, strlen(text), "b1", &r, &n, NULL), 0);
    assert_int_equal(n, 3);
    assert_string_equal(r[0].host, "reg.example");
    assert_string_equal(r[0].method, "PUT");
    assert_string_equal(r[0].path, "/pkg");
    assert_string_equal(r[0].reason, "method");
    assert_string_equal(r[1].host, "evil.example");
    assert_null(r[1].method);
    assert_null(r[1].path);
    assert_string_equal(r[2].reason, "upstream-cert");
    cp_egress_log_refusals_free(r, n);
}

static void test_egress_log__method_path__printable_and_cut(void **state)
{
    char path[400];
    memset(path, 'p', sizeof(path));
    path[0] = '/';
    path[1] = '\x01';
    path[sizeof(path) - 1] = '\0';
    struct cp_egress_decision d = {.box = "b",
                                   .host = "h.example",
                                   .port = 443,
                                   .reason = CP_EGRESS_METHOD,
                                   .method = "PUT",
                                   .path = path};
    char buf[2048] = {0};
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    assert_int_equal(cp_egress_log_write(f, &d, NULL), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"method\":\"PUT\""));
    assert_non_null(strstr(buf, "\"path\":\"/?ppp"));
    const char *p = strstr(buf, "\"path\":\"") + 8;
    assert_int_equal(strcspn(p, "\""), CP_EGRESS_LOG_PATH_MAX);
    assert_non_null(strstr(buf, "\"verdict\":\"refused\",\"reason\":\"method\",\"status\":403"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_log__refusals__method_path_reason),
        cmocka_unit_test(test_egress_log__method_path__printable_and_cut),
        cmocka_unit_test(test_egress_auth__sha256__fips_vectors),
        cmocka_unit_test(test_egress_auth__box_token__hmac_sha256_hex),
        cmocka_unit_test(test_egress_auth__right_token__accepted_and_box_named),
        cmocka_unit_test(test_egress_auth__other_boxs_token__refused),
        cmocka_unit_test(test_egress_auth__missing_or_malformed__refused_with_secret),
        cmocka_unit_test(test_egress_log__hostile_host__one_escaped_line),
        cmocka_unit_test(test_egress_log__refused_hosts__per_box_distinct_in_order),
        cmocka_unit_test(test_egress_log__engine_frame_prefix__still_read),
        cmocka_unit_test(test_egress_log__sni_mismatch__hint_names_the_hellos_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
