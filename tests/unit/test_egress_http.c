/* Unit tests for the terminated tunnel's HTTP/1.1 parsers, the read-only method table (every
 * row), the host modes and the minted certificates. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/x509v3.h>

#include "egress/terminate/ca.h"
#include "egress/policy/http1.h"
#include "egress/policy/methods.h"
#include "egress/terminate/mint.h"
#include "egress/policy/policy.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define HOST "reg.example"

static enum cp_egress_reason parse(const char *head, struct cp_http1_request *r)
{
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    int rc = cp_http1_parse_request(head, strlen(head), HOST, r, &reason);
    assert_int_equal(rc, 0);
    return reason;
}

static void test_http1__get_keepalive__allowed(void **state)
{
    struct cp_http1_request r;
    const char *h = "GET /a?b=1 HTTP/1.1\r\nHost: reg.example\r\nAccept: */*\r\n\r\nGET";
    assert_int_equal(parse(h, &r), CP_EGRESS_ALLOWED);
    assert_int_equal(r.head_len, strlen(h) - 3);
    assert_int_equal(r.body, CP_HTTP1_BODY_NONE);
    assert_false(r.close);
    assert_int_equal(r.target.len, 6);
    assert_memory_equal(h + r.target.off, "/a?b=1", 6);
}

/* A body on a method that takes none: a host that does not read it would take the push inside
 * for the next request (CL.0). Chunked, any case of the method too. */
static void test_http1__body_on_bodiless_method__hidden_request(void **state)
{
    static const char *bad[] = {
        "GET /-/static HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 5\r\n\r\n",
        "get / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 5\r\n\r\n",
        "HEAD / HTTP/1.1\r\nHost: reg.example\r\nTransfer-Encoding: chunked\r\n\r\n",
        "OPTIONS / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 1\r\n\r\n",
        "DELETE /x HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 1\r\n\r\n",
        "TRACE / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 1\r\n\r\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        struct cp_http1_request r;
        if (parse(bad[i], &r) != CP_EGRESS_HIDDEN_REQUEST)
            fail_msg("case %zu not refused", i);
    }
}

/* An empty body on a GET is no body: clients that always send the length still fetch. */
static void test_http1__get_with_length_zero__allowed(void **state)
{
    struct cp_http1_request r;
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 0\r\n\r\n", &r),
                     CP_EGRESS_ALLOWED);
    assert_int_equal(r.body, CP_HTTP1_BODY_NONE);
}

/* A body a host might read as the next request (CL.0), and bodies that fetch. */
static void test_http1__body_like_a_request__told(void **state)
{
    static const char *like[] = {"PUT /x HTTP/1.1\r\n", "\r\n\r\nPOST /repo.git/git-receive-pack",
                                 "get http://x/", "OPTIONS * HTTP/1.1", "DELETE "};
    static const char *unlike[] = {"0032want 0a1b2c3d multi_ack\n",
                                   "{\"name\":\"x\"}",
                                   "\x1f\x8b\x08\x00",
                                   "0000",
                                   "a=b&c=d",
                                   "word word"};
    for (size_t i = 0; i < ARRAY_SIZE(like); i++)
        if (!cp_http1_looks_like_request(like[i], strlen(like[i])))
            fail_msg("like %zu not told", i);
    for (size_t i = 0; i < ARRAY_SIZE(unlike); i++)
        if (cp_http1_looks_like_request(unlike[i], strlen(unlike[i])))
            fail_msg("unlike %zu told", i);
}

static void test_http1__partial_head__needs_more(void **state)
{
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    const char *h = "POST /x HTTP/1.1\r\nHost: reg.example\r\n";
    assert_int_equal(cp_http1_parse_request(h, strlen(h), HOST, &r, &reason), 1);
}

