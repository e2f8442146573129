/* The sign-in table, its parser, its matching and the signed head (sign-ins-table.h).
 *
 * Strict, since a table that half-parses would send a credential where the person did not
 * mean it to go: exactly the keys named, strings only, printable ASCII only (so no CR or LF
 * could end the Authorization line we write and start another), bounded sizes, and every
 * prefix in the normal form the method table matches paths in. */
#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "egress/policy/policy.h"
#include "egress/sign-ins/sign-ins-table.h"
#include "egress/sign-ins/scrub.h"
#include "src/base/json.h"
#include "src/base/util.h"

#define JSON_DEPTH 8 /* the message needs 3 */

struct cp_egress_sign_ins {
    atomic_uint refs;
    size_t n;
    struct cp_egress_sign_in *v;
    char id[CP_EGRESS_SIGN_INS_ID_MAX + 1]; /* the sender's, for its answer; "" when none came */
};

/* ---- the table ---- */

static void wipe_free(char *s)
{
    cp_free_secret(s);
}

static void table_free(struct cp_egress_sign_ins *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].host);
        free(t->v[i].prefix);
        wipe_free(t->v[i].authorization);
        free(t->v[i].source);
        free(t->v[i].header);
        free(t->v[i].placeholder);
    }
    free(t->v);
    free(t);
}

static void table_freep(struct cp_egress_sign_ins **t)
{
    if (*t != NULL)
        table_free(*t);
}

const char *cp_egress_sign_ins_id(const struct cp_egress_sign_ins *t)
{
    return t->id;
}

/* The optional "id": lower-case hex, which the answer on standard output repeats. */
static int id_take(json_object *doc, struct cp_egress_sign_ins *t, cp_error_t *err)
{
    json_object *id = NULL;
    if (!json_object_object_get_ex(doc, "id", &id))
        return 0;
    const char *s = json_object_is_type(id, json_type_string) ? json_object_get_string(id) : "";
    size_t n = strlen(s);
    if (n == 0 || n > CP_EGRESS_SIGN_INS_ID_MAX || strspn(s, "0123456789abcdef") != n)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the message's id must be 1 to %d hex digits",
                             CP_EGRESS_SIGN_INS_ID_MAX);
    memcpy(t->id, s, n + 1);
    return 0;
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

/* ---- validation ---- */

static bool printable(const char *s, size_t n, bool space_ok)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < (space_ok ? 0x20 : 0x21) || s[i] > 0x7e)
            return false;
    return true;
}

/* A lower-case name: labels of letters, digits and '-', joined by single dots. */
static bool host_ok(const char *s, size_t n)
{
    if (n == 0 || n > CP_EGRESS_SIGN_IN_HOST_MAX || s[0] == '.' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        bool ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
                  (s[i] == '.' && s[i + 1] != '.');
        if (!ok)
            return false;
    }
    return true;
}

/* The prefix must already be what a path decodes to: otherwise "/a%62/" could never match
 * (paths are decoded) and "/x/../" could match what the method table refuses. */
static bool prefix_ok(const char *s, size_t n)
{
    char path[CP_EGRESS_SIGN_IN_PREFIX_MAX + 1];
    if (n == 0 || n > CP_EGRESS_SIGN_IN_PREFIX_MAX || s[0] != '/' || !printable(s, n, false))
        return false;
    if (memchr(s, '?', n) != NULL || memchr(s, '#', n) != NULL)
        return false;
    return cp_egress_methods_path(s, path, sizeof(path)) == 0 && strcmp(path, s) == 0;
}

/* "Bearer X" or "Basic X", X visible ASCII: conch-place builds these, so anything else is a
 * mistake worth refusing rather than sending. */
static bool authorization_ok(const char *s, size_t n)
{
    size_t scheme = strncmp(s, "Bearer ", 7) == 0 ? 7 : strncmp(s, "Basic ", 6) == 0 ? 6 : 0;
    return scheme > 0 && n > scheme && n <= CP_EGRESS_SIGN_IN_AUTH_MAX &&
           printable(s + scheme, n - scheme, false);
}

