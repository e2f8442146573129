/* One line per event, through the caller's sink or conch-place's stderr words. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "mirror/report.h"
#include "src/base/log.h"
#include "src/base/util.h"

void cp_report(struct cp_mirror_report *rep, const char *fmt, ...)
{
    if (rep == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    cleanup_free char *line = NULL;
    int r = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (r < 0)
        abort();
    rep->lines++;
    if (rep->say != NULL)
        rep->say(rep->ctx, line);
    else
        cp_say("mirror: %s", line);
}
