/* Unit tests for private unix sockets and their messages: the folder and socket closed to
 * others, the peer's uid, messages whole or refused over their bound, descriptors carried,
 * and the same messages over a pipe. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

#include "src/base/unix-msg.h"
#include "src/base/util.h"

static char *scratch(void)
{
    char tmpl[] = "/tmp/cp-unix-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    return xstrdup(tmpl);
}

static void test_unix__private_dir__made_0700_and_open_one_refused(void **state)
{
    (void)state;
    cleanup_free char *t = scratch();
    cleanup_free char *d = xasprintf("%s/d", t);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_unix_private_dir(d, &err), 0);
    struct stat st;
    assert_int_equal(lstat(d, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(cp_unix_private_dir(d, &err), 0); /* there already: fine */
    chmod(d, 0750);
    assert_int_equal(cp_unix_private_dir(d, &err), CP_ERR_UNSAFE);
    assert_non_null(strstr(err->msg, "is not a folder only you can enter"));
    cleanup_free char *l = xasprintf("%s/l", t);
    chmod(d, 0700);
    assert_int_equal(symlink(d, l), 0);
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(cp_unix_private_dir(l, &err2), CP_ERR_UNSAFE);
    unlink(l);
    rmdir(d);
    rmdir(t);
}

static void test_unix__listen_connect__0600_and_peer_is_us(void **state)
{
    (void)state;
    cleanup_free char *t = scratch();
    cleanup_free char *path = xasprintf("%s/s.sock", t);
    cleanup_error cp_error_t err = NULL;
    cleanup_close int l = cp_unix_listen(path, 0600, 8, &err);
    assert_true(l >= 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_true(fcntl(l, F_GETFD) & FD_CLOEXEC);
    cleanup_close int c = cp_unix_connect(path, &err);
    assert_true(c >= 0);
    cleanup_close int a = accept(l, NULL, NULL);
    assert_true(a >= 0);
    assert_true(cp_unix_peer_is_us(a));
    assert_true(cp_unix_peer_is_us(c));
    uid_t uid = 1;
    assert_int_equal(cp_unix_peer_uid(a, &uid), 0);
    assert_int_equal(uid, geteuid());
    /* Listening again replaces the stale socket. */
    cleanup_close int l2 = cp_unix_listen(path, 0600, 8, &err);
    assert_true(l2 >= 0);
    unlink(path);
    cleanup_error cp_error_t gone = NULL;
    assert_int_equal(cp_unix_connect(path, &gone), CP_ERR_UNREACHABLE);
    assert_int_equal(gone->sys_errno, ENOENT);
    rmdir(t);
}

static void test_unix__path_too_long__usage(void **state)
{
    (void)state;
    char path[200];
    memset(path, 'a', sizeof(path) - 1);
    path[0] = '/';
    path[sizeof(path) - 1] = '\0';
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_unix_connect(path, &err), CP_ERR_USAGE);
    assert_non_null(strstr(err->msg, "is too long"));
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(cp_unix_listen(path, 0600, 8, &err2), CP_ERR_USAGE);
}

static void test_unix__message__strings_round_trip(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 1024);
    assert_int_equal(cp_unix_msg_put(&b, "mint"), 0);
    assert_int_equal(cp_unix_msg_put(&b, ""), 0);
    assert_int_equal(cp_unix_msg_put(&b, "a b"), 0);
    assert_int_equal(cp_unix_msg_send(sv[0], &b, NULL, 0), 0);
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, 1024);
    struct cp_unix_recv how = {.first_wait_ms = 1000, .rest_wait_ms = 1000};
    assert_int_equal(cp_unix_msg_recv(sv[1], &r, &how), 0);
    cleanup_free const char **v = NULL;
    assert_int_equal(cp_unix_msg_split(&r, &v), 3);
    assert_string_equal(v[0], "mint");
    assert_string_equal(v[1], "");
    assert_string_equal(v[2], "a b");
    assert_null(v[3]);
    close(sv[0]);
    close(sv[1]);
}

