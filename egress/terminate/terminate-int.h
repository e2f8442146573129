/* What the files of a terminated tunnel's worker share: the worker, its two TLS sides, the
 * requests awaiting answers, and the steps each file takes for the others. Private to
 * egress/terminate/terminate*.c.
 *
 * The files stand in layers, each calling only those below it: terminate-log.c (the decision
 * log's lines), terminate-queue.c (the requests awaiting answers) and terminate-io.c (TLS reads
 * and writes with deadlines, and the bodies' framing) at the bottom; terminate-scrub.c (an
 * answer's body searched for sign-ins as it streams) above them; terminate-request.c, the box's
 * side (a head read, judged, signed in or not, sent on), and terminate-response.c, the host's
 * side (each answer framed and scrubbed, in order); and terminate.c on top, which runs the worker
 * (its thread, both handshakes, the loop over the two directions, the linger after a refusal). */
#ifndef CONCH_EGRESS_TERMINATE_INT_H
#define CONCH_EGRESS_TERMINATE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <openssl/ssl.h>

#include "egress/policy/policy.h"
#include "egress/sign-ins/sign-ins.h"
#include "egress/terminate/terminate.h"

#define QUEUE_MAX 32          /* requests sent on and not yet answered (pipelining) */
#define IO_CHUNK  (16 * 1024) /* one TLS record's worth */
#define BUF_CAP   (CP_HTTP1_HEAD_MAX + IO_CHUNK)

enum rstate { R_HEAD, R_BODY, R_HELD, R_STOP };
enum sstate { S_HEAD, S_BODY };

/* One direction's body framing. */
struct framing {
    enum cp_http1_body body;
    uint64_t left;
    struct cp_http1_chunked chunked;
};

/* A request sent on and not yet answered. */
struct sent {
    bool head;    /* a HEAD: its answer has no body */
    char *source; /* the sign-in's source when we added one, else NULL; then method, path */
    char *method, *path;
    struct cp_egress_sign_ins *table; /* a reference when the host has sign-ins: its answer is
                                       * scrubbed of them all (scrub.h) */
};

struct side {
    SSL *ssl;
    int fd;
    short want; /* POLLIN or POLLOUT: what the last SSL call waited for */
    char *buf;  /* bytes read and not yet handled */
    size_t len;
    bool eof;
};

struct worker {
    struct cp_egress_terminate_config cfg;
    struct cp_egress_handoff h;
    struct side box, host;
    int64_t idle_at, head_at; /* deadlines (cp_now_ms); head_at 0 unless a head has begun */
    enum rstate rs;
    struct framing rf, sf;
    bool close_after; /* the request just sent asked for Connection: close */
    bool continued;   /* we answered this request's Expect: 100-continue ourselves */
    char *held;       /* R_HELD: the head and the body a rule must read */
    size_t held_len, held_want;
    int held_row;
    char *method, *target;       /* the request being read or held, for the log */
    struct sent sent[QUEUE_MAX]; /* the requests awaiting answers, from qfirst */
    size_t qfirst, qn;
    enum sstate ss;
    bool resp_close;
    bool scrubbing; /* S_BODY: the answer's body goes through scrub */
    struct cp_scrub scrub;
    char *refusal; /* written once every earlier answer is out */
    size_t refusal_len;
    struct cp_egress_sign_ins *body_table; /* R_BODY: a reference when the table holds placeholders,
                                            * each searched for in the request's body as it goes */
    char body_tail[CP_EGRESS_SIGN_IN_PLACEHOLDER_MAX]; /* the body's last bytes, for one split */
    size_t body_tail_len;
    enum cp_egress_reason upstream_failed;
    char upstream_why[256];
};

/* terminate-log.c: the log. */
struct cp_egress_decision cp_terminate_decision(const struct worker *w,
                                                enum cp_egress_reason reason, const char *method,
                                                const char *path);
void cp_terminate_log_decision(const struct worker *w, const struct cp_egress_decision *d);
void cp_terminate_log_line(struct worker *w, enum cp_egress_reason reason, const char *method,
                           const char *path);

/* terminate-queue.c: the requests awaiting answers. */
void cp_terminate_queue_push(struct worker *w, bool head, char *source,
                             struct cp_egress_sign_ins *table);
void cp_terminate_queue_pop(struct worker *w);
void cp_terminate_sent_dispose(struct sent *q);

/* terminate-io.c: TLS with deadlines, and bodies. */
int cp_terminate_ssl_again(struct side *s, int ret);
int cp_terminate_push(struct worker *w, struct side *s, const char *data, size_t len);
int cp_terminate_pull(struct worker *w, struct side *s);
void cp_terminate_consume(struct side *s, size_t n);
void cp_terminate_framing_start(struct framing *f, enum cp_http1_body body, uint64_t length);
ssize_t cp_terminate_body_part(struct framing *f, const char *data, size_t n, bool *done);
/* Relays what of the body is here; 1 when it is all through, 0 when more is to come, -1 on an
 * error; CP_TERMINATE_PLACEHOLDER when the box's body holds a placeholder (w->body_table), that
 * part not sent. */
#define CP_TERMINATE_PLACEHOLDER 2
int cp_terminate_relay_body(struct worker *w, struct side *from, struct framing *f,
                            struct side *to);

/* terminate-request.c: the box's side. */
int cp_terminate_step_request(struct worker *w);

/* terminate-scrub.c: an answer's body through the scrubber. */
int cp_terminate_relay_scrubbed(struct worker *w);
int cp_terminate_scrub_end(struct worker *w);

/* terminate-response.c: the host's side. */
int cp_terminate_step_response(struct worker *w);

#endif