static void test_http1__framing__length_chunked_close(void **state)
{
    struct cp_http1_request r;
    assert_int_equal(
        parse("POST /x HTTP/1.1\r\nHost: reg.example:443\r\nContent-Length: 12\r\n\r\n", &r),
        CP_EGRESS_ALLOWED);
    assert_int_equal(r.body, CP_HTTP1_BODY_LENGTH);
    assert_int_equal(r.length, 12);
    assert_int_equal(parse("POST /x HTTP/1.1\r\nHost: REG.example\r\nTransfer-Encoding: "
                           "chunked\r\nConnection: keep-alive, close\r\n\r\n",
                           &r),
                     CP_EGRESS_ALLOWED);
    assert_int_equal(r.body, CP_HTTP1_BODY_CHUNKED);
    assert_true(r.close);
}

static void test_http1__smuggling_shapes__refused(void **state)
{
    static const char *bad[] = {
        "POST / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 1\r\nTransfer-Encoding: "
        "chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: 1, 1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nContent-Length: +1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding:"
        " chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nTransfer-Encoding : chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: reg.example\r\nX: a\r\n chunked\r\n\r\n",
        "POST / HTTP/1.0\r\nHost: reg.example\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET http://reg.example/ HTTP/1.1\r\nHost: reg.example\r\n\r\n",
        "CONNECT reg.example:443 HTTP/1.1\r\nHost: reg.example\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: reg.example\r\nUpgrade: websocket\r\n\r\n",
        "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: reg.example\r\nHost: reg.example\r\n\r\n",
        "GET / HTTP/2.0\r\nHost: reg.example\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: reg.example\r\nX: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: reg.example\r\nX: a\x01\r\n\r\n",
        "reg.example:443 HTTP/1.1\r\nHost: reg.example\r\n\r\n",
        "GET /npm/x#/../../admin HTTP/1.1\r\nHost: reg.example\r\n\r\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        struct cp_http1_request r;
        enum cp_egress_reason reason = parse(bad[i], &r);
        if (reason != CP_EGRESS_REQUEST)
            fail_msg("case %zu: reason %d", i, reason);
        assert_non_null(r.why);
    }
}

static void test_http1__bare_lf__refused_without_waiting(void **state)
{
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    const char *h = "GET / HTTP/1.1\nHost: reg.example\n";
    assert_int_equal(cp_http1_parse_request(h, strlen(h), HOST, &r, &reason), 0);
    assert_int_equal(reason, CP_EGRESS_REQUEST);
}

static void test_http1__other_host__host_header(void **state)
{
    struct cp_http1_request r;
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost: other.example\r\n\r\n", &r),
                     CP_EGRESS_HOST_HEADER);
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost: reg.example:8443\r\n\r\n", &r),
                     CP_EGRESS_HOST_HEADER);
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost: reg.example.evil\r\n\r\n", &r),
                     CP_EGRESS_HOST_HEADER);
}

static void test_http1__head_past_bound__too_big(void **state)
{
    size_t n = CP_HTTP1_HEAD_MAX + 10;
    char *h = xmalloc(n);
    memset(h, 'a', n);
    memcpy(h, "GET / HTTP/1.1\r\nX: ", 19);
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    assert_int_equal(cp_http1_parse_request(h, n, HOST, &r, &reason), 0);
    assert_int_equal(reason, CP_EGRESS_HEAD_TOO_BIG);
    free(h);
}

static void test_http1__responses__framed(void **state)
{
    struct cp_http1_response r;
    const char *a = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    assert_int_equal(cp_http1_parse_response(a, strlen(a), false, &r), 0);
    assert_int_equal(r.body, CP_HTTP1_BODY_LENGTH);
    assert_int_equal(r.length, 5);
    assert_int_equal(cp_http1_parse_response(a, strlen(a), true, &r), 0);
    assert_int_equal(r.body, CP_HTTP1_BODY_NONE);
    const char *b = "HTTP/1.1 204 No Content\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(b, strlen(b), false, &r), 0);
    assert_int_equal(r.body, CP_HTTP1_BODY_NONE);
    const char *c = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(c, strlen(c), false, &r), 0);
    assert_int_equal(r.body, CP_HTTP1_BODY_CHUNKED);
    const char *d = "HTTP/1.0 200 OK\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(d, strlen(d), false, &r), 0);
    assert_int_equal(r.body, CP_HTTP1_BODY_CLOSE);
    assert_true(r.close);
    const char *e = "HTTP/1.1 100 Continue\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(e, strlen(e), false, &r), 0);
    assert_int_equal(r.status, 100);
    assert_int_equal(r.body, CP_HTTP1_BODY_NONE);
    const char *f = "HTTP/1.1 101 Switching Protocols\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(f, strlen(f), false, &r), -1);
    const char *g = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(g, strlen(g), false, &r), -1);
    const char *h = "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n";
    assert_int_equal(cp_http1_parse_response(h, strlen(h), false, &r), 0);
    assert_int_equal(r.body, CP_HTTP1_BODY_NONE);
}

