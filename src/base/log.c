/* One line per message, written whole so it does not interleave with the command's stderr. */
#include "config.h"

#include <stdarg.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/util.h"

int cp_log_verbose = 0;

__attribute__((format(printf, 2, 0))) static void say(const char *prefix, const char *fmt,
                                                      va_list ap)
{
    char line[2048];
    int n = snprintf(line, sizeof(line), "conch-place: %s", prefix);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    (void)cp_write_all(STDERR_FILENO, line, len);
}

void cp_log_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void cp_log_debug(const char *fmt, ...)
{
    static int64_t t0;
    int64_t now = cp_now_ns();
    if (t0 == 0)
        t0 = now;
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "[%6.1f ms] ", (double)(now - t0) / 1e6);
    va_list ap;
    va_start(ap, fmt);
    say(prefix, fmt, ap);
    va_end(ap);
}
