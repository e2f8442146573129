/* The requests a terminated tunnel sent on and has not yet had answered (pipelining), in
 * order: one pushed as the box's side sends it, taken off as the host's side ends its answer.
 * A request we signed in keeps its method, path and the sign-in's source, for the log line of
 * a refused sign-in. Below the two sides, calling none of the worker's files. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "egress/terminate/terminate-int.h"
#include "src/base/util.h"

void cp_terminate_queue_push(struct worker *w, bool head, char *source,
                             struct cp_egress_sign_ins *table)
{
    struct sent *q = &w->sent[(w->qfirst + w->qn++) % QUEUE_MAX];
    *q = (struct sent){.head = head, .source = source, .table = table};
    if (source != NULL) {
        q->method = xstrdup(w->method);
        q->path = xstrdup(w->target);
    }
}

void cp_terminate_sent_dispose(struct sent *q)
{
    free(q->source);
    free(q->method);
    free(q->path);
    cp_egress_sign_ins_unref(q->table);
    *q = (struct sent){0};
}

void cp_terminate_queue_pop(struct worker *w)
{
    cp_terminate_sent_dispose(&w->sent[w->qfirst]);
    w->qfirst = (w->qfirst + 1) % QUEUE_MAX;
    w->qn--;
}
