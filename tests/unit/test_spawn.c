/* Unit tests for child processes: streams wired as asked, the status as a shell gives it, an
 * unrunnable program as 127, and the cleanup that always reaps. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "src/base/spawn.h"
#include "src/base/util.h"

/* Everything on fd until its end. */
static char *read_all(int fd)
{
    char buf[4096];
    size_t len = 0;
    for (ssize_t n; len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0;)
        len += (size_t)n;
    buf[len] = '\0';
    return xstrdup(buf);
}

static void test_spawn__pipes__in_out_err_apart(void **state)
{
    (void)state;
    char *const argv[] = {"sh", "-c", "tr a-z A-Z; echo oops >&2; exit 3", NULL};
    struct cp_spawn_opts o = {.in = {.how = CP_STDIO_PIPE},
                              .out = {.how = CP_STDIO_PIPE},
                              .err = {.how = CP_STDIO_PIPE},
                              .file = "/bin/sh"};
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_spawn(argv, &o, &c, &err), 0);
    assert_true(fcntl(c.in, F_GETFD) & FD_CLOEXEC);
    assert_int_equal(cp_write_all(c.in, "hello", 5), 0);
    close(steal_fd(&c.in));
    cleanup_free char *out = read_all(c.out);
    cleanup_free char *errs = read_all(c.err);
    assert_string_equal(out, "HELLO");
    assert_string_equal(errs, "oops\n");
    int ws = 0;
    assert_int_equal(cp_child_wait(&c, &ws, &err), 0);
    assert_true(WIFEXITED(ws));
    assert_int_equal(cp_wait_status_code(ws), 3);
    int again = 0;
    assert_int_equal(cp_child_wait(&c, &again, &err), 0); /* reaped: the same status */
    assert_int_equal(again, ws);
}

static void test_spawn__not_found__exits_127(void **state)
{
    (void)state;
    char *const argv[] = {"conch-no-such-program", NULL};
    struct cp_spawn_opts o = {.path_search = true, .err = {.how = CP_STDIO_NULL}};
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_spawn(argv, &o, &c, &err), 0);
    int ws = 0;
    assert_int_equal(cp_child_wait(&c, &ws, &err), 0);
    assert_int_equal(cp_wait_status_code(ws), 127);
}

static void test_spawn__fd_env_cwd__as_asked(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    cleanup_strvec struct cp_strvec env = {0};
    setenv("CONCH_TEST_DROP", "x", 1);
    const char *const drop[] = {"CONCH_TEST_DROP=", NULL};
    const char *const add[] = {"CONCH_TEST_ADD=yes", NULL};
    cp_spawn_env(&env, drop, add);
    char *const argv[] = {"sh", "-c", "echo \"${CONCH_TEST_DROP-none} $CONCH_TEST_ADD $(pwd)\"",
                          NULL};
    struct cp_spawn_opts o = {.out = {CP_STDIO_FD, p[1]},
                              .env = env.v,
                              .cwd = "/",
                              .path_search = true,
                              .close_others = true};
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_spawn(argv, &o, &c, &err), 0);
    assert_int_equal(c.out, -1);
    close(p[1]);
    cleanup_free char *out = read_all(p[0]);
    close(p[0]);
    assert_string_equal(out, "none yes /\n");
    unsetenv("CONCH_TEST_DROP");
}

/* A standard stream given as another standard stream's fd, in either order. */
static void test_spawn__fd_swap__no_stream_lost(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    dup2(p[1], STDERR_FILENO);
    char *const argv[] = {"/bin/sh", "-c", "echo to-out", NULL};
    struct cp_spawn_opts o = {.out = {CP_STDIO_FD, STDERR_FILENO},
                              .err = {CP_STDIO_FD, STDOUT_FILENO}};
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    int rc = cp_spawn(argv, &o, &c, &err);
    dup2(saved_err, STDERR_FILENO);
    close(saved_err);
    close(saved_out);
    assert_int_equal(rc, 0);
    assert_int_equal(cp_child_wait(&c, NULL, &err), 0);
    close(p[1]);
    cleanup_free char *out = read_all(p[0]);
    close(p[0]);
    assert_string_equal(out, "to-out\n");
}

static void test_spawn__dispose__stops_and_reaps(void **state)
{
    (void)state;
    /* The sleep is started before the stop (its number on the shell's output), and orphaned
     * to this process, which reaps it below: no guess at when it is gone. */
    char *const argv[] = {"/bin/sh", "-c", "sleep 30 >/dev/null & echo $!; wait", NULL};
    struct cp_spawn_opts o = {
        .new_session = true, .stop_signal = SIGKILL, .out = {.how = CP_STDIO_PIPE}};
    struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    assert_int_equal(cp_spawn(argv, &o, &c, &err), 0);
    pid_t pid = c.pid;
    char line[32] = "";
    for (size_t n = 0; n < sizeof(line) - 1 && strchr(line, '\n') == NULL;) {
        ssize_t r = read(c.out, line + n, sizeof(line) - 1 - n);
        assert_true(r > 0);
        n += (size_t)r;
    }
    pid_t sleep_pid = (pid_t)strtol(line, NULL, 10);
    assert_true(sleep_pid > 0);
    assert_int_equal(cp_child_try_wait(&c, NULL, &err), 0);
    cp_child_dispose(&c);
    assert_int_equal(c.pid, -1);
    assert_int_equal(waitpid(pid, NULL, WNOHANG), -1); /* reaped already */
    assert_int_equal(errno, ECHILD);
    /* Its group, the sleep too, is gone: killed, not ended after its 30 s. */
    int ws = 0;
    assert_int_equal(waitpid(sleep_pid, &ws, 0), sleep_pid);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
    assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
    assert_int_equal(kill(-pid, 0), -1);
    int before = fcntl(STDIN_FILENO, F_GETFD);
    struct cp_child never = {0};
    cp_child_dispose(&never); /* {0}: never started, fd 0 not closed */
    assert_int_equal(fcntl(STDIN_FILENO, F_GETFD), before);
}

static void test_spawn__signal__128_plus(void **state)
{
    (void)state;
    char *const argv[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
    struct cp_spawn_opts o = {.default_signals = true};
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_spawn(argv, &o, &c, &err), 0);
    int ws = 0;
    assert_int_equal(cp_child_wait(&c, &ws, &err), 0);
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(cp_wait_status_code(ws), 128 + SIGTERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn__pipes__in_out_err_apart),
        cmocka_unit_test(test_spawn__not_found__exits_127),
        cmocka_unit_test(test_spawn__fd_env_cwd__as_asked),
        cmocka_unit_test(test_spawn__fd_swap__no_stream_lost),
        cmocka_unit_test(test_spawn__dispose__stops_and_reaps),
        cmocka_unit_test(test_spawn__signal__128_plus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
