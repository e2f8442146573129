/* Unit tests for the clocks: each reads its own clock in the unit it says, and a deadline's
 * time left is what poll() takes. */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "src/base/clock.h"

static int64_t read_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_clock__each__reads_its_clock(void **state)
{
    (void)state;
    /* Each reading lies between its clock's read just before and just after it, however long
     * a busy machine kept us between them. */
    int64_t before = read_ms(CLOCK_MONOTONIC), now = cp_now_ms();
    int64_t after = read_ms(CLOCK_MONOTONIC);
    assert_true(now >= before && now <= after);
    before = read_ms(CLOCK_BOOTTIME);
    int64_t b = cp_boot_ms();
    after = read_ms(CLOCK_BOOTTIME);
    assert_true(b >= before && b <= after);
    before = read_ms(CLOCK_REALTIME);
    int64_t w = cp_wall_ms();
    after = read_ms(CLOCK_REALTIME);
    assert_true(w >= before && w <= after);
    before = read_ms(CLOCK_MONOTONIC);
    int64_t ns = cp_now_ns();
    after = read_ms(CLOCK_MONOTONIC);
    assert_true(ns / 1000000 >= before && ns / 1000000 <= after);
}

static void test_clock__deadline__left_clamped_for_poll(void **state)
{
    (void)state;
    assert_int_equal(cp_deadline_left_ms(-1), -1);
    assert_int_equal(cp_deadline_left_ms(0), 0);
    assert_int_equal(cp_deadline_left_ms(cp_now_ms() - 5), 0);
    /* What is left is 5000 less the time its own read of the clock came after ours. */
    int64_t start = cp_now_ms();
    int left = cp_deadline_left_ms(start + 5000);
    int64_t end = cp_now_ms();
    assert_true(left >= 5000 - (end - start) && left <= 5000);
    assert_int_equal(cp_deadline_left_ms(INT64_MAX), INT_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock__each__reads_its_clock),
        cmocka_unit_test(test_clock__deadline__left_clamped_for_poll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