/* A named sign-in's value, of any scheme: visible ASCII and spaces, never CR or LF. */
static bool value_ok(const char *s, size_t n)
{
    return n > 0 && n <= CP_EGRESS_SIGN_IN_AUTH_MAX && printable(s, n, true) && s[0] != ' ' &&
           s[n - 1] != ' ';
}

/* A header's name: an RFC 9110 token. */
static bool header_ok(const char *s, size_t n)
{
    return n > 0 && n <= CP_EGRESS_SIGN_IN_HEADER_MAX &&
           strspn(s, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == n;
}

static bool placeholder_ok(const char *s, size_t n)
{
    return n >= CP_EGRESS_SIGN_IN_PLACEHOLDER_MIN && n <= CP_EGRESS_SIGN_IN_PLACEHOLDER_MAX &&
           strspn(s, "-_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == n;
}

static bool source_ok(const char *s, size_t n)
{
    return n > 0 && n <= CP_EGRESS_SIGN_IN_SOURCE_MAX && printable(s, n, true);
}

/* ---- parsing ---- */

/* A string field of an entry; NULL unless present, a string, and free of NUL bytes. */
static const char *field(json_object *entry, const char *key, size_t *len_out)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(entry, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    *len_out = (size_t)json_object_get_string_len(v);
    return strlen(s) == *len_out ? s : NULL;
}

typedef bool (*check_fn)(const char *s, size_t n);

static const struct {
    const char *key;
    check_fn ok;
    size_t offset;
} fields[] = {
    {"host", host_ok, offsetof(struct cp_egress_sign_in, host)},
    {"prefix", prefix_ok, offsetof(struct cp_egress_sign_in, prefix)},
    {"authorization", authorization_ok, offsetof(struct cp_egress_sign_in, authorization)},
    {"source", source_ok, offsetof(struct cp_egress_sign_in, source)},
};

/* A named sign-in's keys: header and placeholder together, write only with them. Returns how
 * many of the three are there, or -1. */
static int named_take(json_object *entry, size_t i, struct cp_egress_sign_in *out, cp_error_t *err)
{
    bool has_h = json_object_object_get_ex(entry, "header", NULL);
    bool has_p = json_object_object_get_ex(entry, "placeholder", NULL);
    json_object *w = NULL;
    bool has_w = json_object_object_get_ex(entry, "write", &w);
    if (!has_h && !has_p && !has_w)
        return 0;
    size_t hn = 0, pn = 0;
    const char *h = field(entry, "header", &hn), *p = field(entry, "placeholder", &pn);
    if (h == NULL || p == NULL || !header_ok(h, hn) || !placeholder_ok(p, pn) ||
        (has_w && !json_object_is_type(w, json_type_boolean))) {
        cp_error_make(err, CP_ERR_FAILED, 0,
                      "sign-in %zu: a named sign-in needs a header and a placeholder, and write "
                      "is a boolean",
                      i + 1);
        return -1;
    }
    out->header = xstrdup(h);
    out->placeholder = xstrdup(p);
    out->write = has_w && json_object_get_boolean(w);
    return 2 + has_w;
}

static int entry_take(json_object *entry, size_t i, struct cp_egress_sign_in *out, cp_error_t *err)
{
    if (!json_object_is_type(entry, json_type_object))
        return cp_error_make(err, CP_ERR_FAILED, 0, "sign-in %zu is not an object", i + 1);
    int named = named_take(entry, i, out, err);
    if (named < 0)
        return cp_error_code(err);
    if (json_object_object_length(entry) != (int)ARRAY_SIZE(fields) + named)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "sign-in %zu must have host, prefix, authorization and source "
                             "(a named one header, placeholder and write), nothing else",
                             i + 1);
    for (size_t f = 0; f < ARRAY_SIZE(fields); f++) {
        size_t n = 0;
        const char *s = field(entry, fields[f].key, &n);
        bool value = named > 0 && strcmp(fields[f].key, "authorization") == 0;
        if (s == NULL || !(value ? value_ok(s, n) : fields[f].ok(s, n)))
            return cp_error_make(err, CP_ERR_FAILED, 0, "sign-in %zu: the %s is missing or bad",
                                 i + 1, fields[f].key);
        *(char **)((char *)out + fields[f].offset) = xstrdup(s);
    }
    return 0;
}

static bool same_place(const struct cp_egress_sign_in *a, const struct cp_egress_sign_in *b)
{
    return strcmp(a->host, b->host) == 0 && strcmp(a->prefix, b->prefix) == 0;
}

static int entries_take(json_object *list, struct cp_egress_sign_ins *t, cp_error_t *err)
{
    size_t n = json_object_array_length(list);
    if (n > CP_EGRESS_SIGN_INS_MAX)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "more than %d sign-ins",
                             CP_EGRESS_SIGN_INS_MAX);
    t->v = xcalloc(n ? n : 1, sizeof(*t->v));
    for (size_t i = 0; i < n; i++) {
        t->n = i + 1; /* what was taken is freed (and wiped) on failure */
        if (entry_take(json_object_array_get_idx(list, i), i, &t->v[i], err) < 0)
            return cp_error_code(err);
        for (size_t j = 0; j < i; j++) {
            const char *pj = t->v[j].placeholder, *pi = t->v[i].placeholder;
            if (pi != NULL && pj != NULL &&
                (strcasestr(pi, pj) != NULL || strcasestr(pj, pi) != NULL))
                return cp_error_make(err, CP_ERR_FAILED, 0,
                                     "sign-ins %zu and %zu have overlapping placeholders", j + 1,
                                     i + 1);
            if (same_place(&t->v[j], &t->v[i]))
                return cp_error_make(err, CP_ERR_FAILED, 0,
                                     "sign-ins %zu and %zu name the same host and prefix", j + 1,
                                     i + 1);
        }
    }
    return 0;
}

