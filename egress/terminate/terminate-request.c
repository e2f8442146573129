/* The box's side of a terminated tunnel: each request head read (bounded), judged by the host's
 * mode and methods.h's table (a body a rule must read is held whole first), signed in when it
 * only reads and the person signed in to that host and path, logged, and sent on with its body;
 * or refused, the refusal kept until every earlier answer is out. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "egress/terminate/answer.h"
#include "egress/policy/policy.h"
#include "egress/terminate/terminate-int.h"
#include "src/base/clock.h"
#include "src/base/util.h"

static void refuse(struct worker *w, enum cp_egress_reason reason, const char *why,
                   const char *head, size_t head_len)
{
    struct cp_egress_answer_about a = {
        .host = w->h.host,
        .method = w->method,
        .path = w->target,
        .detail = why,
        .json = head != NULL && cp_egress_answer_wants_json(head, head_len),
    };
    w->refusal = xmalloc(CP_EGRESS_ANSWER_MAX);
    w->refusal_len = cp_egress_answer_write(reason, &a, w->refusal, CP_EGRESS_ANSWER_MAX);
    cp_terminate_log_line(w, reason, w->method ? w->method : "", w->target);
    w->rs = R_STOP;
}

/* A named sign-in's placeholder where the sidecar would not replace it: the request is
 * refused, so that the placeholder never stands in for the secret anywhere it was not meant. */
static bool placeholder_misplaced(struct worker *w, const struct cp_egress_sign_ins *t,
                                  const char *head, size_t len,
                                  const struct cp_egress_sign_in *signing, const char *body,
                                  size_t body_len)
{
    const struct cp_egress_sign_in *m = cp_egress_sign_ins_misplaced(t, head, len, signing);
    if (m == NULL && body != NULL)
        m = cp_egress_sign_ins_find_placeholder(t, body, body_len);
    if (m == NULL)
        return false;
    cleanup_free char *why =
        xasprintf("the placeholder of the sign-in for %s%s goes only in its %s header of "
                  "requests to that host and path%s",
                  m->host, m->prefix, m->header, m->write ? "" : " that fetch");
    refuse(w, CP_EGRESS_PLACEHOLDER, why, head, len);
    return true;
}

/* Sends the head on: signed in with s when given (the box's own header of its name then taken
 * off), as the box wrote it otherwise. To a host with any sign-in, every request asks for its
 * answer as its own bytes (Accept-Encoding: identity), since the answer is searched for the
 * sign-ins (scrub.h). */
static int send_head(struct worker *w, const char *head, size_t len,
                     const struct cp_egress_sign_in *s, bool listed)
{
    if (!listed)
        return cp_terminate_push(w, &w->host, head, len);
    size_t plain_len = 0;
    cleanup_free char *plain =
        cp_http1_set_header(head, len, "Accept-Encoding", "identity", &plain_len);
    if (s == NULL)
        return cp_terminate_push(w, &w->host, plain, plain_len);
    size_t n = 0;
    char *signed_head = cp_egress_sign_ins_head(s, plain, plain_len, &n);
    int r = cp_terminate_push(w, &w->host, signed_head, n);
    cp_egress_sign_ins_head_free(signed_head, n);
    return r;
}

/* Sends an allowed head on and starts its body, or refuses it for a misplaced placeholder
 * (returns 1 then). body: the whole body when a rule read it (held), else NULL; with it the
 * read table says whether the request only fetches, which alone may carry a registry's
 * sign-in (a named one added with --write goes with every method). */
static int forward(struct worker *w, const struct cp_http1_request *r, const char *head,
                   const char *body, size_t body_len)
{
    bool reading = cp_egress_sign_ins_may_carry(w->method, w->target, body, body_len);
    struct cp_egress_sign_ins *t =
        w->cfg.sign_ins != NULL ? cp_egress_sign_ins_holder_get(w->cfg.sign_ins) : NULL;
    bool listed = cp_egress_sign_ins_host_listed(t, w->h.host);
    const struct cp_egress_sign_in *s =
        listed ? cp_egress_sign_ins_match(t, w->h.host, w->target) : NULL;
    if (!cp_egress_sign_ins_carries(s, reading))
        s = NULL;
    if (placeholder_misplaced(w, t, head, r->head_len, s, body, body_len)) {
        cp_egress_sign_ins_unref(t);
        return 1;
    }
    char *source = s != NULL ? xstrdup(s->source) : NULL;
    if (send_head(w, head, r->head_len, s, listed) < 0) {
        free(source);
        cp_egress_sign_ins_unref(t);
        return -1;
    }
    struct cp_egress_decision d = cp_terminate_decision(w, CP_EGRESS_ALLOWED, w->method, w->target);
    d.signed_in = source != NULL;
    d.source = source;
    d.header = s != NULL ? s->header : NULL;
    cp_terminate_log_decision(w, &d);
    /* The body goes on as it comes, searched for placeholders on its way (terminate-io.c). */
    cp_egress_sign_ins_unref(w->body_table);
    w->body_table = cp_egress_sign_ins_has_placeholders(t) ? cp_egress_sign_ins_ref(t) : NULL;
    w->body_tail_len = 0;
    if (!listed) {
        cp_egress_sign_ins_unref(t);
        t = NULL;
    }
    cp_terminate_queue_push(w, strcmp(w->method, "HEAD") == 0, source, t);
    cp_terminate_framing_start(&w->rf, r->body, r->length);
    w->close_after = r->close;
    w->rs = r->body == CP_HTTP1_BODY_NONE ? (r->close ? R_STOP : R_HEAD) : R_BODY;
    return 0;
}

