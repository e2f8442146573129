/* Unit tests for the progress line: off where standard error is not a terminal or -v is on;
 * the line it would draw says the step, the amount and the time. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "src/base/log.h"
#include "src/base/progress.h"

static void test_progress__not_a_terminal__draws_nothing(void **state)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    struct cp_progress p;
    cp_progress_begin(&p, fds[1], "making x");
    assert_false(p.on);
    cp_progress_step(&p, "sending", 100);
    cp_progress_add(&p, 50);
    cp_progress_end(&p);
    close(fds[1]);
    char buf[8];
    assert_int_equal(read(fds[0], buf, sizeof(buf)), 0);
    close(fds[0]);
}

static void test_progress__terminal_with_verbose__off(void **state)
{
    int fd = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(fd >= 0);
    struct cp_progress p;
    cp_progress_begin(&p, fd, "making x");
    assert_true(p.on);
    cp_log_verbose = 1;
    cp_progress_begin(&p, fd, "making x");
    assert_false(p.on);
    cp_log_verbose = 0;
    close(fd);
}

static void test_progress__format__step_amount_percent_time(void **state)
{
    struct cp_progress p;
    cp_progress_begin(&p, -1, "making conch-place/work:bookworm");
    cp_progress_step(&p, "sending it to docker", 4 * 1024 * 1024);
    cp_progress_add(&p, 1024 * 1024);
    char line[256];
    cp_progress_format(&p, 75.0, line, sizeof(line));
    assert_string_equal(line, "conch-place: making conch-place/work:bookworm: sending it to docker "
                              "1.0 MB of 4.0 MB (25%), 1:15");
    cp_progress_step(&p, "laying out", 0);
    cp_progress_note(&p, "I: Retrieving\x1b[31m libc6\r");
    cp_progress_format(&p, 3.0, line, sizeof(line));
    assert_string_equal(line, "conch-place: making conch-place/work:bookworm: laying out, 0:03  "
                              "I: Retrieving[31m libc6");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress__not_a_terminal__draws_nothing),
        cmocka_unit_test(test_progress__terminal_with_verbose__off),
        cmocka_unit_test(test_progress__format__step_amount_percent_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
