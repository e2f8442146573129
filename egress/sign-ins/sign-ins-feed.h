/* The sign-in channel: the sidecar's standard input, which conch-place attaches to at each
 * sealed run and writes one message to (sign-ins-table.h), a line of at most
 * CP_EGRESS_SIGN_INS_MESSAGE_MAX bytes ended by '\n'. The proxy's loop reads it when epoll says so
 * and never blocks on it. Each whole line replaces the whole table, or is refused whole (the table
 * stays); a longer line is discarded up to its newline; at the end of the input the table
 * stays as it is (and a last line without its newline is refused). Each outcome is a decision
 * line (elog.h) without content. */
#ifndef CONCH_EGRESS_SIGN_INS_FEED_H
#define CONCH_EGRESS_SIGN_INS_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "egress/sign-ins/sign-ins-table.h"
#include "src/base/error.h"

struct cp_egress_sign_ins_feed {
    int fd;                                  /* read, non-blocking; not owned */
    struct cp_egress_sign_ins_holder *table; /* where a taken message goes */
    FILE *log;
    char *buf; /* the line so far: at most CP_EGRESS_SIGN_INS_MESSAGE_MAX bytes, wiped after use */
    size_t len;
    bool discarding; /* past the bound: dropping bytes until the next newline */
    bool eof;
    int answer_fd; /* where "sign-ins ID N" goes once a message with an id is taken: standard
                    * output (init's choice), or the door's connection (sign-ins-door.h) */
};

/* Sets fd non-blocking and the feed up; cp_egress_sign_ins_feed_dispose wipes and frees it. */
int cp_egress_sign_ins_feed_init(struct cp_egress_sign_ins_feed *f, int fd,
                                 struct cp_egress_sign_ins_holder *table, FILE *log,
                                 cp_error_t *err);
void cp_egress_sign_ins_feed_dispose(struct cp_egress_sign_ins_feed *f);

/* Reads what fd holds now and handles every whole line. Returns 1 at the end of the input (the
 * caller stops watching fd), else 0. */
int cp_egress_sign_ins_feed_read(struct cp_egress_sign_ins_feed *f);

/* A hook for the messages of the channel that are not sign-ins (the sidecar's keys,
 * keys-message.h), one for the process, set before any feed is read (the door's thread reads one
 * too). Each whole line goes to it first; it returns true when it took the line, with answer
 * (NUL-ended,
 * "" for none) to send back where sign-ins' answers go. NULL: every line is a sign-ins one. */
typedef bool (*cp_egress_sign_ins_feed_hook)(const char *line, size_t len, char *answer,
                                             size_t cap);
void cp_egress_sign_ins_feed_set_hook(cp_egress_sign_ins_feed_hook hook);

/* Handles bytes as if read from fd (the reader's core, for tests and the fuzzer). */
void cp_egress_sign_ins_feed_bytes(struct cp_egress_sign_ins_feed *f, const char *data, size_t len);

#endif
