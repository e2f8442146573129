/* Unit tests for who the relay's door lets in and what a ticket carries: the owner of a loopback
 * peer (the kernel's socket diagnostics, and /proc/net/tcp), and a command's arguments carried
 * whole from the mint to the run, or the ticket refused with words (issue 20's attack). */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "relay/control.h"
#include "relay/peer.h"
#include "relay/relay.h"
#include "relay/runner.h"
#include "relay/tickets.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"
#include "tests/unit/wait.h"

/* ---- the peer's owner ---- */

struct pair {
    int listener, client, accepted;
};

static struct pair loopback_pair(void)
{
    struct pair p = {-1, -1, -1};
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(a);
    p.listener = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(bind(p.listener, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(p.listener, 4), 0);
    assert_int_equal(getsockname(p.listener, (struct sockaddr *)&a, &alen), 0);
    p.client = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(p.client, (struct sockaddr *)&a, sizeof(a)), 0);
    p.accepted = accept(p.listener, NULL, NULL);
    assert_true(p.accepted >= 0);
    return p;
}

static void pair_close(struct pair *p)
{
    close(p->accepted);
    close(p->client);
    close(p->listener);
}

static void test_relay_peer__own_loopback_connection__is_our_uid(void **state)
{
    (void)state;
    struct pair p = loopback_pair();
    uid_t uid = (uid_t)-1;
    cp_error_t err = NULL;
    assert_int_equal(cp_relay_tcp_peer_uid(p.accepted, &uid, &err), 0);
    assert_int_equal(uid, geteuid());
    uid = (uid_t)-1;
    assert_int_equal(cp_relay_tcp_peer_uid_proc(p.accepted, &uid, &err), 0);
    assert_int_equal(uid, geteuid());
    pair_close(&p);
}

/* The peer is a child that became another uid before it made its socket. Root only. */
static void test_relay_peer__another_uids_connection__is_that_uid(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const uid_t other = 65534;
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(a);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
    int done[2];
    assert_int_equal(pipe(done), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        int s = -1;
        close(done[1]); /* the parent's end alone: the read ends however the parent ends */
        if (setgid(other) == 0 && setuid(other) == 0)
            s = socket(AF_INET, SOCK_STREAM, 0);
        if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
            (void)!read(done[0], &c, 1);
        _exit(0);
    }
    int c = accept(l, NULL, NULL);
    assert_true(c >= 0);
    uid_t uid = 0;
    cp_error_t err = NULL;
    assert_int_equal(cp_relay_tcp_peer_uid(c, &uid, &err), 0);
    assert_int_equal(uid, other);
    uid = 0;
    assert_int_equal(cp_relay_tcp_peer_uid_proc(c, &uid, &err), 0);
    assert_int_equal(uid, other);
    (void)!write(done[1], "x", 1);
    waitpid(pid, NULL, 0);
    close(c);
    close(l);
    close(done[0]);
    close(done[1]);
}

