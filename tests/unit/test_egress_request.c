/* Unit tests for the proxy's request parser: every refusal rule, each attack by name. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "egress/policy/connect-request.h"

static enum cp_egress_reason parse(const char *text, struct cp_egress_request *req)
{
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    int rc = cp_egress_parse_head(text, strlen(text), req, &reason);
    assert_int_equal(rc, 0);
    return reason;
}

static void expect(const char *text, enum cp_egress_reason want)
{
    struct cp_egress_request req;
    enum cp_egress_reason got = parse(text, &req);
    if (got != want)
        fail_msg("%s: got reason %d, want %d", text, got, want);
}

static void test_egress_request__connect_443__allowed_with_host_and_auth(void **state)
{
    struct cp_egress_request req;
    assert_int_equal(parse("CONNECT API.Example.COM.:443 HTTP/1.1\r\nHost: x\r\n"
                           "Proxy-Authorization: Basic Ym94OnQ=\r\n\r\n",
                           &req),
                     CP_EGRESS_ALLOWED);
    assert_string_equal(req.host, "api.example.com");
    assert_int_equal(req.port, 443);
    assert_string_equal(req.auth, "Basic Ym94OnQ=");
}

static void test_egress_request__partial_head__needs_more(void **state)
{
    struct cp_egress_request req;
    enum cp_egress_reason reason;
    const char *t = "CONNECT a.example:443 HTTP/1.1\r\nHost: a\r\n";
    assert_int_equal(cp_egress_parse_head(t, strlen(t), &req, &reason), 1);
    const char *cr = "CONNECT a.example:443 HTTP/1.1\r\n\r";
    assert_int_equal(cp_egress_parse_head(cr, strlen(cr), &req, &reason), 1);
}

static void test_egress_request__port_spellings__refused(void **state)
{
    const char *ports[] = {"80",   "8443",       "22",    "4430",  "0443", "+443",
                           " 443", "4294967739", "0x1bb", "443.0", ""};
    for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
        char line[128];
        snprintf(line, sizeof(line), "CONNECT a.example:%s HTTP/1.1\r\n\r\n", ports[i]);
        struct cp_egress_request req;
        enum cp_egress_reason r = parse(line, &req);
        if (r == CP_EGRESS_ALLOWED)
            fail_msg("port '%s' allowed", ports[i]);
    }
}

static void test_egress_request__ip_literals__refused_as_ip_literal(void **state)
{
    expect("CONNECT 140.82.112.6:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT [2606:50c0::1]:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT 0x7f.1:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT 127.1:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT ::1:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT a.b.1:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
}

static void test_egress_request__missing_host_or_port__refused(void **state)
{
    expect("CONNECT a.example HTTP/1.1\r\n\r\n", CP_EGRESS_MALFORMED);
    expect("CONNECT :443 HTTP/1.1\r\n\r\n", CP_EGRESS_MALFORMED);
    expect("CONNECT HTTP/1.1\r\n\r\n", CP_EGRESS_MALFORMED);
}

static void test_egress_request__odd_authority__refused_as_bad_host(void **state)
{
    expect("CONNECT [a.example]:443 HTTP/1.1\r\n\r\n", CP_EGRESS_IP_LITERAL);
    expect("CONNECT a.example:443:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT user@a.example:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT a.example%2eevil.net:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT a.example\t:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT a.example#:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT a.example..:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT a..example:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
    expect("CONNECT \xd0\xb0pi.example:443 HTTP/1.1\r\n\r\n", CP_EGRESS_BAD_HOST);
}

static void test_egress_request__nul_in_target__refused(void **state)
{
    static const char t[] = "CONNECT a.example\0.evil.net:443 HTTP/1.1\r\n\r\n";
    struct cp_egress_request req;
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    assert_int_equal(cp_egress_parse_head(t, sizeof(t) - 1, &req, &reason), 0);
    assert_int_equal(reason, CP_EGRESS_MALFORMED);
}

static void test_egress_request__cr_or_lf_alone__malformed(void **state)
{
    expect("CONNECT a.example:443\rX HTTP/1.1\r\n\r\n", CP_EGRESS_MALFORMED);
    expect("CONNECT a.example:443 HTTP/1.1\n\n", CP_EGRESS_MALFORMED);
    expect("CONNECT a.example:443 HTTP/1.1\r\nX: y\n\r\n", CP_EGRESS_MALFORMED);
}

static void test_egress_request__other_methods__refused_as_not_connect(void **state)
{
    expect("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", CP_EGRESS_NOT_CONNECT);
    expect("POST / HTTP/1.1\r\n\r\n", CP_EGRESS_NOT_CONNECT);
    expect("OPTIONS * HTTP/1.1\r\n\r\n", CP_EGRESS_NOT_CONNECT);
    expect("connect a.example:443 HTTP/1.1\r\n\r\n", CP_EGRESS_NOT_CONNECT);
    expect("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", CP_EGRESS_NOT_CONNECT);
}

static void test_egress_request__absolute_form__refused(void **state)
{
    expect("GET http://a.example/ HTTP/1.1\r\n\r\n", CP_EGRESS_ABSOLUTE_FORM);
    expect("CONNECT https://a.example:443 HTTP/1.1\r\n\r\n", CP_EGRESS_ABSOLUTE_FORM);
}

static void test_egress_request__body_framing__refused(void **state)
{
    expect("CONNECT a.example:443 HTTP/1.1\r\nContent-Length: 10\r\n\r\n", CP_EGRESS_BODY);
    expect("CONNECT a.example:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", CP_EGRESS_BODY);
    expect("CONNECT a.example:443 HTTP/1.1\r\ntransfer-encoding: Chunked\r\n\r\n", CP_EGRESS_BODY);
}

static void test_egress_request__header_oddities__malformed(void **state)
{
    expect("CONNECT a.example:443 HTTP/1.1\r\nX: a\r\n b\r\n\r\n", CP_EGRESS_MALFORMED);
    expect("CONNECT a.example:443 HTTP/1.1\r\nHost : a\r\n\r\n", CP_EGRESS_MALFORMED);
    expect("CONNECT a.example:443 HTTP/1.1\r\nNoColon\r\n\r\n", CP_EGRESS_MALFORMED);
    expect("CONNECT a.example:443 HTTP/1.1\r\nProxy-Authorization: a\r\n"
           "Proxy-Authorization: b\r\n\r\n",
           CP_EGRESS_MALFORMED);
}

static void test_egress_request__smuggled_second_request__refused_as_early_data(void **state)
{
    expect("CONNECT a.example:443 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n", CP_EGRESS_EARLY_DATA);
    expect("CONNECT a.example:443 HTTP/1.1\r\n\r\nCONNECT b.example:443 HTTP/1.1\r\n\r\n",
           CP_EGRESS_EARLY_DATA);
}

static void test_egress_request__long_heads__too_big(void **state)
{
    static char big[CP_EGRESS_HEAD_MAX + 64];
    memset(big, 'a', sizeof(big));
    memcpy(big, "CONNECT a.example:443 HTTP/1.1\r\nX: ", 35);
    struct cp_egress_request req;
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    assert_int_equal(cp_egress_parse_head(big, sizeof(big), &req, &reason), 0);
    assert_int_equal(reason, CP_EGRESS_HEAD_TOO_BIG);

    char many[4096] = "CONNECT a.example:443 HTTP/1.1\r\n";
    for (int i = 0; i < CP_EGRESS_HEADERS_MAX + 1; i++)
        strncat(many, "X: y\r\n", sizeof(many) - strlen(many) - 1);
    strncat(many, "\r\n", sizeof(many) - strlen(many) - 1);
    expect(many, CP_EGRESS_HEAD_TOO_BIG);

    char longhost[400] = "CONNECT ";
    memset(longhost + 8, 'a', 300);
    strncpy(longhost + 308, ".example:443 HTTP/1.1\r\n\r\n", sizeof(longhost) - 309);
    struct cp_egress_request r2;
    assert_int_equal(parse(longhost, &r2), CP_EGRESS_BAD_HOST);
    assert_true(strlen(r2.target) <= CP_EGRESS_TARGET_MAX);
}

static void test_egress_request__reflected_target__made_printable(void **state)
{
    struct cp_egress_request req;
    parse("CONNECT <script>\"x\\</script>:443 HTTP/1.1\r\n\r\n", &req);
    assert_null(strchr(req.target, '"'));
    assert_null(strchr(req.target, '\\'));
    assert_string_equal(req.host, "");
}

static void test_egress_request__response__names_host_list_and_proxy_status(void **state)
{
    const char *list[] = {"a.example", "*.b.example"};
    char out[4096];
    size_t n =
        cp_egress_response(CP_EGRESS_NOT_LISTED, "evil.example:443", list, 2, out, sizeof(out));
    assert_int_equal(n, strlen(out));
    assert_non_null(strstr(out, "HTTP/1.1 403 Forbidden\r\n"));
    assert_non_null(strstr(out, "\r\nProxy-Status: conch-place; error=http_request_denied; "));
    assert_non_null(strstr(out, "\r\nConnection: close\r\n"));
    assert_non_null(strstr(out, "evil.example:443"));
    assert_non_null(strstr(out, "a.example, *.b.example"));
    const char *body = strstr(out, "\r\n\r\n") + 4;
    const char *cl = strstr(out, "Content-Length: ");
    assert_int_equal(strtol(cl + 16, NULL, 10), (long)strlen(body));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_request__connect_443__allowed_with_host_and_auth),
        cmocka_unit_test(test_egress_request__partial_head__needs_more),
        cmocka_unit_test(test_egress_request__port_spellings__refused),
        cmocka_unit_test(test_egress_request__ip_literals__refused_as_ip_literal),
        cmocka_unit_test(test_egress_request__missing_host_or_port__refused),
        cmocka_unit_test(test_egress_request__odd_authority__refused_as_bad_host),
        cmocka_unit_test(test_egress_request__nul_in_target__refused),
        cmocka_unit_test(test_egress_request__cr_or_lf_alone__malformed),
        cmocka_unit_test(test_egress_request__other_methods__refused_as_not_connect),
        cmocka_unit_test(test_egress_request__absolute_form__refused),
        cmocka_unit_test(test_egress_request__body_framing__refused),
        cmocka_unit_test(test_egress_request__header_oddities__malformed),
        cmocka_unit_test(test_egress_request__smuggled_second_request__refused_as_early_data),
        cmocka_unit_test(test_egress_request__long_heads__too_big),
        cmocka_unit_test(test_egress_request__reflected_target__made_printable),
        cmocka_unit_test(test_egress_request__response__names_host_list_and_proxy_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
