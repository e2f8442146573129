/* The door's judge of one HTTP request head: pure (bytes in, a verdict out), so it can be
 * fuzzed and unit tested without a socket. Every refusal has its HTTP status and one line. */
#ifndef CONCH_RELAY_REQUEST_H
#define CONCH_RELAY_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/digest.h"

#define CP_RELAY_HEAD_MAX    8192 /* request line and headers together */
#define CP_RELAY_HEADERS_MAX 32
#define CP_RELAY_TICKET_LEN  32 /* bytes of a ticket: 256 random bits */
#define CP_RELAY_TICKET_HEX  (2 * CP_RELAY_TICKET_LEN)
/* What the runner sends in Accept (and the door in Content-Type) for the framed form. */
#define CP_RELAY_FRAMES_TYPE "application/x-conch-relay"

enum cp_relay_form {
    CP_RELAY_PLAIN,  /* curl: stdout and stderr as they come, then a status line */
    CP_RELAY_FRAMES, /* the runner: streams apart, the status in its own frame */
};

struct cp_relay_verdict {
    int status;         /* 0: a well-formed run, to be looked up; else the refusal's status */
    const char *reason; /* one line, never an echo of the request (static) */
    enum cp_relay_form form;
    /* SHA-256 of the ticket's 32 bytes (set when status is 0); the plain ticket is never
     * copied out of the judge, and its decoded bytes are wiped there. */
    uint8_t ticket_hash[CP_SHA256_LEN];
    size_t head_len; /* bytes of the head, final CRLF included */
};

/* Judges data[0..len) for the door listening on 127.0.0.1:port. Returns 1 when more bytes
 * are needed (no end of head yet, within the bound), else 0 with *out set. */
int cp_relay_judge(const char *data, size_t len, unsigned port, struct cp_relay_verdict *out);

/* The reason phrase of a status the judge or the door answers with. */
const char *cp_relay_status_text(int status);

#endif
