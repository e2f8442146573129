/* The door's tickets: each is 256 random bits, handed out once in plain and kept here only as
 * its SHA-256, good once, for at most CP_TICKET_TTL_MAX seconds, bound to the command, place
 * and folder it was minted for. Safe to call from the door's threads (one lock inside). Times
 * are milliseconds of cp_tickets_now(): a lifetime of 1 s is a whole second from the mint, and
 * a suspended computer's sleep counts towards it. */
#ifndef CONCH_RELAY_TICKETS_H
#define CONCH_RELAY_TICKETS_H

#include <stdint.h>

#include "relay/relay.h"
#include "relay/request.h"
#include "src/base/error.h"

#define CP_TICKETS_MAX 1024 /* minted and not yet forgotten */

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
 * from now_ms. Its 64 hex digits go into out, which the caller wipes (explicit_bzero) as soon
 * as they are sent on. */
int cp_tickets_mint(struct cp_tickets *t, char *const *argv, const char *place, const char *workdir,
                    long ttl, int64_t now_ms, char out[CP_RELAY_TICKET_HEX + 1], cp_error_t *err);

/* Takes the ticket with this hash: good once. Every stored hash is compared, each in constant
 * time. On CP_TICKET_GOOD *out is the caller's; otherwise why not. */
enum cp_ticket_state cp_tickets_take(struct cp_tickets *t, const uint8_t hash[CP_SHA256_LEN],
                                     int64_t now_ms, struct cp_ticket **out);

/* Tickets still good at now_ms. */
int cp_tickets_live(struct cp_tickets *t, int64_t now_ms);

void cp_ticket_free(struct cp_ticket *k);

/* The door's clock, in milliseconds: cp_boot_ms() (CLOCK_BOOTTIME), which never jumps with
 * the wall clock's setting and, unlike CLOCK_MONOTONIC, goes on while the computer is suspended
 * (the cap is 30 minutes of the person's time, not of the computer's waking time). */
int64_t cp_tickets_now(void);

#endif
