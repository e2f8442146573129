/* The sign-in table (sign-ins-table.h): made from one message (the decoder,
 * egress/sign-ins-codec.c), shared by reference, matched against requests, and the signed
 * head. */
#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "egress/policy/policy.h"
#include "egress/sign-ins/sign-ins-table.h"
#include "egress/sign-ins/scrub.h"
#include "src/base/util.h"

struct cp_egress_sign_ins {
    atomic_uint refs;
    size_t n;
    struct cp_egress_sign_in *v;
    char id[CP_EGRESS_SIGN_INS_ID_MAX + 1]; /* the sender's, for its answer; "" when none came */
};

/* ---- the table ---- */

static void table_free(struct cp_egress_sign_ins *t)
{
    struct cp_egress_sign_ins_message m = {.v = t->v, .n = t->n};
    cp_egress_sign_ins_message_dispose(&m);
    free(t);
}

const char *cp_egress_sign_ins_id(const struct cp_egress_sign_ins *t)
{
    return t->id;
}

size_t cp_egress_sign_ins_count(const struct cp_egress_sign_ins *t)
{
    return t != NULL ? t->n : 0;
}

struct cp_egress_sign_ins *cp_egress_sign_ins_ref(struct cp_egress_sign_ins *t)
{
    if (t != NULL)
        atomic_fetch_add(&t->refs, 1);
    return t;
}

void cp_egress_sign_ins_unref(struct cp_egress_sign_ins *t)
{
    if (t != NULL && atomic_fetch_sub(&t->refs, 1) == 1)
        table_free(t);
}

int cp_egress_sign_ins_parse(const char *data, size_t len, struct cp_egress_sign_ins **out,
                             cp_error_t *err)
{
    *out = NULL;
    struct cp_egress_sign_ins_message m;
    if (cp_egress_sign_ins_decode(data, len, &m, err) < 0)
        return cp_error_code(err);
    struct cp_egress_sign_ins *t = xcalloc(1, sizeof(*t));
    t->n = m.n;
    t->v = m.v;
    memcpy(t->id, m.id, sizeof(t->id));
    atomic_init(&t->refs, 1);
    *out = t;
    return 0;
}

/* ---- matching ---- */

/* The prefix's rule (sign-ins-table.h): one ending in '/' takes what begins with it; another, the
 * path itself and what lies under it as a folder. */
static bool prefix_takes(const char *prefix, const char *path)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) != 0)
        return false;
    return prefix[n - 1] == '/' || path[n] == '\0' || path[n] == '/';
}

const struct cp_egress_sign_in *cp_egress_sign_ins_match(const struct cp_egress_sign_ins *t,
                                                         const char *host, const char *target)
{
    char path[CP_EGRESS_SIGN_IN_PREFIX_MAX * 8 + 1];
    if (t == NULL || cp_egress_methods_path(target, path, sizeof(path)) < 0)
        return NULL;
    /* Path parameters: some hosts read "/npm/..;/admin" as "/admin", outside the prefix;
     * escaped, some decode it first. */
    if (strchr(path, ';') != NULL || strcasestr(path, "%3b") != NULL)
        return NULL;
    const struct cp_egress_sign_in *best = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const struct cp_egress_sign_in *s = &t->v[i];
        if (strcmp(s->host, host) != 0 || !prefix_takes(s->prefix, path))
            continue;
        if (best == NULL || strlen(s->prefix) > strlen(best->prefix))
            best = s;
    }
    return best;
}

bool cp_egress_sign_ins_host_listed(const struct cp_egress_sign_ins *t, const char *host)
{
    for (size_t i = 0; t != NULL && i < t->n; i++)
        if (strcmp(t->v[i].host, host) == 0)
            return true;
    return false;
}

void cp_egress_sign_ins_scrub_host(const struct cp_egress_sign_ins *t, const char *host,
                                   struct cp_scrub *s)
{
    for (size_t i = 0; t != NULL && i < t->n; i++)
        if (strcmp(t->v[i].host, host) == 0)
            cp_scrub_add_authorization(s, t->v[i].authorization);
}

bool cp_egress_sign_ins_may_carry(const char *method, const char *target, const char *body,
                                  size_t len)
{
    struct cp_egress_rule_result j = cp_egress_methods_judge(method, target);
    if (j.verdict == CP_RULE_BODY)
        return body != NULL && cp_egress_methods_body_ok(j.row, body, len);
    return j.verdict == CP_RULE_ALLOW;
}

