/* Unit tests for the upstream proxy's URL, NO_PROXY, the CONNECT we send and the answer we read
 * (issue 13: a company proxy, whose credential never reaches a message or the box). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "places/egress/upstream.h"

static void test_egress_upstream__url_with_credential__basic_auth(void **state)
{
    struct cp_egress_upstream u;
    assert_int_equal(
        cp_egress_upstream_parse("http://corp%5Cme:p%40ss:w@proxy.corp:3128/", NULL, &u, NULL), 0);
    assert_string_equal(u.host, "proxy.corp");
    assert_int_equal(u.port, 3128);
    /* base64("corp\\me:p@ss:w") */
    assert_string_equal(u.auth, "Basic Y29ycFxtZTpwQHNzOnc=");
    char req[1024];
    size_t n = cp_egress_upstream_request(&u, "pkgs.example.org", req, sizeof(req));
    assert_true(n > 0);
    assert_string_equal(req, "CONNECT pkgs.example.org:443 HTTP/1.1\r\n"
                             "Host: pkgs.example.org:443\r\n"
                             "Proxy-Authorization: Basic Y29ycFxtZTpwQHNzOnc=\r\n\r\n");
    cp_egress_upstream_dispose(&u);
}

static void test_egress_upstream__bare_and_bracketed__defaults(void **state)
{
    struct cp_egress_upstream u;
    assert_int_equal(cp_egress_upstream_parse("proxy.corp", NULL, &u, NULL), 0);
    assert_string_equal(u.host, "proxy.corp");
    assert_int_equal(u.port, 80);
    assert_null(u.auth);
    char req[256];
    cp_egress_upstream_request(&u, "a.example", req, sizeof(req));
    assert_null(strstr(req, "Proxy-Authorization"));
    cp_egress_upstream_dispose(&u);
    assert_int_equal(cp_egress_upstream_parse("HTTP://[fd00::1]:8080", NULL, &u, NULL), 0);
    assert_string_equal(u.host, "fd00::1");
    assert_int_equal(u.port, 8080);
    cp_egress_upstream_dispose(&u);
    assert_int_equal(cp_egress_upstream_parse("http://user@10.0.0.1:3128", NULL, &u, NULL), 0);
    assert_string_equal(u.auth, "Basic dXNlcjo="); /* "user:" */
    cp_egress_upstream_dispose(&u);
}

static void test_egress_upstream__bad_urls__refused_without_the_password(void **state)
{
    static const char *const bad[] = {
        "https://me:s3cret@proxy.corp:3128",   "socks5://me:s3cret@proxy.corp:1080",
        "http://me:s3cret@proxy.corp:99999",   "http://me:s3cret@proxy.corp:3128/path",
        "http://me:s3%zzcret@proxy.corp:3128", "http://me:s3cret@",
        "http://me:s3cret@[fd00::1",           "http://me:s3cret@pro xy:3128",
        "http://me:s3%00cret@proxy.corp:3128",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cp_egress_upstream u;
        cleanup_error cp_error_t err = NULL;
        if (cp_egress_upstream_parse(bad[i], NULL, &u, &err) == 0)
            fail_msg("'%s' was taken", bad[i]);
        assert_non_null(err);
        assert_null(strstr(err->msg, "s3cret"));
        assert_null(u.auth);
    }
}

static void test_egress_upstream__no_proxy__names_and_subdomains(void **state)
{
    struct cp_egress_upstream u;
    assert_int_equal(cp_egress_upstream_parse("http://proxy.corp:3128",
                                              " .Internal.corp, registry.local:443,x.test:8080,"
                                              "*.wild.test",
                                              &u, NULL),
                     0);
    assert_false(cp_egress_upstream_applies(&u, "internal.corp"));
    assert_false(cp_egress_upstream_applies(&u, "git.internal.corp"));
    assert_true(cp_egress_upstream_applies(&u, "notinternal.corp"));
    assert_false(cp_egress_upstream_applies(&u, "registry.local"));
    assert_true(cp_egress_upstream_applies(&u, "x.test")); /* only its port 8080 was named */
    assert_false(cp_egress_upstream_applies(&u, "a.wild.test"));
    assert_true(cp_egress_upstream_applies(&u, "pkgs.example.org"));
    cp_egress_upstream_dispose(&u);
    assert_int_equal(cp_egress_upstream_parse("http://proxy.corp:3128", "*", &u, NULL), 0);
    assert_false(cp_egress_upstream_applies(&u, "pkgs.example.org"));
    cp_egress_upstream_dispose(&u);
    assert_false(cp_egress_upstream_applies(NULL, "pkgs.example.org"));
}

static void test_egress_upstream__answers__status_and_length(void **state)
{
    static const char ok[] = "HTTP/1.1 200 Connection established\r\nVia: x\r\n\r\n";
    int status = 0;
    size_t len = 0;
    assert_int_equal(cp_egress_upstream_answer(ok, sizeof(ok) - 1, &status, &len), 0);
    assert_int_equal(status, 200);
    assert_int_equal(len, sizeof(ok) - 1);
    assert_int_equal(cp_egress_upstream_answer(ok, 20, &status, &len), 1);
    assert_int_equal(
        cp_egress_upstream_answer("HTTP/1.0 407 Proxy Auth\r\n\r\n", 27, &status, &len), 0);
    assert_int_equal(status, 407);
    assert_int_equal(cp_egress_upstream_answer("SSH-2.0-x\r\n\r\n", 13, &status, &len), -1);
    assert_int_equal(cp_egress_upstream_answer("HTTP/1.1 2x0 OK\r\n\r\n", 19, &status, &len), -1);
    static char endless[CP_EGRESS_UPSTREAM_ANSWER_MAX];
    memset(endless, 'a', sizeof(endless));
    memcpy(endless, "HTTP/1.1 200 OK\r\n", 17);
    assert_int_equal(cp_egress_upstream_answer(endless, sizeof(endless), &status, &len), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_upstream__url_with_credential__basic_auth),
        cmocka_unit_test(test_egress_upstream__bare_and_bracketed__defaults),
        cmocka_unit_test(test_egress_upstream__bad_urls__refused_without_the_password),
        cmocka_unit_test(test_egress_upstream__no_proxy__names_and_subdomains),
        cmocka_unit_test(test_egress_upstream__answers__status_and_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