static void test_http1__chunked__ends_exactly(void **state)
{
    const char *body = "5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\nX-T: 1\r\n\r\nNEXT";
    struct cp_http1_chunked c = {0};
    bool done = false;
    /* fed a byte at a time: the end is found at the same place */
    size_t total = 0;
    for (size_t i = 0; i < strlen(body) && !done; i++) {
        ssize_t n = cp_http1_chunked_feed(&c, body + i, 1, &done);
        assert_true(n >= 0);
        total += (size_t)n;
    }
    assert_true(done);
    assert_int_equal(total, strlen(body) - 4);
    struct cp_http1_chunked d = {0};
    assert_int_equal(cp_http1_chunked_feed(&d, "zz\r\n", 4, &done), -1);
    struct cp_http1_chunked e = {0};
    assert_int_equal(cp_http1_chunked_feed(&e, "2\r\nabX\r\n", 8, &done), -1);
}

/* ---- the method table: one test per row, so dropping any row fails one ---- */

static enum cp_egress_rule_verdict judge(const char *method, const char *target)
{
    return cp_egress_methods_judge(method, target).verdict;
}

static void test_methods__row0_receive_pack_advert__refused(void **state)
{
    assert_int_equal(judge("GET", "/o/r.git/info/refs?service=git-receive-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("HEAD", "/o/r.git/info/refs?service=git-receive-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/o/r.git/info/refs?service=git-%72eceive-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/o/r.git/info/refs?service=git-upload-pack"), CP_RULE_ALLOW);
}

static void test_methods__row1_get__allowed(void **state)
{
    assert_int_equal(judge("GET", "/lodash/-/lodash-4.17.21.tgz"), CP_RULE_ALLOW);
    assert_int_equal(judge("GET", "/"), CP_RULE_ALLOW);
}

static void test_methods__row2_head__allowed(void **state)
{
    assert_int_equal(judge("HEAD", "/simple/requests/"), CP_RULE_ALLOW);
}

static void test_methods__row3_upload_pack__allowed(void **state)
{
    assert_int_equal(judge("POST", "/o/r.git/git-upload-pack"), CP_RULE_ALLOW);
    assert_int_equal(judge("POST", "/o/r.git/git-receive-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("POST", "/o/r.git/evilgit-upload-pack"), CP_RULE_REFUSE);
}

static void test_methods__row4_lfs_batch__download_only(void **state)
{
    struct cp_egress_rule_result r =
        cp_egress_methods_judge("POST", "/o/r.git/info/lfs/objects/batch");
    assert_int_equal(r.verdict, CP_RULE_BODY);
    const char *down = "{\"operation\":\"download\",\"objects\":[]}";
    const char *up = "{\"operation\":\"upload\",\"objects\":[]}";
    assert_true(cp_egress_methods_body_ok(r.row, down, strlen(down)));
    assert_false(cp_egress_methods_body_ok(r.row, up, strlen(up)));
    assert_false(cp_egress_methods_body_ok(r.row, "{", 1));
}

static void test_methods__row5_npm_audit__allowed(void **state)
{
    assert_int_equal(judge("POST", "/-/npm/v1/security/audits"), CP_RULE_ALLOW);
    assert_int_equal(judge("POST", "/npm/registry/-/npm/v1/security/audits"), CP_RULE_ALLOW);
}

static void test_methods__row6_npm_audit_quick__allowed(void **state)
{
    assert_int_equal(judge("POST", "/-/npm/v1/security/audits/quick"), CP_RULE_ALLOW);
}

static void test_methods__row7_npm_bulk__allowed(void **state)
{
    assert_int_equal(judge("POST", "/-/npm/v1/security/advisories/bulk?x=1"), CP_RULE_ALLOW);
}

static void test_methods__uploads__refused(void **state)
{
    assert_int_equal(judge("PUT", "/lodash"), CP_RULE_REFUSE);
    assert_int_equal(judge("POST", "/legacy/"), CP_RULE_REFUSE);
    assert_int_equal(judge("PATCH", "/x"), CP_RULE_REFUSE);
    assert_int_equal(judge("DELETE", "/x"), CP_RULE_REFUSE);
    assert_int_equal(judge("OPTIONS", "*"), CP_RULE_REFUSE);
    assert_int_equal(judge("get", "/x"), CP_RULE_REFUSE);
}

static void test_methods__encoded_tricks__refused(void **state)
{
    assert_int_equal(judge("POST", "/o/r.git/x%2f..%2fgit-upload-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("POST", "/o/r.git/git-receive-pack/../git-upload-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/a/%2e%2e/b"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/a/%00"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/a\\b"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/a/%zz"), CP_RULE_REFUSE);
    assert_int_equal(judge("POST", "/o/r.git/git-upload-pac%6b"), CP_RULE_ALLOW);
    assert_int_equal(judge("POST", "/o/r.git/git-upload-pack?x=/../"), CP_RULE_ALLOW);
    /* npm's scoped packages and escaped slashes in a query are fetched as they are ... */
    assert_int_equal(judge("GET", "/npm/@corp%2fsecret-pkg"), CP_RULE_ALLOW);
    assert_int_equal(judge("GET", "/search?q=a%2Fb"), CP_RULE_ALLOW);
    /* ... but never separate a POST's path: this is no upload-pack. */
    assert_int_equal(judge("POST", "/o/r.git%2fgit-upload-pack"), CP_RULE_REFUSE);
    assert_int_equal(judge("GET", "/a/..%5Cb"), CP_RULE_REFUSE);
}

static void test_methods__each_row__has_a_test(void **state)
{
    assert_int_equal(cp_egress_methods_rows(), 8);
}

/* ---- host modes ---- */

static void test_policy__modes__most_specific_wins(void **state)
{
    cleanup_egress_policy struct cp_egress_policy p = {0};
    assert_int_equal(cp_egress_policy_add_host(&p, "*.example.org", NULL), 0);
    assert_int_equal(cp_egress_policy_add_write(&p, "push.example.org", NULL), 0);
    assert_int_equal(cp_egress_policy_add_pass(&p, "*.pin.example.org", NULL), 0);
    assert_int_equal(cp_egress_policy_add_host(&p, "Exact.PIN.example.org", NULL), 0);
    assert_int_equal(cp_egress_policy_mode(&p, "a.example.org"), CP_EGRESS_MODE_READ);
    assert_int_equal(cp_egress_policy_mode(&p, "push.example.org"), CP_EGRESS_MODE_WRITE);
    assert_int_equal(cp_egress_policy_mode(&p, "x.pin.example.org"), CP_EGRESS_MODE_PASS);
    assert_int_equal(cp_egress_policy_mode(&p, "exact.pin.example.org"), CP_EGRESS_MODE_READ);
    p.any_public = true;
    assert_int_equal(cp_egress_policy_mode(&p, "elsewhere.example"), CP_EGRESS_MODE_READ);
}

static void test_policy__file__modes_and_errors(void **state)
{
    char path[] = "/tmp/conch-policy-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "# list\nread.example\nwrite.example write\npin.example  pass-through # x\n";
    assert_int_equal(cp_write_all(fd, text, strlen(text)), 0);
    close(fd);
    cleanup_egress_policy struct cp_egress_policy p = {0};
    assert_int_equal(cp_egress_policy_add_file(&p, path, NULL), 0);
    assert_int_equal(p.patterns.n, 3);
    assert_int_equal(cp_egress_policy_mode(&p, "read.example"), CP_EGRESS_MODE_READ);
    assert_int_equal(cp_egress_policy_mode(&p, "write.example"), CP_EGRESS_MODE_WRITE);
    assert_int_equal(cp_egress_policy_mode(&p, "pin.example"), CP_EGRESS_MODE_PASS);
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(cp_write_all(fd, "a.example sideways\n", 19), 0);
    close(fd);
    cleanup_error cp_error_t err = NULL;
    cleanup_egress_policy struct cp_egress_policy q = {0};
    assert_true(cp_egress_policy_add_file(&q, path, &err) < 0);
    assert_non_null(strstr(err->msg, ":1:"));
    unlink(path);
}

/* ---- the CA and minting ---- */

static void test_mint__cert__verifies_with_san_and_cache(void **state)
{
    cleanup_free char *pem = NULL, *cert_pem = NULL;
    assert_int_equal(cp_egress_ca_generate(&pem, NULL), 0);
    assert_int_equal(cp_egress_ca_cert_pem(pem, &cert_pem, NULL), 0);
    assert_null(strstr(cert_pem, "PRIVATE KEY"));
    char fp[65];
    assert_int_equal(cp_egress_ca_fingerprint(pem, fp, NULL), 0);
    assert_int_equal(strlen(fp), 64);
    cleanup_error cp_error_t err = NULL;
    char *none = NULL;
    assert_true(cp_egress_ca_cert_pem(cert_pem, &none, &err) < 0); /* no key */
    assert_null(none);
    assert_non_null(strstr(err->msg, "private key"));

    struct cp_egress_minter *m = NULL;
    assert_int_equal(cp_egress_minter_new(pem, &m, NULL), 0);
    X509 *a = NULL, *b = NULL;
    bool minted = false;
    assert_int_equal(cp_egress_mint(m, "reg.example", &a, &minted, NULL), 0);
    assert_true(minted);
    assert_int_equal(cp_egress_mint(m, "reg.example", &b, &minted, NULL), 0);
    assert_false(minted);
    assert_ptr_equal(a, b);
    assert_int_equal(X509_check_host(a, "reg.example", 0, 0, NULL), 1);
    assert_int_equal(X509_check_host(a, "other.example", 0, 0, NULL), 0);
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, cp_egress_minter_ca(m));
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, a, NULL);
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
    assert_int_equal(X509_verify_cert(ctx), 1);
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(a);
    X509_free(b);
    cp_egress_minter_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_http1__get_keepalive__allowed),
        cmocka_unit_test(test_http1__body_on_bodiless_method__hidden_request),
        cmocka_unit_test(test_http1__get_with_length_zero__allowed),
        cmocka_unit_test(test_http1__body_like_a_request__told),
        cmocka_unit_test(test_http1__partial_head__needs_more),
        cmocka_unit_test(test_http1__framing__length_chunked_close),
        cmocka_unit_test(test_http1__smuggling_shapes__refused),
        cmocka_unit_test(test_http1__bare_lf__refused_without_waiting),
        cmocka_unit_test(test_http1__other_host__host_header),
        cmocka_unit_test(test_http1__head_past_bound__too_big),
        cmocka_unit_test(test_http1__responses__framed),
        cmocka_unit_test(test_http1__chunked__ends_exactly),
        cmocka_unit_test(test_methods__row0_receive_pack_advert__refused),
        cmocka_unit_test(test_methods__row1_get__allowed),
        cmocka_unit_test(test_methods__row2_head__allowed),
        cmocka_unit_test(test_methods__row3_upload_pack__allowed),
        cmocka_unit_test(test_methods__row4_lfs_batch__download_only),
        cmocka_unit_test(test_methods__row5_npm_audit__allowed),
        cmocka_unit_test(test_methods__row6_npm_audit_quick__allowed),
        cmocka_unit_test(test_methods__row7_npm_bulk__allowed),
        cmocka_unit_test(test_methods__uploads__refused),
        cmocka_unit_test(test_methods__encoded_tricks__refused),
        cmocka_unit_test(test_methods__each_row__has_a_test),
        cmocka_unit_test(test_policy__modes__most_specific_wins),
        cmocka_unit_test(test_policy__file__modes_and_errors),
        cmocka_unit_test(test_mint__cert__verifies_with_san_and_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
