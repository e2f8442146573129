/* The ticket store. A record keeps the hash, the deadline and what the ticket buys; once used
 * or expired it keeps only the hash for a while, so a second use is told "already used"
 * rather than "unknown", and is then forgotten. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>

#include "relay/tickets.h"
#include "src/base/clock.h"
#include "src/base/util.h"

/* How long a used or expired ticket's hash is remembered, to say why it is refused. */
#define REMEMBER_MS ((int64_t)CP_TICKET_TTL_MAX * 1000)

struct record {
    bool in_use; /* the slot holds a ticket */
    bool used;
    uint8_t hash[CP_SHA256_LEN];
    int64_t deadline_ms;
    struct cp_ticket *buys; /* NULL once used or expired */
};

struct cp_tickets {
    pthread_mutex_t lock;
    struct record rec[CP_TICKETS_MAX];
};

int64_t cp_tickets_now(void)
{
    return cp_boot_ms();
}

void cp_ticket_free(struct cp_ticket *k)
{
    if (k == NULL)
        return;
    cp_strv_free(k->argv);
    free(k->place);
    free(k->workdir);
    free(k);
}

struct cp_tickets *cp_tickets_new(void)
{
    struct cp_tickets *t = xcalloc(1, sizeof(*t));
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

void cp_tickets_free(struct cp_tickets *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < CP_TICKETS_MAX; i++)
        cp_ticket_free(t->rec[i].buys);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* Drops what expired tickets bought, and forgets records past remembering. */
static void sweep(struct cp_tickets *t, int64_t now)
{
    for (size_t i = 0; i < CP_TICKETS_MAX; i++) {
        struct record *r = &t->rec[i];
        if (!r->in_use)
            continue;
        if (now >= r->deadline_ms) {
            cp_ticket_free(steal_pointer(&r->buys));
        }
        if (now >= r->deadline_ms + REMEMBER_MS)
            memset(r, 0, sizeof(*r));
    }
}

static struct record *free_slot(struct cp_tickets *t)
{
    for (size_t i = 0; i < CP_TICKETS_MAX; i++)
        if (!t->rec[i].in_use)
            return &t->rec[i];
    /* Full: the oldest used or expired record is forgotten first. */
    struct record *oldest = NULL;
    for (size_t i = 0; i < CP_TICKETS_MAX; i++)
        if (t->rec[i].buys == NULL &&
            (oldest == NULL || t->rec[i].deadline_ms < oldest->deadline_ms))
            oldest = &t->rec[i];
    if (oldest != NULL)
        memset(oldest, 0, sizeof(*oldest));
    return oldest;
}

static struct cp_ticket *ticket_new(char *const *argv, const char *place, const char *workdir)
{
    struct cp_ticket *k = xcalloc(1, sizeof(*k));
    size_t n = cp_strv_len(argv);
    k->argv = xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        k->argv[i] = xstrdup(argv[i]);
    k->place = xstrdup(place);
    k->workdir = xstrdup(workdir);
    return k;
}

static int random_bytes(uint8_t *buf, size_t len, cp_error_t *err)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "no random bytes for a ticket");
        got += (size_t)n;
    }
    return 0;
}

int cp_tickets_mint(struct cp_tickets *t, char *const *argv, const char *place, const char *workdir,
                    long ttl, int64_t now, char out[CP_RELAY_TICKET_HEX + 1], cp_error_t *err)
{
    if (argv == NULL || argv[0] == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "a ticket needs a command");
    if (ttl < 1 || ttl > CP_TICKET_TTL_MAX)
        return cp_error_make(err, CP_ERR_USAGE, 0, "a ticket lasts 1 to %d seconds, not %ld",
                             CP_TICKET_TTL_MAX, ttl);
    uint8_t raw[CP_RELAY_TICKET_LEN];
    if (random_bytes(raw, sizeof(raw), err) < 0)
        return cp_error_code(err);
    pthread_mutex_lock(&t->lock);
    sweep(t, now);
    struct record *r = free_slot(t);
    if (r != NULL) {
        cp_sha256(raw, sizeof(raw), r->hash);
        r->in_use = true;
        r->deadline_ms = now + (int64_t)ttl * 1000;
        r->buys = ticket_new(argv, place, workdir);
        cp_hex(raw, sizeof(raw), out);
    }
    pthread_mutex_unlock(&t->lock);
    explicit_bzero(raw, sizeof(raw));
    if (r == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the door holds %d live tickets already; use or let some expire",
                             CP_TICKETS_MAX);
    return 0;
}

enum cp_ticket_state cp_tickets_take(struct cp_tickets *t, const uint8_t hash[CP_SHA256_LEN],
                                     int64_t now, struct cp_ticket **out)
{
    *out = NULL;
    pthread_mutex_lock(&t->lock);
    sweep(t, now);
    struct record *found = NULL;
    /* No early exit: every slot is compared, so the time says nothing about where or whether. */
    for (size_t i = 0; i < CP_TICKETS_MAX; i++) {
        bool same = CRYPTO_memcmp(t->rec[i].hash, hash, CP_SHA256_LEN) == 0;
        if (same && t->rec[i].in_use)
            found = &t->rec[i];
    }
    enum cp_ticket_state st = CP_TICKET_UNKNOWN;
    if (found != NULL && found->used)
        st = CP_TICKET_USED;
    else if (found != NULL && now >= found->deadline_ms)
        st = CP_TICKET_EXPIRED;
    else if (found != NULL) {
        st = CP_TICKET_GOOD;
        found->used = true;
        *out = steal_pointer(&found->buys);
    }
    pthread_mutex_unlock(&t->lock);
    return st;
}

int cp_tickets_live(struct cp_tickets *t, int64_t now)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < CP_TICKETS_MAX; i++)
        n += t->rec[i].in_use && !t->rec[i].used && now < t->rec[i].deadline_ms;
    pthread_mutex_unlock(&t->lock);
    return n;
}