static void test_unix__message__over_bound_or_cut_refused(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 1024);
    cp_unix_msg_put(&b, "0123456789");
    assert_int_equal(cp_unix_msg_send(sv[0], &b, NULL, 0), 0);
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, 1024);
    struct cp_unix_recv how = {.max = 10, .first_wait_ms = 1000, .rest_wait_ms = 1000};
    assert_int_equal(cp_unix_msg_recv(sv[1], &r, &how), -1);
    assert_int_equal(r.len, 0);
    /* A length and then nothing: the wait runs out. */
    uint32_t len = 5;
    assert_int_equal(cp_write_all(sv[0], &len, sizeof(len)), 0);
    struct cp_unix_recv quick = {.first_wait_ms = 1000, .rest_wait_ms = 50};
    assert_int_equal(cp_unix_msg_recv(sv[1], &r, &quick), -1);
    close(sv[0]);
    assert_int_equal(cp_unix_msg_recv(sv[1], &r, &quick), -1); /* end of file */
    close(sv[1]);
    cleanup_buf struct cp_buf odd;
    cp_buf_init(&odd, 16);
    cp_buf_append(&odd, "a\0b", 3);
    const char **v = NULL;
    assert_int_equal(cp_unix_msg_split(&odd, &v), -1);
    assert_null(v);
}

static void test_unix__message__descriptors_ride_along(void **state)
{
    (void)state;
    int sv[2], p[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    assert_int_equal(pipe(p), 0);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 64);
    cp_unix_msg_put(&b, "run");
    int fds[3] = {p[1], p[1], p[0]};
    assert_int_equal(cp_unix_msg_send(sv[0], &b, fds, 3), 0);
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, 64);
    int got[3] = {-1, -1, -1};
    struct cp_unix_recv how = {.fds = got, .fds_cap = 3};
    assert_int_equal(cp_unix_msg_recv(sv[1], &r, &how), 0);
    assert_int_equal(how.nfds, 3);
    assert_string_equal(r.data, "run");
    assert_true(fcntl(got[0], F_GETFD) & FD_CLOEXEC);
    assert_int_equal(write(got[0], "x", 1), 1); /* the pipe's write end, passed over */
    char c = 0;
    assert_int_equal(read(p[0], &c, 1), 1);
    assert_int_equal(c, 'x');
    for (int i = 0; i < 3; i++)
        close(got[i]);
    /* More than there is room for: the extra ones are closed, none leaks. */
    assert_int_equal(cp_unix_msg_send(sv[0], &b, fds, 3), 0);
    int one[1] = {-1};
    struct cp_unix_recv small = {.fds = one, .fds_cap = 1};
    cp_buf_consume(&r, r.len);
    assert_int_equal(cp_unix_msg_recv(sv[1], &r, &small), 0);
    assert_int_equal(small.nfds, 1);
    close(one[0]);
    close(p[0]);
    close(p[1]);
    close(sv[0]);
    close(sv[1]);
}

static void test_unix__message__over_a_pipe(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 64);
    cp_unix_msg_put(&b, "place");
    cp_unix_msg_put(&b, "/w");
    assert_int_equal(cp_unix_msg_send(p[1], &b, NULL, 0), 0);
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, 64);
    struct cp_unix_recv how = {.first_wait_ms = -1, .rest_wait_ms = 1000};
    assert_int_equal(cp_unix_msg_recv(p[0], &r, &how), 0);
    assert_int_equal(r.len, b.len);
    assert_memory_equal(r.data, b.data, b.len);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unix__private_dir__made_0700_and_open_one_refused),
        cmocka_unit_test(test_unix__listen_connect__0600_and_peer_is_us),
        cmocka_unit_test(test_unix__path_too_long__usage),
        cmocka_unit_test(test_unix__message__strings_round_trip),
        cmocka_unit_test(test_unix__message__over_bound_or_cut_refused),
        cmocka_unit_test(test_unix__message__descriptors_ride_along),
        cmocka_unit_test(test_unix__message__over_a_pipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