/* json-c's copies of the values are wiped before they are freed. */
/* One document, strictly; the tokener's own buffer (which held each string as it was read) is
 * wiped before it is freed. The error says where, never what. */
static int parse_json(const char *data, size_t len, json_object **out, cp_error_t *err)
{
    json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
    if (tok == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, data, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    if (tok->pb != NULL && tok->pb->buf != NULL)
        explicit_bzero(tok->pb->buf, (size_t)tok->pb->size);
    json_tokener_free(tok);
    while (used < len && strchr(" \t\r", data[used]) != NULL && data[used] != '\0')
        used++;
    if (o == NULL || e != json_tokener_success || used != len) {
        cp_cleanup_json_wipep(&o);
        return cp_error_make(err, CP_ERR_FAILED, 0, "not one JSON document (byte %zu)", used + 1);
    }
    *out = o;
    return 0;
}

int cp_egress_sign_ins_parse(const char *data, size_t len, struct cp_egress_sign_ins **out,
                             cp_error_t *err)
{
    *out = NULL;
    if (len > CP_EGRESS_SIGN_INS_MESSAGE_MAX)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the message is past %d bytes",
                             CP_EGRESS_SIGN_INS_MESSAGE_MAX);
    cleanup_json_wipe json_object *doc = NULL;
    if (parse_json(data, len, &doc, err) < 0)
        return cp_error_code(err);
    json_object *list = NULL;
    int keys = json_object_is_type(doc, json_type_object) ? json_object_object_length(doc) : 0;
    bool has_id = json_object_object_get_ex(doc, "id", NULL);
    if (keys != 1 + has_id || !json_object_object_get_ex(doc, "sign_ins", &list) ||
        !json_object_is_type(list, json_type_array))
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the message must be {\"sign_ins\":[...]} with an optional \"id\"");
    __attribute__((cleanup(table_freep))) struct cp_egress_sign_ins *t = xcalloc(1, sizeof(*t));
    if (id_take(doc, t, err) < 0 || entries_take(list, t, err) < 0)
        return cp_error_code(err);
    atomic_init(&t->refs, 1);
    *out = steal_pointer(&t);
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