bool cp_egress_sign_ins_carries(const struct cp_egress_sign_in *s, bool reading)
{
    return s != NULL && (reading || s->write);
}

/* ---- placeholders ---- */

static const char *find_nocase(const char *data, size_t len, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= len && i <= len - m; i++)
        if (strncasecmp(data + i, needle, m) == 0)
            return data + i;
    return NULL;
}

/* Whether the header line at line[0..n) is named name. */
static bool line_is(const char *line, size_t n, const char *name)
{
    size_t m = strlen(name);
    return n > m && line[m] == ':' && strncasecmp(line, name, m) == 0;
}

const struct cp_egress_sign_in *
cp_egress_sign_ins_misplaced(const struct cp_egress_sign_ins *t, const char *head, size_t len,
                             const struct cp_egress_sign_in *signing)
{
    for (size_t k = 0; t != NULL && k < t->n; k++) {
        const struct cp_egress_sign_in *s = &t->v[k];
        if (s->placeholder == NULL || find_nocase(head, len, s->placeholder) == NULL)
            continue;
        for (size_t i = 0; i < len;) {
            const char *nl = memchr(head + i, '\n', len - i);
            size_t n = nl != NULL ? (size_t)(nl - (head + i)) + 1 : len - i;
            /* The request line never is the header; the named header of the request the
             * sign-in carries is dropped whole and ours put in its place. */
            bool replaced = i > 0 && s == signing && line_is(head + i, n, s->header);
            if (!replaced && find_nocase(head + i, n, s->placeholder) != NULL)
                return s;
            i += n;
        }
    }
    return NULL;
}

const struct cp_egress_sign_in *
cp_egress_sign_ins_find_placeholder(const struct cp_egress_sign_ins *t, const char *data,
                                    size_t len)
{
    for (size_t k = 0; t != NULL && k < t->n; k++)
        if (t->v[k].placeholder != NULL && find_nocase(data, len, t->v[k].placeholder) != NULL)
            return &t->v[k];
    return NULL;
}

bool cp_egress_sign_ins_has_placeholders(const struct cp_egress_sign_ins *t)
{
    for (size_t k = 0; t != NULL && k < t->n; k++)
        if (t->v[k].placeholder != NULL)
            return true;
    return false;
}

/* ---- the signed head ---- */

char *cp_egress_sign_ins_head(const struct cp_egress_sign_in *s, const char *head, size_t len,
                              size_t *len_out)
{
    const char *header = s->header != NULL ? s->header : "Authorization";
    size_t hl = strlen(header);
    size_t auth = strlen(s->authorization);
    char *out = xmalloc(len + hl + 2 + auth + 4);
    size_t n = cp_http1_drop_header(head, len, header, out);
    n -= 2; /* the final empty line, written again after ours */
    memcpy(out + n, header, hl);
    memcpy(out + n + hl, ": ", 2);
    n += hl + 2;
    memcpy(out + n, s->authorization, auth);
    n += auth;
    memcpy(out + n, "\r\n\r\n", 4);
    *len_out = n + 4;
    return out;
}

void cp_egress_sign_ins_head_free(char *head, size_t len)
{
    if (head == NULL)
        return;
    explicit_bzero(head, len);
    free(head);
}

/* ---- the holder ---- */

void cp_egress_sign_ins_holder_init(struct cp_egress_sign_ins_holder *h)
{
    pthread_mutex_init(&h->lock, NULL);
    h->table = NULL;
}

void cp_egress_sign_ins_holder_dispose(struct cp_egress_sign_ins_holder *h)
{
    cp_egress_sign_ins_unref(h->table);
    h->table = NULL;
    pthread_mutex_destroy(&h->lock);
}

void cp_egress_sign_ins_holder_set(struct cp_egress_sign_ins_holder *h,
                                   struct cp_egress_sign_ins *t)
{
    pthread_mutex_lock(&h->lock);
    struct cp_egress_sign_ins *old = h->table;
    h->table = t;
    pthread_mutex_unlock(&h->lock);
    cp_egress_sign_ins_unref(old); /* wiped now, or when the last request using it is done */
}

struct cp_egress_sign_ins *cp_egress_sign_ins_holder_get(struct cp_egress_sign_ins_holder *h)
{
    pthread_mutex_lock(&h->lock);
    struct cp_egress_sign_ins *t = cp_egress_sign_ins_ref(h->table);
    pthread_mutex_unlock(&h->lock);
    return t;
}
