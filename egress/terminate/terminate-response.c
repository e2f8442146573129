/* The host's side of a terminated tunnel: each answer's head and body passed to the box in the
 * order of the requests, framed so the next answer is known to begin; from a host with
 * sign-ins, scrubbed of them (scrub.h), and refused when it came compressed; a 401 or 403 to a
 * request we signed in is logged with where its credential came from. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "egress/terminate/answer.h"
#include "egress/sign-ins/sign-ins.h"
#include "egress/terminate/terminate-int.h"
#include "src/base/util.h"

static void answered(struct worker *w)
{
    cp_terminate_queue_pop(w);
    cp_scrub_dispose(&w->scrub);
    w->scrubbing = false;
    w->ss = S_HEAD;
}

/* An answer that cannot be searched whole goes no further: the box gets the sidecar's 502
 * with why, and the connection ends (what the host sends after it is never framed). */
static int refuse_unchecked(struct worker *w)
{
    const struct sent *q = &w->sent[w->qfirst];
    struct cp_egress_answer_about a = {.host = w->h.host, .method = q->method, .path = q->path};
    cleanup_free char *answer = xmalloc(CP_EGRESS_ANSWER_MAX);
    size_t n =
        cp_egress_answer_write(CP_EGRESS_SIGN_IN_UNCHECKED, &a, answer, CP_EGRESS_ANSWER_MAX);
    cp_terminate_log_line(w, CP_EGRESS_SIGN_IN_UNCHECKED, q->method ? q->method : "", q->path);
    cp_terminate_push(w, &w->box, answer, n);
    return -1;
}

/* An answer from a host with sign-ins: its head masked in place, its body to be searched as it
 * streams. */
static int scrub_start(struct worker *w, const struct cp_http1_response *r)
{
    const struct sent *q = &w->sent[w->qfirst];
    if (q->table == NULL)
        return 0;
    if (r->encoded && r->body != CP_HTTP1_BODY_NONE)
        return refuse_unchecked(w);
    cp_scrub_dispose(&w->scrub);
    cp_egress_sign_ins_scrub_host(q->table, w->h.host, &w->scrub);
    cp_scrub_mask(&w->scrub, w->host.buf, r->head_len);
    w->scrubbing = r->body != CP_HTTP1_BODY_NONE && r->status / 100 != 1;
    return 0;
}

/* A 401 or 403 to a request we signed in: the credential is stale or wrong, and the person
 * renews it where it came from, so the line names that place. The answer itself goes to the
 * box unchanged. */
static void check_sign_in(struct worker *w, int status)
{
    const struct sent *q = &w->sent[w->qfirst];
    if (q->source == NULL || (status != 401 && status != 403))
        return;
    struct cp_egress_decision d =
        cp_terminate_decision(w, CP_EGRESS_SIGN_IN_REFUSED, q->method, q->path);
    d.status = status;
    d.signed_in = true;
    d.source = q->source;
    cp_terminate_log_decision(w, &d);
}

/* The host answered the request whose body is still on its way: it will not read the rest as
 * that request's, and a host that kept the connection would read it as the next request, which
 * nothing here judged. The rest is not sent, and the connection ends after this answer. */
static void early_answer(struct worker *w, struct cp_http1_response *r)
{
    w->rs = R_STOP;
    w->close_after = true;
    r->close = true;
}

static int on_response_head(struct worker *w)
{
    struct cp_http1_response r;
    bool head = w->qn > 0 && w->sent[w->qfirst].head;
    int p = cp_http1_parse_response(w->host.buf, w->host.len, head, &r);
    if (p == 1)
        return 0;
    if (p < 0 || w->qn == 0) {
        cp_terminate_log_line(w, CP_EGRESS_UPSTREAM_HTTP, w->method ? w->method : "", w->target);
        return -1;
    }
    if (scrub_start(w, &r) < 0 || cp_terminate_push(w, &w->box, w->host.buf, r.head_len) < 0)
        return -1;
    cp_terminate_consume(&w->host, r.head_len);
    if (r.status / 100 == 1)
        return 1; /* 100 Continue and the like: the real answer follows */
    check_sign_in(w, r.status);
    if (w->qn == 1 && w->rs == R_BODY)
        early_answer(w, &r);
    w->resp_close = r.close;
    cp_terminate_framing_start(&w->sf, r.body, r.length);
    if (r.body == CP_HTTP1_BODY_NONE)
        answered(w);
    else
        w->ss = S_BODY;
    return 1;
}

static int handle_response_bytes(struct worker *w)
{
    if (w->host.len == 0)
        return 0;
    if (w->ss == S_HEAD)
        return on_response_head(w);
    int r = w->scrubbing ? cp_terminate_relay_scrubbed(w)
                         : cp_terminate_relay_body(w, &w->host, &w->sf, &w->box);
    if (r == 1)
        answered(w);
    return r < 0 ? -1 : 1;
}

int cp_terminate_step_response(struct worker *w)
{
    int r = handle_response_bytes(w);
    if (r != 0)
        return r;
    if (w->resp_close && w->qn == 0)
        return 0;
    r = cp_terminate_pull(w, &w->host);
    if (r < 0) {
        if (w->ss == S_BODY && w->sf.body == CP_HTTP1_BODY_CLOSE) {
            /* a body read until the close has ended */
            if (w->scrubbing && cp_terminate_scrub_end(w) < 0)
                return -1;
            answered(w);
        }
        return 0;
    }
    if (r == 0)
        return 0;
    return handle_response_bytes(w) < 0 ? -1 : 1;
}
