/* Waiting in the unit tests for what they can be told (tests/lib/wait.sh's and wait.py's twin):
 * a state looked at until it holds, with one bound in seconds on CLOCK_MONOTONIC, never a count
 * of polls, whose length depends on how busy the machine is. The bound only fails a test when
 * the state never comes; the pause between two looks sets how soon it is seen, never whether. */
#ifndef CONCH_TESTS_UNIT_WAIT_H
#define CONCH_TESTS_UNIT_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The bound for what must come: generous, since it only ends a test that is failing. */
#define WAIT_SECONDS 60

static inline int64_t wait_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A deadline seconds from now, on the same clock. */
static inline int64_t wait_deadline(int seconds)
{
    return wait_now_ms() + (int64_t)seconds * 1000;
}

/* What is left of deadline, for poll(): 0 once it passed. */
static inline int wait_left_ms(int64_t deadline)
{
    int64_t left = deadline - wait_now_ms();
    return left <= 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
}

/* Calls ready(ctx) until it returns true (true), or false once seconds passed first. */
static inline bool wait_until(int seconds, bool (*ready)(void *ctx), void *ctx)
{
    int64_t deadline = wait_deadline(seconds);
    for (;;) {
        if (ready(ctx))
            return true;
        if (wait_now_ms() >= deadline)
            return false;
        struct timespec pause = {.tv_nsec = 2 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

static inline int64_t wait_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline bool wait_fs_clock_passed(void *ctx)
{
    return wait_clock_ns(CLOCK_REALTIME_COARSE) > *(const int64_t *)ctx;
}

/* Until the clock that stamps files (the kernel's coarse one, which lags the true time by a tick
 * or two) has passed the true time of now: a file changed after this has other times than one
 * changed before (even one stamped finely, as a file whose times were read is at its next
 * change), and the coarse reading returned is after the times of everything changed before. */
static inline int64_t wait_fs_tick(void)
{
    int64_t now = wait_clock_ns(CLOCK_REALTIME);
    if (!wait_until(WAIT_SECONDS, wait_fs_clock_passed, &now))
        return -1;
    return wait_clock_ns(CLOCK_REALTIME_COARSE);
}

#endif