static void test_relay_peer__gone_peer__is_unknown_not_ours(void **state)
{
    (void)state;
    struct pair p = loopback_pair();
    /* The peer's socket is gone: reset, so no record of it stays behind (no TIME_WAIT). */
    struct linger hard = {.l_onoff = 1, .l_linger = 0};
    setsockopt(p.client, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    close(p.client);
    p.client = open("/dev/null", O_RDONLY);
    /* Until our end has taken the reset: then neither end is the peer's any more. */
    struct pollfd reset = {.fd = p.accepted, .events = POLLIN};
    assert_int_equal(poll(&reset, 1, WAIT_SECONDS * 1000), 1);
    assert_true(reset.revents & (POLLERR | POLLHUP));
    uid_t uid = (uid_t)-1;
    cp_error_t err = NULL;
    assert_true(cp_relay_tcp_peer_uid(p.accepted, &uid, &err) < 0);
    cp_error_free(&err);
    pair_close(&p);
}

static void test_relay_peer__proc_rows__match_both_ends_exactly(void **state)
{
    (void)state;
    struct sockaddr_in own = {.sin_family = AF_INET, .sin_port = htons(40001)};
    struct sockaddr_in far = {.sin_family = AF_INET, .sin_port = htons(8080)};
    own.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    far.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* The kernel prints each 32-bit word of the address as this machine stores it. */
    char lo[9], row[256];
    uint32_t w = htonl(INADDR_LOOPBACK);
    snprintf(lo, sizeof(lo), "%08X", w);
    uid_t uid = 0;
    snprintf(row, sizeof(row),
             "   3: %s:9C41 %s:1F90 01 00000000:00000000 00:00000000 00000000  1234        0 "
             "5678 1 0000000000000000 20 4 30 10 -1\n",
             lo, lo);
    assert_int_equal(cp_relay_proc_tcp_row(row, &own, &far, &uid), 0);
    assert_int_equal(uid, 1234);
    /* the same connection seen from the door's side: its ends the other way round */
    snprintf(row, sizeof(row),
             "   4: %s:1F90 %s:9C41 01 00000000:00000000 00:00000000 00000000     0        0 "
             "5679 1\n",
             lo, lo);
    assert_int_equal(cp_relay_proc_tcp_row(row, &own, &far, &uid), -1);
    /* another port */
    snprintf(row, sizeof(row),
             "   5: %s:9C42 %s:1F90 01 00000000:00000000 00:00000000 00000000  1234 0 5 1\n", lo,
             lo);
    assert_int_equal(cp_relay_proc_tcp_row(row, &own, &far, &uid), -1);
    /* a dual-stack socket: IPv4-mapped IPv6 in /proc/net/tcp6 */
    uint8_t m[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
    char m6[33];
    for (int i = 0; i < 4; i++) {
        uint32_t x;
        memcpy(&x, m + 4 * i, 4);
        snprintf(m6 + 8 * i, 9, "%08X", x);
    }
    snprintf(row, sizeof(row),
             "   0: %s:9C41 %s:1F90 01 00000000:00000000 00:00000000 00000000  4321 0 9 1\n", m6,
             m6);
    assert_int_equal(cp_relay_proc_tcp_row(row, &own, &far, &uid), 0);
    assert_int_equal(uid, 4321);
    assert_int_equal(cp_relay_proc_tcp_row("  sl  local_address rem_address   st tx_queue rx_queue "
                                           "tr tm->when retrnsmt   uid  timeout inode\n",
                                           &own, &far, &uid),
                     -1);
}

/* ---- arguments whole or refused ---- */

struct door {
    char dir[64], sock[128];
    int listener;
    struct cp_relay_door_info info;
    pthread_t thread;
};

static void *serve_one(void *arg)
{
    struct door *d = arg;
    int c = accept(d->listener, NULL, NULL);
    if (c >= 0) {
        cp_relay_control_serve(c, &d->info);
        close(c);
    }
    return NULL;
}

/* A control socket serving one mint for a door of workdir (no port, no runs). */
static void door_open(struct door *d, const char *workdir)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->dir, sizeof(d->dir), "/tmp/conch-relay-unit-XXXXXX");
    assert_non_null(mkdtemp(d->dir));
    snprintf(d->sock, sizeof(d->sock), "%s/c.sock", d->dir);
    cp_error_t err = NULL;
    d->listener = cp_unix_listen(d->sock, 0600, 64, &err);
    assert_true(d->listener >= 0);
    d->info = (struct cp_relay_door_info){
        .port = 4242, .place = "container", .workdir = workdir, .tickets = cp_tickets_new()};
    assert_int_equal(pthread_create(&d->thread, NULL, serve_one, d), 0);
}

static void door_close(struct door *d)
{
    shutdown(d->listener, SHUT_RDWR); /* ends an accept still waiting */
    pthread_join(d->thread, NULL);
    close(d->listener);
    unlink(d->sock);
    rmdir(d->dir);
    cp_tickets_free(d->info.tickets);
}

/* What the run process would be handed for the ticket behind url. */
static struct cp_ticket *take(struct door *d, const char *url)
{
    unsigned port = 0;
    char hex[CP_RELAY_TICKET_HEX + 1];
    assert_int_equal(cp_relay_parse_url(url, &port, hex), 0);
    uint8_t raw[CP_RELAY_TICKET_LEN], hash[CP_SHA256_LEN];
    for (size_t i = 0; i < sizeof(raw); i++) {
        unsigned b = 0;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
        raw[i] = (uint8_t)b;
    }
    cp_sha256(raw, sizeof(raw), hash);
    struct cp_ticket *k = NULL;
    assert_int_equal(cp_tickets_take(d->info.tickets, hash, cp_tickets_now(), &k), CP_TICKET_GOOD);
    return k;
}

/* The run message for k, split as `relay exec` splits it, is exactly place, folder, argv. */
static void assert_run_carries(const struct cp_ticket *k, char *const *argv, size_t n)
{
    struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    cp_error_t err = NULL;
    assert_int_equal(cp_relay_run_msg(k->place, k->workdir, k->argv, &b, &err), 0);
    const char **v = NULL;
    assert_int_equal(cp_relay_msg_split(&b, &v), (ssize_t)n + 2);
    assert_string_equal(v[0], "container");
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[2 + i], argv[i]);
    assert_null(v[n + 2]);
    free(v);
    cp_buf_dispose(&b);
}

static void test_relay_control__past_4096_arguments__every_one_reaches_the_run(void **state)
{
    (void)state;
    enum { N = 6000 }; /* the control socket once read 4,096 strings and dropped the rest */
    char **argv = calloc(N + 1, sizeof(char *));
    for (size_t i = 0; i < N; i++)
        argv[i] = i == 0 ? xstrdup("echo") : xasprintf("a%zu", i);
    struct door d;
    door_open(&d, "/work/folder");
    char *url = NULL;
    cp_error_t err = NULL;
    assert_int_equal(cp_relay_mint(d.sock, NULL, 60, argv, &url, &err), 0);
    struct cp_ticket *k = take(&d, url);
    assert_int_equal(cp_strv_len(k->argv), N);
    for (size_t i = 0; i < N; i++)
        assert_string_equal(k->argv[i], argv[i]);
    assert_run_carries(k, argv, N);
    cp_ticket_free(k);
    free(url);
    door_close(&d);
    cp_strv_free(argv);
}

