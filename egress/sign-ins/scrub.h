/* A sign-in's words taken out of the host's answers. A host whose answer echoes the request
 * (a debug page, an error that quotes its headers) would otherwise hand the box the credential
 * the sidecar added. Every answer from a host that has a sign-in is searched, head and body, for
 * each sign-in of that host in the forms an echo writes it: as sent ("Bearer TOKEN", "Basic
 * B64"), the credential alone, a Basic's decoded "user:pass" and its password, each also
 * percent-encoded (either case), form-encoded and JSON-escaped. Each occurrence is overwritten
 * with '*' byte for byte, so the answer's length and framing stay as the host sent them.
 *
 * Bodies are searched as they stream, of any size: only the last (longest form - 1) bytes are
 * held back until more come or the body ends. A form shorter than CP_SCRUB_MIN bytes is not
 * searched on its own (it would mask ordinary words), only inside the longer forms; a form
 * holding CR, LF or NUL is never searched for, since no header can carry it. The forms are
 * secrets: wiped when disposed. */
#ifndef CONCH_EGRESS_SCRUB_H
#define CONCH_EGRESS_SCRUB_H

#include <stdbool.h>
#include <stddef.h>

#define CP_SCRUB_MIN  8 /* bytes: a shorter form is searched only inside longer ones */
#define CP_SCRUB_MASK '*'

struct cp_scrub {
    char **form; /* each NUL-terminated; form_len[i] its length */
    size_t *form_len;
    size_t n, cap, longest;
    char *held; /* body bytes searched and not yet sent: at most longest - 1 between feeds */
    size_t held_len, held_cap;
};

void cp_scrub_init(struct cp_scrub *s);
/* Adds the forms of one Authorization value as the sidecar sends it. */
void cp_scrub_add_authorization(struct cp_scrub *s, const char *value);
bool cp_scrub_active(const struct cp_scrub *s);

/* Masks every form in data[0..len), in place (an answer's head, or a whole buffer). */
void cp_scrub_mask(const struct cp_scrub *s, char *data, size_t len);

/* The body's bytes in order: fed, masked, and handed to out as soon as no form can still begin
 * in them; cp_scrub_finish hands over the rest at the body's end. out returns 0, or -1 to stop
 * (returned then). */
typedef int (*cp_scrub_out_fn)(void *ctx, const char *data, size_t len);
int cp_scrub_feed(struct cp_scrub *s, const char *data, size_t len, cp_scrub_out_fn out, void *ctx);
int cp_scrub_finish(struct cp_scrub *s, cp_scrub_out_fn out, void *ctx);

/* Wipes and frees the forms and what is held; s is empty (cp_scrub_init's) after. */
void cp_scrub_dispose(struct cp_scrub *s);

#endif
