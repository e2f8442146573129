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

#include "egress/proxy/upstream.h"

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

/* What the URL reader takes, and what it makes of it: kept as it was when curl's URL parser
 * (CURLU) took over from a hand-written one. */
static void test_egress_upstream__url_forms__host_port_and_credential(void **state)
{
    static const struct {
        const char *url, *host;
        unsigned port;
        const char *auth;
    } good[] = {
        {"proxy.corp", "proxy.corp", 80, NULL},                       /* no scheme: http */
        {"proxy.corp:3128", "proxy.corp", 3128, NULL},                /* no scheme, a port */
        {"hTtP://Proxy.Corp:3128//", "Proxy.Corp", 3128, NULL},       /* any case, slashes after */
        {"http://10.0.0.1:8080", "10.0.0.1", 8080, NULL},             /* an IPv4 address */
        {"http://[::1]:3128/", "::1", 3128, NULL},                    /* IPv6 in brackets */
        {"http://[::ffff:1.2.3.4]", "::ffff:1.2.3.4", 80, NULL},      /* a mapped one, as written */
        {"http://me:pw@proxy:1", "proxy", 1, "Basic bWU6cHc="},       /* "me:pw" */
        {"http://me:p@ss@proxy:1", "proxy", 1, "Basic bWU6cEBzcw=="}, /* "me:p@ss": the last @ */
        {"http://me:p w@proxy:1", "proxy", 1, "Basic bWU6cCB3"},      /* "me:p w" */
        {"http://me:@proxy", "proxy", 80, "Basic bWU6"},              /* "me:" */
        {"http://m%3Ae@proxy", "proxy", 80, "Basic bTpl"},            /* "m:e", no ':' added */
        {"http://@proxy", "proxy", 80, "Basic Og=="},                 /* ":" */
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct cp_egress_upstream u;
        cleanup_error cp_error_t err = NULL;
        if (cp_egress_upstream_parse(good[i].url, NULL, &u, &err) < 0)
            fail_msg("'%s' was refused: %s", good[i].url, err->msg);
        assert_string_equal(u.host, good[i].host);
        assert_int_equal(u.port, good[i].port);
        if (good[i].auth == NULL)
            assert_null(u.auth);
        else
            assert_string_equal(u.auth, good[i].auth);
        cp_egress_upstream_dispose(&u);
    }
}

static void test_egress_upstream__garbage__refused_with_words(void **state)
{
    static const struct {
        const char *url, *words;
    } bad[] = {
        {"", "the upstream proxy's URL names no host"},
        {"http://", "the upstream proxy's URL names no host"},
        {"http://[]", "the upstream proxy's URL names no host"},
        {"ftp://proxy", "must be an http:// URL"},
        {"http:x://proxy", "must be an http:// URL"},
        {"http://proxy/x", "must hold no path or query"},
        {"http://proxy?", "must hold no path or query"},
        {"http://proxy#", "must hold no path or query"},
        {"http:///proxy", "must hold no path or query"},
        {"http://me:p/w@proxy", "must hold no path or query"},
        {"http://me:p%zz@proxy", "user or password has a bad %-escape"},
        {"http://me:p%0@proxy", "user or password has a bad %-escape"},
        {"http://me:p%00@proxy", "user or password has a bad %-escape"},
        {"http://pro_xy:3128", "the upstream proxy's host 'pro_xy' is not a name or an address"},
        {"http://pro%78y", "the upstream proxy's host 'pro%78y' is not a name or an address"},
        {"http://[fe80::1%25eth0]:3", "host 'fe80::1%25eth0' is not a name or an address"},
        {"http://pro xy:99999", "the upstream proxy's host 'pro xy' is not a name or an address"},
        {"http://[fd00::1", "the upstream proxy's address lacks ']'"},
        {"http://[fd00::1]x", "the upstream proxy's port is bad"},
        {"http://proxy:", "the upstream proxy's port is bad"},
        {"http://proxy:0", "the upstream proxy's port is bad"},
        {"http://proxy:65536", "the upstream proxy's port is bad"},
        {"http://proxy:+80", "the upstream proxy's port is bad"},
        {"http://proxy:1:2", "the upstream proxy's port is bad"},
        {"http://fd00::1", "the upstream proxy's port is bad"}, /* IPv6 needs its brackets */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cp_egress_upstream u;
        cleanup_error cp_error_t err = NULL;
        if (cp_egress_upstream_parse(bad[i].url, NULL, &u, &err) == 0)
            fail_msg("'%s' was taken", bad[i].url);
        if (strstr(err->msg, bad[i].words) == NULL)
            fail_msg("'%s': '%s' does not say '%s'", bad[i].url, err->msg, bad[i].words);
        assert_null(u.auth);
    }
}

/* Where curl reads a URL otherwise than the hand-written reader did: an IPv4 address written
 * short or in hex is the address it spells (before, a name that no lookup found), an IPv6 one
 * takes curl's spelling, and brackets must hold an IPv6 address. */
static void test_egress_upstream__curl_reading__addresses_as_curl_spells_them(void **state)
{
    struct cp_egress_upstream u;
    assert_int_equal(cp_egress_upstream_parse("http://127.1:3128", NULL, &u, NULL), 0);
    assert_string_equal(u.host, "127.0.0.1");
    cp_egress_upstream_dispose(&u);
    assert_int_equal(cp_egress_upstream_parse("http://[FD00:0::1]", NULL, &u, NULL), 0);
    assert_string_equal(u.host, "fd00::1");
    cp_egress_upstream_dispose(&u);
    assert_int_not_equal(cp_egress_upstream_parse("http://[proxy.corp]", NULL, &u, NULL), 0);
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
        cmocka_unit_test(test_egress_upstream__url_forms__host_port_and_credential),
        cmocka_unit_test(test_egress_upstream__garbage__refused_with_words),
        cmocka_unit_test(test_egress_upstream__curl_reading__addresses_as_curl_spells_them),
        cmocka_unit_test(test_egress_upstream__no_proxy__names_and_subdomains),
        cmocka_unit_test(test_egress_upstream__answers__status_and_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
