/* Unit tests for the proxy's lookups, against a DNS server on loopback run by the test
 * itself: every name is looked up as it is, never with a search domain (issue 20). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "egress/proxy/resolver.h"
#include "tests/unit/wait.h"

#define SEARCH_DOMAIN "search.test"

/* A DNS server that knows one name (an A record, 10.9.8.7) and notes every name asked. */
struct dns {
    int fd;
    unsigned port;
    const char *known;
    char asked[16][256];
    size_t nasked;
};

static void dns_start(struct dns *d, const char *known)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sin);
    memset(d, 0, sizeof(*d));
    d->known = known;
    d->fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(d->fd >= 0);
    assert_int_equal(bind(d->fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(d->fd, (struct sockaddr *)&sin, &len), 0);
    d->port = ntohs(sin.sin_port);
}

/* Reads the question's name as "a.b.c"; returns the offset past QTYPE and QCLASS, or 0. */
static size_t question_name(const uint8_t *q, size_t n, char *name, size_t size)
{
    size_t i = 12, out = 0;
    while (i < n && q[i] != 0) {
        size_t l = q[i];
        if (i + 1 + l > n || out + l + 2 > size)
            return 0;
        if (out > 0)
            name[out++] = '.';
        memcpy(name + out, q + i + 1, l);
        out += l;
        i += 1 + l;
    }
    name[out] = '\0';
    return i + 5 <= n ? i + 5 : 0;
}

static void dns_answer(struct dns *d)
{
    uint8_t q[512], r[600];
    struct sockaddr_in peer;
    socklen_t plen = sizeof(peer);
    ssize_t n = recvfrom(d->fd, q, sizeof(q), 0, (struct sockaddr *)&peer, &plen);
    char name[256];
    size_t end = n > 12 ? question_name(q, (size_t)n, name, sizeof(name)) : 0;
    if (end == 0)
        return;
    if (d->nasked < 16)
        snprintf(d->asked[d->nasked++], sizeof(d->asked[0]), "%s", name);
    bool known = strcasecmp(name, d->known) == 0, a = q[end - 3] == 1;
    memcpy(r, q, end);
    r[2] = 0x81;
    r[3] = known ? 0x80 : 0x83; /* NOERROR, or NXDOMAIN */
    r[6] = 0;
    r[7] = known && a;
    memset(r + 8, 0, 4);
    size_t len = end;
    if (known && a) {
        static const uint8_t rr[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 9, 8, 7};
        memcpy(r + len, rr, sizeof(rr));
        len += sizeof(rr);
    }
    sendto(d->fd, r, len, 0, (struct sockaddr *)&peer, plen);
}

/* Looks host up through the resolver, answering as d until the answer comes. */
static struct cp_egress_answer look_up(struct dns *d, const char *host)
{
    char servers[64];
    snprintf(servers, sizeof(servers), "127.0.0.1:%u", d->port);
    struct cp_egress_resolver *r = NULL;
    assert_int_equal(cp_egress_resolver_new(NULL, servers, &r, NULL), 0);
    struct cp_egress_answer a = {0};
    struct cp_egress_job *job = NULL;
    int tag = 0;
    if (cp_egress_resolver_submit(r, host, &tag, &a, &job) == 0) {
        void *got = NULL;
        for (int64_t deadline = wait_deadline(WAIT_SECONDS); wait_left_ms(deadline) > 0;) {
            struct pollfd fds[2] = {{.fd = d->fd, .events = POLLIN},
                                    {.fd = cp_egress_resolver_fd(r), .events = POLLIN}};
            /* At least every 20 ms: the resolver is asked now and then for its time-outs. */
            int left = wait_left_ms(deadline);
            poll(fds, 2, left < 20 ? left : 20);
            if (fds[0].revents & POLLIN)
                dns_answer(d);
            if (cp_egress_resolver_take(r, &got, &a) == 1)
                break;
        }
        assert_ptr_equal(got, &tag);
    }
    cp_egress_resolver_free(r);
    return a;
}

/* The case: with LOCALDOMAIN set, a listed name that does not exist was dialled as
 * NAME.SEARCH-DOMAIN, which this server knows. With ndots:5 the search name even went first. */
static void test_egress_resolver__search_domain_set__never_applied(void **state)
{
    static const char *const options[] = {"ndots:1", "ndots:5"};
    for (size_t i = 0; i < 2; i++) {
        struct dns d;
        dns_start(&d, "nx.test." SEARCH_DOMAIN);
        setenv("LOCALDOMAIN", SEARCH_DOMAIN, 1);
        setenv("RES_OPTIONS", options[i], 1);
        struct cp_egress_answer a = look_up(&d, "nx.test");
        unsetenv("LOCALDOMAIN");
        unsetenv("RES_OPTIONS");
        close(d.fd);
        assert_true(d.nasked > 0);
        for (size_t k = 0; k < d.nasked; k++)
            if (strcmp(d.asked[k], "nx.test") != 0)
                fail_msg("with %s the server was asked for %s", options[i], d.asked[k]);
        assert_int_equal(a.ok, 0);
    }
}

/* And a name that exists is found as it is, the search domain set or not. */
static void test_egress_resolver__existing_name__found_as_it_is(void **state)
{
    struct dns d;
    dns_start(&d, "reg.test");
    setenv("LOCALDOMAIN", SEARCH_DOMAIN, 1);
    setenv("RES_OPTIONS", "ndots:5", 1);
    struct cp_egress_answer a = look_up(&d, "reg.test");
    unsetenv("LOCALDOMAIN");
    unsetenv("RES_OPTIONS");
    close(d.fd);
    assert_int_equal(a.ok, 1);
    assert_int_equal(a.n, 1);
    assert_memory_equal(a.addrs[0].bytes, "\x0a\x09\x08\x07", 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_resolver__search_domain_set__never_applied),
        cmocka_unit_test(test_egress_resolver__existing_name__found_as_it_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
