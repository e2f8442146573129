/* One line per event, through the caller's sink or conch-place's stderr words. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "mirror/event-lines.h"
#include "mirror/rules.h"
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

/* Names shown in the one line; past them only the count. */
#define HOST_RUN_SHOWN 8

void cp_report_host_run(struct cp_mirror_report *rep, const char *path)
{
    if (rep == NULL)
        return;
    rep->python_start = rep->python_start || cp_rules_python_start(path);
    if (rep->host_run++ < HOST_RUN_SHOWN) {
        cleanup_free char *shown = cp_escape(path);
        char *was = rep->host_run_names;
        rep->host_run_names = was ? xasprintf("%s, %s", was, shown) : xstrdup(shown);
        free(was);
    }
}

void cp_report_host_run_said(struct cp_mirror_report *rep, const char *how_to_take)
{
    if (rep == NULL || rep->host_run == 0)
        return;
    cleanup_free char *more = rep->host_run > HOST_RUN_SHOWN
                                  ? xasprintf(" and %zu more", rep->host_run - HOST_RUN_SHOWN)
                                  : xstrdup("");
    /* A box's pip install lands but for these: the words say why the environment is short. */
    const char *python = rep->python_start
                             ? "; Python here runs an environment's .pth files, sitecustomize.py "
                               "and usercustomize.py at every start of it, editors start it by "
                               "themselves and terminals source its activate scripts, so these "
                               "stay out while the rest of the environment lands"
                             : "";
    cp_report(rep, "not landed, since this computer runs %s by itself (host-run): %s%s%s; %s",
              rep->host_run == 1 ? "it" : "them", rep->host_run_names, more, python, how_to_take);
    cp_report_dispose(rep);
}

void cp_report_dispose(struct cp_mirror_report *rep)
{
    free(rep->host_run_names);
    rep->host_run_names = NULL;
    rep->host_run = 0;
    rep->python_start = false;
}