static void set_request(struct worker *w, const char *head, const struct cp_http1_request *r)
{
    w->method = xasprintf("%.*s", (int)r->method.len, head + r->method.off);
    w->target = xasprintf("%.*s", (int)r->target.len, head + r->target.off);
}

static bool holdable(const struct cp_http1_request *r)
{
    return r->body == CP_HTTP1_BODY_LENGTH && r->length <= CP_EGRESS_BODY_RULE_MAX;
}

/* A rule that reads the body: the head is held until the body is whole. */
static int hold(struct worker *w, const struct cp_http1_request *r, const char *head, int row)
{
    if (!holdable(r)) {
        refuse(w, CP_EGRESS_METHOD,
               "a body this rule reads must come with a Content-Length of "
               "at most 1 MiB",
               head, r->head_len);
        return 0;
    }
    w->held_want = r->head_len + (size_t)r->length;
    w->held = xmalloc(w->held_want);
    memcpy(w->held, head, r->head_len);
    w->held_len = r->head_len;
    w->held_row = row;
    w->rs = R_HELD;
    return 0;
}

/* Whether the table has an entry for this request's host and path. */
static bool sign_in_listed(struct worker *w)
{
    if (w->cfg.sign_ins == NULL)
        return false;
    struct cp_egress_sign_ins *t = cp_egress_sign_ins_holder_get(w->cfg.sign_ins);
    bool listed = cp_egress_sign_ins_match(t, w->h.host, w->target) != NULL;
    cp_egress_sign_ins_unref(t);
    return listed;
}

/* A write host takes everything; the read table decides only whether a request reads, and
 * so may carry a sign-in. A body that decides it is held only when a sign-in waits on it and
 * it can be held (else the request goes unsigned, as it is), since a write host never
 * refuses. */
static int judge_write(struct worker *w, const struct cp_http1_request *r, const char *head,
                       struct cp_egress_rule_result j)
{
    if (j.verdict == CP_RULE_BODY && holdable(r) && sign_in_listed(w))
        return hold(w, r, head, j.row);
    return forward(w, r, head, NULL, 0);
}

static int judge_head(struct worker *w, const struct cp_http1_request *r, const char *head)
{
    struct cp_egress_rule_result j = cp_egress_methods_judge(w->method, w->target);
    if (w->h.mode == CP_EGRESS_MODE_WRITE)
        return judge_write(w, r, head, j);
    if (j.verdict == CP_RULE_REFUSE) {
        refuse(w, CP_EGRESS_METHOD, j.why, head, r->head_len);
        return 0;
    }
    if (j.verdict == CP_RULE_BODY)
        return hold(w, r, head, j.row);
    return forward(w, r, head, NULL, 0);
}

#define BODY_START 64 /* body bytes read before a read-only host's head goes on */

/* A host that does not read a body takes it for the next request (CL.0), which nothing here
 * judged: to a read-only host, a body that begins as a request would is refused. Its first
 * bytes are read before the head goes on; a box that waits for 100 Continue gets it from us
 * (the head then goes without its Expect, so the host cannot send its own 100 and ignore the
 * body). A chunked body begins with its size line, which no host reads as a request. Returns
 * 1 when the start is here and sound, 0 when more is needed, 2 when refused, -1 on an error. */
static int body_start(struct worker *w, const struct cp_http1_request *r)
{
    if (w->h.mode == CP_EGRESS_MODE_WRITE || r->body != CP_HTTP1_BODY_LENGTH)
        return 1;
    size_t want = r->length < BODY_START ? (size_t)r->length : BODY_START;
    if (w->box.len >= r->head_len + want) {
        if (!cp_http1_looks_like_request(w->box.buf + r->head_len, want))
            return 1;
        refuse(w, CP_EGRESS_HIDDEN_REQUEST, "the body begins as a request would", w->box.buf,
               r->head_len);
        return 2;
    }
    if (r->expect_continue && !w->continued && w->qn == 0) {
        static const char go[] = "HTTP/1.1 100 Continue\r\n\r\n";
        w->continued = true;
        if (cp_terminate_push(w, &w->box, go, sizeof(go) - 1) < 0)
            return -1;
    }
    return 0;
}

