/* conch-place's own words on standard error, prefixed, printf-checked; never a secret. */
#ifndef CONCH_LOG_H
#define CONCH_LOG_H

#include <stdio.h>

extern int cp_log_verbose;

void cp_log_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define cp_say(...)                                                                                \
    do {                                                                                           \
        cp_log_say(__VA_ARGS__);                                                                   \
    } while (0)

/* -v: with the milliseconds since start, so where the time goes can be read off. */
void cp_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define cp_debug(...)                                                                              \
    do {                                                                                           \
        if (cp_log_verbose > 0)                                                                    \
            cp_log_debug(__VA_ARGS__);                                                             \
    } while (0)

#endif
