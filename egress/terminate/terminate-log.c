/* A terminated tunnel's decision log: each line built from the hand-off (the box, the host, the
 * address dialed, the upstream proxy when one carried it) and written, a full disk never
 * stopping the worker. Below the worker's other files, calling none of them. */
#include "config.h"

#include <time.h>

#include "egress/terminate/terminate-int.h"
#include "src/base/util.h"

struct cp_egress_decision cp_terminate_decision(const struct worker *w,
                                                enum cp_egress_reason reason, const char *method,
                                                const char *path)
{
    return (struct cp_egress_decision){
        .time = time(NULL),
        .box = w->h.box,
        .host = w->h.host,
        .port = w->h.port,
        .reason = reason,
        .addr = w->h.addr[0] ? w->h.addr : NULL,
        .via = w->h.via[0] ? w->h.via : NULL,
        .method = method,
        .path = method != NULL ? (path != NULL ? path : "") : NULL,
    };
}

void cp_terminate_log_decision(const struct worker *w, const struct cp_egress_decision *d)
{
    cleanup_error cp_error_t err = NULL;
    if (cp_egress_log_write(w->cfg.log, d, &err) < 0)
        cp_error_print(&err);
}

void cp_terminate_log_line(struct worker *w, enum cp_egress_reason reason, const char *method,
                           const char *path)
{
    struct cp_egress_decision d = cp_terminate_decision(w, reason, method, path);
    cp_terminate_log_decision(w, &d);
}
