/* A warm box's shell and its end marks: the real shell run here with sh on a message, and the
 * marks read out of output that arrives in pieces, with lookalikes passed through. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "places/container/end-mark.h"
#include "places/container/warm.h"
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

/* Runs the warm box's own shell here on message + "STDIN"; returns its exit status. */
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
    close(fd);
    /* In a session of its own, ended after: a stop that comes before the timer knows its sleep's
     * number leaves the sleep behind (in a box, it ends with the box). */
    setenv("CONCH_TEST_WAITER", cp_warm_waiter[2], 1);
    cleanup_free char *cmd =
        xasprintf("cd / && setsid -w sh -c 'sh -c \"$CONCH_TEST_WAITER\" < %s "
                  "2>&1; s=$?; trap \"\" TERM; kill 0; sleep 0.1; kill 0; exit $s'",
                  path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, out_len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    unlink(path);
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
