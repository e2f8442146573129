/* A warm box's shell and its end marks: the real shell run here with sh on a message, and the
 * marks read out of output that arrives in pieces, with lookalikes passed through. */
#include "config.h"
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "places/container/engine/end-mark.h"
#include "places/container/warm/warm.h"
#include "src/base/buf.h"
#include "src/base/util.h"

#define NONCE        "0123456789abcdef0123456789abcdef"
#define MARK(status) "\036conch-end " NONCE " " status "\036"

struct sink {
    char text[4096];
    size_t len;
};

static int to_sink(void *ctx, const uint8_t *data, size_t len)
{
    struct sink *s = ctx;
    assert_true(s->len + len < sizeof(s->text));
    memcpy(s->text + s->len, data, len);
    s->len += len;
    s->text[s->len] = '\0';
    return 0;
}

/* Feeds text to a fresh mark reader in pieces of step bytes. */
static struct cp_end_mark scan_in_pieces(const char *text, size_t step, struct sink *out)
{
    struct cp_end_mark m;
    cp_end_mark_init(&m, NONCE);
    memset(out, 0, sizeof(*out));
    size_t len = strlen(text);
    for (size_t i = 0; i < len; i += step) {
        size_t n = len - i < step ? len - i : step;
        assert_int_equal(cp_end_mark_scan(&m, (const uint8_t *)text + i, n, to_sink, out), 0);
    }
    assert_int_equal(cp_end_mark_finish(&m, to_sink, out), 0);
    return m;
}

static void test_end_mark__any_pieces__read_and_dropped(void **state)
{
    (void)state;
    for (size_t step = 1; step <= 80; step++) {
        struct sink out;
        struct cp_end_mark m = scan_in_pieces("out\036put" MARK("137") "late", step, &out);
        assert_true(m.seen);
        assert_int_equal(m.status, 137);
        assert_string_equal(out.text, "out\036putlate");
    }
}

/* Output that looks like a mark but is not one (another nonce, a cut one, a status above 255,
 * one with no end) is output, byte for byte, and no mark is seen. */
static void test_end_mark__lookalikes__passed_through(void **state)
{
    (void)state;
    const char *texts[] = {
        "\036conch-end ffffffffffffffffffffffffffffffff 000\036",
        "\036conch-end " NONCE " 256\036",
        "\036conch-end " NONCE " 0x0\036",
        "\036conch-end " NONCE " 000",
        "\036\036conch-end " NONCE " 00",
        "\036",
    };
    for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
        for (size_t step = 1; step <= 60; step += 7) {
            struct sink out;
            struct cp_end_mark m = scan_in_pieces(texts[i], step, &out);
            assert_false(m.seen);
            assert_string_equal(out.text, texts[i]);
        }
    /* a lookalike right before the real mark does not hide it */
    struct sink out;
    struct cp_end_mark m = scan_in_pieces("\036conch-end " MARK("001"), 3, &out);
    assert_true(m.seen);
    assert_int_equal(m.status, 1);
    assert_string_equal(out.text, "\036conch-end ");
}

/* Runs the warm box's own shell here on message + "STDIN"; returns its exit status. It runs in
 * a session of its own, killed whole once it has ended: a stop that comes before the timer knows
 * its sleep's number leaves the sleep behind (in a box, it ends with the box). */
static int run_waiter(char *const *argv, const char *nonce, char *out, size_t out_len)
{
    cleanup_buf struct cp_buf msg;
    cp_buf_init(&msg, 1 << 20);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_warm_command_message(argv, nonce, &msg, &err), 0);
    char path[] = "/tmp/conch-unit-msg-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(cp_write_all(fd, msg.data, msg.len), 0);
    assert_int_equal(cp_write_all(fd, "STDIN", 5), 0);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    unlink(path);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setsid() < 0 || chdir("/") < 0 || dup2(fd, STDIN_FILENO) < 0 ||
            dup2(p[1], STDOUT_FILENO) < 0 || dup2(p[1], STDERR_FILENO) < 0)
            _exit(126);
        close(fd);
        close(p[0]);
        close(p[1]);
        execl("/bin/sh", "sh", "-c", cp_warm_waiter[2], (char *)NULL);
        _exit(127);
    }
    close(fd);
    close(p[1]);
    /* Ended, not yet reaped: its number still names its group, which goes whole (a sleep still
     * being forked goes too, since a fork under SIGKILL never finishes). Its output is far less
     * than a pipe holds, so it is read after. */
    siginfo_t ended;
    assert_int_equal(waitid(P_PID, (id_t)pid, &ended, WEXITED | WNOWAIT), 0);
    kill(-pid, SIGKILL);
    size_t n = 0;
    for (ssize_t r; n < out_len - 1 && (r = read(p[0], out + n, out_len - 1 - n)) != 0;)
        if (r > 0)
            n += (size_t)r;
        else if (errno != EINTR)
            break;
    out[n] = '\0';
    close(p[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The command comes out of the shell's eval as the same argv (quotes, newlines, globs and
 * dollars included), its stdin is still all there, and both streams end with its status. */
static void test_waiter__hostile_argv__same_argv_then_marks(void **state)
{
    (void)state;
    char *argv[] = {"sh",    "-c",     "printf '%s|' \"$@\"; cat; exit 7",
                    "x",     "it's",   "a b",
                    "$HOME", "l1\nl2", "*",
                    "\\",    "'",      "",
                    NULL};
    char out[512];
    assert_int_equal(run_waiter(argv, NONCE, out, sizeof(out)), 7);
    assert_string_equal(out, "it's|a b|$HOME|l1\nl2|*|\\|'||STDIN" MARK("007") MARK("007"));
}

/* A message without a nonce (an earlier build's) or with a bad one runs nothing. */
static void test_waiter__bad_nonce__runs_nothing(void **state)
{
    (void)state;
    char *argv[] = {"echo", "ran", NULL};
    char out[512];
    assert_int_equal(run_waiter(argv, "", out, sizeof(out)), 125);
    assert_string_equal(out, "");
    assert_int_equal(run_waiter(argv, "0123;echo ran", out, sizeof(out)), 125);
    assert_string_equal(out, "");
    assert_int_equal(run_waiter(argv, NONCE, out, sizeof(out)), 0);
    assert_string_equal(out, "ran\n" MARK("000") MARK("000"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end_mark__any_pieces__read_and_dropped),
        cmocka_unit_test(test_end_mark__lookalikes__passed_through),
        cmocka_unit_test(test_waiter__hostile_argv__same_argv_then_marks),
        cmocka_unit_test(test_waiter__bad_nonce__runs_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