/* Issue 20: minted through a door whose folder is 61 characters, P2 did not fit the run's
 * message and was skipped, so "$3" became 'touch PWNED'. Refused with words, nothing minted. */
static void test_relay_control__issue_20_attack__is_refused_with_words(void **state)
{
    (void)state;
    const char *folder = "/home/someone/projects/a-folder-whose-path-is-61-characters-x";
    assert_int_equal(strlen(folder), 61);
    char *p1 = malloc(131001), *p2 = malloc(131061);
    memset(p1, 'a', 131000);
    p1[131000] = '\0';
    memset(p2, 'b', 131060);
    p2[131060] = '\0';
    char *argv[] = {"sh",          "-c", "eval \"$3\"", "sh", p1, p2, "echo judged-safe",
                    "touch PWNED", NULL};
    struct door d;
    door_open(&d, folder);
    char *url = NULL;
    cp_error_t err = NULL;
    assert_true(cp_relay_mint(d.sock, NULL, 60, argv, &url, &err) < 0);
    assert_null(url);
    assert_non_null(strstr(err->msg, "the door refused the ticket"));
    assert_non_null(strstr(err->msg, "a ticket carries whole"));
    cp_error_free(&err);
    assert_int_equal(cp_tickets_live(d.info.tickets, cp_tickets_now()), 0);
    door_close(&d);
    free(p1);
    free(p2);
}

/* An argument too big for any message: refused before anything is sent. */
static void test_relay_control__oversized_argument__is_refused_at_the_mint(void **state)
{
    (void)state;
    char *big = malloc(CP_RELAY_MSG_MAX + 1);
    memset(big, 'x', CP_RELAY_MSG_MAX);
    big[CP_RELAY_MSG_MAX] = '\0';
    char *argv[] = {"printf", "%s", big, "touch PWNED", NULL};
    struct door d;
    door_open(&d, "/work/folder");
    char *url = NULL;
    cp_error_t err = NULL;
    assert_int_equal(cp_relay_mint(d.sock, NULL, 60, argv, &url, &err), CP_ERR_TOO_BIG);
    assert_non_null(strstr(err->msg, "no ticket was made"));
    cp_error_free(&err);
    assert_int_equal(cp_tickets_live(d.info.tickets, cp_tickets_now()), 0);
    door_close(&d);
    free(big);
}

/* The run's message never skips one argument and carries on with the next. */
static void test_relay_run_msg__an_argument_that_does_not_fit__is_an_error(void **state)
{
    (void)state;
    char *big = malloc(CP_RELAY_MSG_MAX - 100);
    memset(big, 'x', CP_RELAY_MSG_MAX - 101);
    big[CP_RELAY_MSG_MAX - 101] = '\0';
    char *argv[] = {"sh", big, big, "small", NULL};
    struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    cp_error_t err = NULL;
    assert_int_equal(cp_relay_run_msg("container", "/w", argv, &b, &err), CP_ERR_TOO_BIG);
    assert_non_null(strstr(err->msg, "4 arguments"));
    cp_error_free(&err);
    cp_buf_dispose(&b);
    free(big);
}

static void test_relay_msg_split__a_string_without_its_nul__is_malformed(void **state)
{
    (void)state;
    struct cp_buf b;
    cp_buf_init(&b, 64);
    assert_int_equal(cp_buf_append(&b, "a\0bc", 4), 0);
    const char **v = NULL;
    assert_int_equal(cp_relay_msg_split(&b, &v), -1);
    assert_null(v);
    assert_int_equal(cp_buf_append(&b, "\0\0", 2), 0);
    assert_int_equal(cp_relay_msg_split(&b, &v), 3); /* "a", "bc", "" */
    assert_string_equal(v[1], "bc");
    assert_string_equal(v[2], "");
    free(v);
    cp_buf_dispose(&b);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* as main() does: a mint's client may leave before the answer */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relay_peer__own_loopback_connection__is_our_uid),
        cmocka_unit_test(test_relay_peer__another_uids_connection__is_that_uid),
        cmocka_unit_test(test_relay_peer__gone_peer__is_unknown_not_ours),
        cmocka_unit_test(test_relay_peer__proc_rows__match_both_ends_exactly),
        cmocka_unit_test(test_relay_control__past_4096_arguments__every_one_reaches_the_run),
        cmocka_unit_test(test_relay_control__issue_20_attack__is_refused_with_words),
        cmocka_unit_test(test_relay_control__oversized_argument__is_refused_at_the_mint),
        cmocka_unit_test(test_relay_run_msg__an_argument_that_does_not_fit__is_an_error),
        cmocka_unit_test(test_relay_msg_split__a_string_without_its_nul__is_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
