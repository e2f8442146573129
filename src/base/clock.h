/* The clocks, read one way everywhere: milliseconds as int64_t, and the time left before a
 * deadline in the int that poll() takes. */
#ifndef CONCH_CLOCK_H
#define CONCH_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: for time-outs, deadlines and idle timers. It never jumps
 * when the wall clock is set, and it stops while the computer is suspended. */
int64_t cp_now_ms(void);
/* CLOCK_MONOTONIC in nanoseconds, for durations shown with a fraction of a millisecond (logs,
 * the run report's stage times). Safe in a signal handler (clock_gettime only). */
int64_t cp_now_ns(void);
/* CLOCK_BOOTTIME in milliseconds: like cp_now_ms, but it goes on while the computer is
 * suspended, for lifetimes that count the wall clock's time (the relay's tickets). */
int64_t cp_boot_ms(void);
/* CLOCK_REALTIME in milliseconds since the epoch: for what is written down or compared with
 * other computers (labels, files' times), never for a time-out. */
int64_t cp_wall_ms(void);

/* Milliseconds from cp_now_ms() to deadline (a cp_now_ms() value), for poll(): 0 when it has
 * passed, at most INT_MAX. A deadline of -1 means none: -1 (poll waits forever). */
int cp_deadline_left_ms(int64_t deadline);

#endif
