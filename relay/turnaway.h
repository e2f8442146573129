/* Connections the door turns away in its own loop, without a thread: another uid's (403), and
 * one past a budget (503, or the control socket's "no"). Each gets its answer at once, then a
 * moment to read it: the door half-closes and reads what the client still sends until it closes
 * or the moment passes, since closing with unread bytes would reset the connection and lose
 * the answer. Bounded: past TURNAWAY_MAX the oldest is closed at once. */
#ifndef CONCH_RELAY_TURNAWAY_H
#define CONCH_RELAY_TURNAWAY_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#define CP_TURNAWAY_MAX 64

struct cp_turnaway {
    int fd[CP_TURNAWAY_MAX];
    int64_t until_ms[CP_TURNAWAY_MAX]; /* cp_now_ms() */
    size_t n;
};

/* Sends answer on fd (never blocking), half-closes it and keeps it to be closed; fd is ours. */
void cp_turnaway_add(struct cp_turnaway *t, int fd, const void *answer, size_t len);
/* Fills up to CP_TURNAWAY_MAX pollfds; how many. */
size_t cp_turnaway_pollfds(const struct cp_turnaway *t, struct pollfd *p);
/* After poll: reads what came, closes those at their end or past their moment. */
void cp_turnaway_serve(struct cp_turnaway *t, const struct pollfd *p, size_t n);
/* Closes every one (the door is closing). */
void cp_turnaway_dispose(struct cp_turnaway *t);

/* An HTTP refusal's bytes (head and one-line body) for status and reason; its length. */
size_t cp_relay_refusal(char *out, size_t size, int status, const char *reason);

#endif
