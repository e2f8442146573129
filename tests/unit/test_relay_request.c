/* Unit tests for the relay door's judge: what it runs, and each thing it refuses with its
 * status, checked in the order an attacker would try them. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "relay/request.h"
#include "relay/runner.h"

#define PORT   4242
#define TICKET "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

static struct cp_relay_verdict judge(const char *head)
{
    struct cp_relay_verdict v;
    assert_int_equal(cp_relay_judge(head, strlen(head), PORT, &v), 0);
    return v;
}

static void test_relay_request__runner_get__is_a_run_with_the_ticket_hash(void **state)
{
    (void)state;
    struct cp_relay_verdict v = judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n"
                                      "Accept: " CP_RELAY_FRAMES_TYPE "\r\n\r\n");
    assert_int_equal(v.status, 0);
    assert_int_equal(v.form, CP_RELAY_FRAMES);
    uint8_t raw[CP_RELAY_TICKET_LEN], want[CP_SHA256_LEN];
    for (size_t i = 0; i < sizeof(raw); i++) {
        unsigned b = 0;
        sscanf(&TICKET[2 * i], "%2x", &b);
        raw[i] = (uint8_t)b;
    }
    cp_sha256(raw, sizeof(raw), want);
    assert_memory_equal(v.ticket_hash, want, sizeof(want));
}

static void test_relay_request__curl_get_localhost__is_a_run_in_plain_form(void **state)
{
    (void)state;
    struct cp_relay_verdict v = judge("GET /run/" TICKET " HTTP/1.1\r\nHost: LocalHost:4242\r\n"
                                      "User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n");
    assert_int_equal(v.status, 0);
    assert_int_equal(v.form, CP_RELAY_PLAIN);
}

static void test_relay_request__origin_header__is_refused_403(void **state)
{
    (void)state;
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n"
                           "Origin: null\r\n\r\n")
                         .status,
                     403);
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\norigin: https://evil.example\r\n"
                           "Host: 127.0.0.1:4242\r\n\r\n")
                         .status,
                     403);
}

static void test_relay_request__browser_fetch_metadata__is_refused_403(void **state)
{
    (void)state;
    /* An <img> GET carries no Origin, but a browser marks it with Sec-Fetch-*. */
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n"
                           "Sec-Fetch-Mode: no-cors\r\n\r\n")
                         .status,
                     403);
}

static void test_relay_request__another_host__is_refused(void **state)
{
    (void)state;
    /* DNS rebinding: the name is the attacker's, the address is ours. */
    assert_int_equal(
        judge("GET /run/" TICKET " HTTP/1.1\r\nHost: rebind.example:4242\r\n\r\n").status, 421);
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4243\r\n\r\n").status,
                     421);
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status, 421);
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\n\r\n").status, 400);
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n"
                           "Host: evil.example\r\n\r\n")
                         .status,
                     400);
}

static void test_relay_request__host_sharing_a_prefix_with_the_door__is_refused_421(void **state)
{
    (void)state;
    /* The Host is the door's whole name and port, never a name that merely starts with it
     * (or that it starts with). */
    const char *hosts[] = {"127.0.0.1:42420",     "127.0.0.1:4242.evil.example",
                           "127.0.0.1:4242x",     "127.0.0.1:4242:4242",
                           "127.0.0.1:4242@evil", "localhost:42421",
                           "localhost:4242.evil", "127.0.0.1:424",
                           "127.0.0.1:",          "127.0.0.10:4242",
                           "127.0.0.1.evil:4242", "localhost.evil.example:4242"};
    for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
        char head[512];
        snprintf(head, sizeof(head), "GET /run/" TICKET " HTTP/1.1\r\nHost: %s\r\n\r\n", hosts[i]);
        struct cp_relay_verdict v = judge(head);
        if (v.status != 421)
            fail_msg("Host: %s gave %d, not 421", hosts[i], v.status);
    }
    assert_int_equal(judge("GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n").status,
                     0);
}

static void test_relay_request__preflight_and_other_methods__are_refused(void **state)
{
    (void)state;
    struct cp_relay_verdict v = judge("OPTIONS /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n"
                                      "Origin: https://evil.example\r\n"
                                      "Access-Control-Request-Method: GET\r\n\r\n");
    assert_int_equal(v.status, 403);
    assert_int_equal(
        judge("OPTIONS /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n").status, 405);
    assert_int_equal(judge("POST /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n").status,
                     405);
    assert_int_equal(judge("get /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n").status,
                     405);
}

