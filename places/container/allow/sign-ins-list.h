/* The list of sign-ins (sign-ins-list.c): what a sign-in is, and the adders each source's
 * reader uses. Below the readers and the collection (sign-ins.c), which both include it. */
#ifndef CONCH_SIGN_INS_LIST_H
#define CONCH_SIGN_INS_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "places/container/allow/sign-in-read.h"

struct cp_sign_in {
    char *host;          /* lower-case name; the registry's or the remote's */
    char *prefix;        /* path prefix starting with '/', ending with '/' ("/" for a whole host) */
    char *authorization; /* the whole header value: "Bearer T" or "Basic B64" */
    char *source;        /* where it came from, words a person can act on; never secret */
    /* A sign-in the person named (`sign-ins add`, sign-ins-named.c); all NULL for a registry's
     * or a remote's, whose header is Authorization and which only fetching requests carry. */
    char *header;      /* the header the sidecar puts authorization in */
    char *placeholder; /* this run's stand-in, which the box holds in CONCH_SIGNIN_<env> */
    char *env;         /* NAME of CONCH_SIGNIN_NAME */
    bool write;        /* every method carries it (--write) */
};

struct cp_sign_ins {
    struct cp_sign_in *v;
    size_t n;
};

/* Whether host has a sign-in (for `hosts` words). */
bool cp_sign_ins_has(const struct cp_sign_ins *s, const char *host);

/* Wipes every authorization. */
void cp_sign_ins_dispose(struct cp_sign_ins *s);
#define cleanup_sign_ins __attribute__((cleanup(cp_sign_ins_dispose)))

/* Whether a is the sign-in for host and prefix. */
bool cp_sign_ins_same(const struct cp_sign_in *a, const char *host, const char *prefix);
/* Adds one, unless the host and prefix have one already (the first wins) or the list is full.
 * Takes authorization (wiped when not kept). */
void cp_sign_ins_add(struct cp_sign_ins *s, const char *host, const char *prefix,
                     char *authorization, const char *source);
/* Adds a named sign-in (the same first-wins rule), taking authorization and placeholder. */
void cp_sign_ins_add_named(struct cp_sign_ins *s, const struct cp_sign_in *named);
/* Whether the list holds a named sign-in (a run's box then gets placeholders). */
bool cp_sign_ins_any_named(const struct cp_sign_ins *s);
/* Adds the sign-in for url (taking authorization, which may be NULL); prefix_of turns the
 * address's path into the prefix. Only https on port 443 counts. */
void cp_sign_ins_add_for_url(struct cp_sign_ins *s, const char *url, char *authorization,
                             const char *source, char *(*prefix_of)(const char *));
/* "Basic B64" of user:password; the caller's (cp_free_secret). */
char *cp_sign_in_basic(const char *user, const char *password);
/* The Basic header of the user:password in url, or NULL. */
char *cp_sign_in_url_basic(const char *url);
/* A path as a prefix: "/a/b" -> "/a/b/"; "" -> "/". The caller's. */
char *cp_sign_in_prefix(const char *path);
/* Whether the sidecar can reach u with a sign-in (https, port 443, a valid name); a debug line
 * naming source when not. */
bool cp_sign_in_reachable(const struct cp_url *u, const char *source);

#endif
