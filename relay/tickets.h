/* The door's tickets: each is 256 random bits, handed out once in plain and kept here only as
 * its SHA-256, good once, for at most CP_TICKET_TTL_MAX seconds, bound to the command, place
 * and folder it was minted for. Safe to call from the door's threads (one lock inside). */
#ifndef CONCH_RELAY_TICKETS_H
#define CONCH_RELAY_TICKETS_H

#include <stdint.h>

#include "relay/request.h"
#include "src/base/error.h"

#define CP_TICKET_TTL_MAX 1800 /* 30 minutes */
#define CP_TICKETS_MAX    1024 /* minted and not yet forgotten */

/* What a good ticket buys: the caller's after cp_tickets_take. */
struct cp_ticket {
    char **argv;
    char *place;
    char *workdir;
};

enum cp_ticket_state {
    CP_TICKET_GOOD,
    CP_TICKET_UNKNOWN,
    CP_TICKET_USED,
    CP_TICKET_EXPIRED,
};

struct cp_tickets;

struct cp_tickets *cp_tickets_new(void);
void cp_tickets_free(struct cp_tickets *t);

/* Mints a ticket for argv at place and workdir, good for ttl seconds (1..CP_TICKET_TTL_MAX)
 * from now (a monotonic clock in seconds). Its 64 hex digits go into out, which the caller
 * wipes (explicit_bzero) as soon as they are sent on. */
int cp_tickets_mint(struct cp_tickets *t, char *const *argv, const char *place, const char *workdir,
                    long ttl, long now, char out[CP_RELAY_TICKET_HEX + 1], cp_error_t *err);

/* Takes the ticket with this hash: good once. Every stored hash is compared, each in constant
 * time. On CP_TICKET_GOOD *out is the caller's; otherwise why not. */
enum cp_ticket_state cp_tickets_take(struct cp_tickets *t, const uint8_t hash[CP_SHA256_LEN],
                                     long now, struct cp_ticket **out);

/* Tickets still good at now. */
int cp_tickets_live(struct cp_tickets *t, long now);

void cp_ticket_free(struct cp_ticket *k);

/* The door's clock: CLOCK_MONOTONIC in seconds. */
long cp_tickets_now(void);

#endif