static void test_relay_request__other_paths__are_refused_404(void **state)
{
    (void)state;
    const char *targets[] = {
        "/",
        "/run/",
        "/run/" TICKET "?x=1",
        "/run/" TICKET "/",
        "/run/" TICKET "0",
        "/run/00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff",
        "/run/0011223344556677889gaabbccddeeff00112233445566778899aabbccddeeff",
        "http://127.0.0.1:4242/run/" TICKET,
        "/RUN/" TICKET,
        "/run//" TICKET};
    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        char head[512];
        snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n", targets[i]);
        assert_int_equal(judge(head).status, 404);
    }
}

static void test_relay_request__malformed_heads__are_refused_400(void **state)
{
    (void)state;
    const char *heads[] = {
        "GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\nContent-Length: 5\r\n\r\n",
        "GET /run/" TICKET
        " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n folded\r\n\r\n",
        "GET /run/" TICKET " HTTP/1.1\r\nHost : 127.0.0.1:4242\r\n\r\n",
        "GET /run/" TICKET " HTTP/2.0\r\nHost: 127.0.0.1:4242\r\n\r\n",
        "GET  /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n",
        "GET /run/" TICKET " HTTP/1.1\nHost: 127.0.0.1:4242\r\n\r\n",
        "\r\nGET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
        assert_int_equal(judge(heads[i]).status, 400);
    char nul[] = "GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\nX: a\0b\r\n\r\n";
    struct cp_relay_verdict v;
    assert_int_equal(cp_relay_judge(nul, sizeof(nul) - 1, PORT, &v), 0);
    assert_int_equal(v.status, 400);
}

static void test_relay_request__sizes__are_bounded(void **state)
{
    (void)state;
    struct cp_relay_verdict v;
    const char *part = "GET /run/" TICKET " HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n";
    assert_int_equal(cp_relay_judge(part, strlen(part), PORT, &v), 1);
    char *big = calloc(1, CP_RELAY_HEAD_MAX + 1);
    memset(big, 'a', CP_RELAY_HEAD_MAX);
    memcpy(big, part, strlen(part));
    assert_int_equal(cp_relay_judge(big, CP_RELAY_HEAD_MAX, PORT, &v), 0);
    assert_int_equal(v.status, 431);
    free(big);
    char many[4096];
    int n = snprintf(many, sizeof(many), "%s", part);
    for (int i = 0; i < CP_RELAY_HEADERS_MAX + 2; i++)
        n += snprintf(many + n, sizeof(many) - (size_t)n, "X-%d: y\r\n", i);
    snprintf(many + n, sizeof(many) - (size_t)n, "\r\n");
    assert_int_equal(judge(many).status, 431);
}

static void test_relay_request__runner_urls__only_loopback_tickets(void **state)
{
    (void)state;
    unsigned port = 0;
    char t[CP_RELAY_TICKET_HEX + 1];
    assert_int_equal(cp_relay_parse_url("http://127.0.0.1:4242/run/" TICKET, &port, t), 0);
    assert_int_equal(port, 4242);
    assert_string_equal(t, TICKET);
    assert_int_equal(cp_relay_parse_url("http://localhost:80/run/" TICKET, &port, t), 0);
    assert_int_equal(cp_relay_parse_url("http://evil.example:4242/run/" TICKET, &port, t), -1);
    assert_int_equal(cp_relay_parse_url("https://127.0.0.1:4242/run/" TICKET, &port, t), -1);
    assert_int_equal(cp_relay_parse_url("http://127.0.0.1:0/run/" TICKET, &port, t), -1);
    assert_int_equal(cp_relay_parse_url("http://127.0.0.1:04242/run/" TICKET, &port, t), -1);
    assert_int_equal(cp_relay_parse_url("http://127.0.0.1:4242/run/" TICKET "0", &port, t), -1);
    assert_int_equal(cp_relay_parse_url("http://127.0.0.1:4242@evil/run/" TICKET, &port, t), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relay_request__runner_get__is_a_run_with_the_ticket_hash),
        cmocka_unit_test(test_relay_request__curl_get_localhost__is_a_run_in_plain_form),
        cmocka_unit_test(test_relay_request__origin_header__is_refused_403),
        cmocka_unit_test(test_relay_request__browser_fetch_metadata__is_refused_403),
        cmocka_unit_test(test_relay_request__another_host__is_refused),
        cmocka_unit_test(test_relay_request__host_sharing_a_prefix_with_the_door__is_refused_421),
        cmocka_unit_test(test_relay_request__preflight_and_other_methods__are_refused),
        cmocka_unit_test(test_relay_request__other_paths__are_refused_404),
        cmocka_unit_test(test_relay_request__malformed_heads__are_refused_400),
        cmocka_unit_test(test_relay_request__sizes__are_bounded),
        cmocka_unit_test(test_relay_request__runner_urls__only_loopback_tickets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