/* Judges the head whose body's start is here, without its Expect when we answered it. */
static int judge_whole(struct worker *w, const struct cp_http1_request *r)
{
    if (!w->continued)
        return judge_head(w, r, w->box.buf);
    struct cp_http1_request sent = *r;
    cleanup_free char *head = xmalloc(r->head_len);
    sent.head_len = cp_http1_drop_header(w->box.buf, r->head_len, "expect", head);
    return judge_head(w, &sent, head);
}

static int on_head(struct worker *w)
{
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    if (cp_http1_parse_request(w->box.buf, w->box.len, w->h.host, &r, &reason) == 1)
        return 0;
    w->head_at = 0;
    free(w->method);
    free(w->target);
    w->method = w->target = NULL;
    if (r.method.len > 0 && r.target.len > 0)
        set_request(w, w->box.buf, &r);
    if (reason != CP_EGRESS_ALLOWED) {
        refuse(w, reason, r.why, w->box.buf, r.head_len ? r.head_len : w->box.len);
        return 1;
    }
    if (w->upstream_failed != CP_EGRESS_ALLOWED) {
        refuse(w, w->upstream_failed, w->upstream_why, w->box.buf, r.head_len);
        return 1;
    }
    int start = body_start(w, &r);
    if (start != 1)
        return start == 2 ? 1 : start;
    int judged = judge_whole(w, &r);
    w->continued = false;
    if (judged < 0)
        return -1;
    cp_terminate_consume(&w->box, r.head_len);
    return 1;
}

/* R_HELD: the body is gathered whole, then judged, then sent on with its head. */
static int on_held(struct worker *w)
{
    size_t take = w->held_want - w->held_len < w->box.len ? w->held_want - w->held_len : w->box.len;
    memcpy(w->held + w->held_len, w->box.buf, take);
    w->held_len += take;
    cp_terminate_consume(&w->box, take);
    if (w->held_len < w->held_want)
        return take > 0;
    struct cp_http1_request r;
    enum cp_egress_reason reason;
    cp_http1_parse_request(w->held, w->held_len, w->h.host, &r, &reason);
    size_t body = w->held_len - r.head_len;
    if (!cp_egress_methods_body_ok(w->held_row, w->held + r.head_len, body) &&
        w->h.mode != CP_EGRESS_MODE_WRITE) {
        refuse(w, CP_EGRESS_METHOD, "only a download batch passes", w->held, r.head_len);
        return 1;
    }
    r.body = CP_HTTP1_BODY_NONE; /* the body goes with the head, here */
    int sent = forward(w, &r, w->held, w->held + r.head_len, body);
    if (sent < 0 || (sent == 0 && cp_terminate_push(w, &w->host, w->held + r.head_len, body) < 0))
        return -1;
    free(w->held);
    w->held = NULL;
    return 1;
}

static int handle_request_bytes(struct worker *w)
{
    switch (w->rs) {
    case R_HEAD:
        if (w->box.len > 0 && w->head_at == 0)
            w->head_at = cp_now_ms() + w->cfg.head_timeout_ms;
        return w->box.len > 0 ? on_head(w) : 0;
    case R_BODY: {
        if (w->box.len == 0)
            return 0;
        int r = cp_terminate_relay_body(w, &w->box, &w->rf, &w->host);
        if (r == CP_TERMINATE_PLACEHOLDER) {
            /* The head is gone already: the tunnel ends before the placeholder goes on. */
            cp_terminate_log_line(w, CP_EGRESS_PLACEHOLDER, w->method ? w->method : "", w->target);
            return -1;
        }
        if (r == 1)
            w->rs = w->close_after ? R_STOP : R_HEAD;
        return r < 0 ? -1 : 1;
    }
    case R_HELD:
        return on_held(w);
    default:
        return 0;
    }
}

/* One step of the box's side: what is buffered first (pipelined requests), then a read. */
int cp_terminate_step_request(struct worker *w)
{
    int r = handle_request_bytes(w);
    if (r != 0 || w->rs == R_STOP)
        return r;
    r = cp_terminate_pull(w, &w->box);
    if (r < 0)
        return w->rs == R_HEAD && w->box.len == 0 ? 0 : -1; /* gone between requests: fine */
    if (r == 0)
        return 0;
    /* Bytes came: progress even if they are not a whole head yet, since OpenSSL may hold
     * more that poll() would not show. */
    return handle_request_bytes(w) < 0 ? -1 : 1;
}
