/* The clocks (clock.h), where each part had its own now_ms(). */
#include "config.h"

#include <limits.h>
#include <time.h>

#include "src/base/clock.h"

static int64_t ms_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t cp_now_ms(void)
{
    return ms_of(CLOCK_MONOTONIC);
}

int64_t cp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t cp_boot_ms(void)
{
    return ms_of(CLOCK_BOOTTIME);
}

int64_t cp_wall_ms(void)
{
    return ms_of(CLOCK_REALTIME);
}

int cp_deadline_left_ms(int64_t deadline)
{
    if (deadline < 0)
        return -1;
    int64_t left = deadline - cp_now_ms();
    if (left <= 0)
        return 0;
    return left > INT_MAX ? INT_MAX : (int)left;
}
