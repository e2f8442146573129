/* One line per message, written whole so it does not interleave with the command's stderr. */
#include "config.h"

#include <stdarg.h>
#include <unistd.h>

#include "src/log.h"
#include "src/util.h"

int cp_log_verbose = 0;

void cp_log_say(const char *fmt, ...)
{
    char line[2048];
    int n = snprintf(line, sizeof(line), "conch-place: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    (void)cp_write_all(STDERR_FILENO, line, len);
}
