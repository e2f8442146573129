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
    int64_t mono = read_ms(CLOCK_MONOTONIC), now = cp_now_ms();
    assert_true(now >= mono && now - mono < 1000);
    int64_t boot = read_ms(CLOCK_BOOTTIME), b = cp_boot_ms();
    assert_true(b >= boot && b - boot < 1000);
    int64_t wall = read_ms(CLOCK_REALTIME), w = cp_wall_ms();
    assert_true(w >= wall && w - wall < 1000);
    int64_t ns = cp_now_ns();
    assert_true(ns / 1000000 >= now && ns / 1000000 - now < 1000);
}

static void test_clock__deadline__left_clamped_for_poll(void **state)
{
    (void)state;
    assert_int_equal(cp_deadline_left_ms(-1), -1);
    assert_int_equal(cp_deadline_left_ms(0), 0);
    assert_int_equal(cp_deadline_left_ms(cp_now_ms() - 5), 0);
    int left = cp_deadline_left_ms(cp_now_ms() + 5000);
    assert_true(left > 4000 && left <= 5000);
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
