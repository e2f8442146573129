/* The sign-ins message, both ways: conch-place's encoder (places/container/allow/sign-ins-message.c
 * calls it) and the sidecar's decoder (sign-ins/sign-ins-table.c builds its table on it), in one
 * file so that both read their key names from one table.
 *
 * The decoder is strict, since a table that half-parses would send a credential where the
 * person did not mean it to go: exactly the keys named, strings only, printable ASCII only (so
 * no CR or LF could end the Authorization line we write and start another), bounded sizes, and
 * every prefix in the normal form the method table matches paths in. json-c's copies of every
 * value, and the text it printed or read, are wiped on both sides. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "egress/egress.h"
#include "egress/policy/policy.h"
#include "src/base/json.h"
#include "src/base/util.h"

#define JSON_DEPTH 8 /* the message needs 3 */

#define cleanup_message __attribute__((cleanup(cp_egress_sign_ins_message_dispose)))

/* The message's keys (egress.h shows the shape). */
#define KEY_ID            "id"
#define KEY_SIGN_INS      "sign_ins"
#define KEY_HOST          "host"
#define KEY_PREFIX        "prefix"
#define KEY_AUTHORIZATION "authorization"
#define KEY_SOURCE        "source"
#define KEY_HEADER        "header"
#define KEY_PLACEHOLDER   "placeholder"
#define KEY_WRITE         "write"

void cp_egress_sign_ins_message_dispose(struct cp_egress_sign_ins_message *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].host);
        free(m->v[i].prefix);
        cp_free_secret(m->v[i].authorization);
        free(m->v[i].source);
        free(m->v[i].header);
        free(m->v[i].placeholder);
    }
    free(m->v);
    memset(m, 0, sizeof(*m));
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

/* ---- the keys every entry has ---- */

typedef bool (*check_fn)(const char *s, size_t n);

static const struct {
    const char *key;
    check_fn ok;
    size_t offset;
} fields[] = {
    {KEY_HOST, host_ok, offsetof(struct cp_egress_sign_in, host)},
    {KEY_PREFIX, prefix_ok, offsetof(struct cp_egress_sign_in, prefix)},
    {KEY_AUTHORIZATION, authorization_ok, offsetof(struct cp_egress_sign_in, authorization)},
    {KEY_SOURCE, source_ok, offsetof(struct cp_egress_sign_in, source)},
};

/* ---- encoding ---- */

/* One entry: the four keys every sign-in has, in the table's order, then a named one's three.
 * json-c keeps its own copy of every string: cp_egress_sign_ins_message wipes them. */
static json_object *entry_object(const struct cp_egress_sign_in *s)
{
    json_object *o = json_object_new_object();
    for (size_t f = 0; f < ARRAY_SIZE(fields); f++) {
        const char *value = *(char *const *)((const char *)s + fields[f].offset);
        json_object_object_add(o, fields[f].key, json_object_new_string(value));
    }
    if (s->placeholder == NULL)
        return o;
    json_object_object_add(o, KEY_HEADER, json_object_new_string(s->header));
    json_object_object_add(o, KEY_PLACEHOLDER, json_object_new_string(s->placeholder));
    json_object_object_add(o, KEY_WRITE, json_object_new_boolean(s->write));
    return o;
}

char *cp_egress_sign_ins_message(const struct cp_egress_sign_in *v, size_t n, const char *id)
{
    json_object *doc = json_object_new_object();
    json_object *a = json_object_new_array();
    if (id != NULL)
        json_object_object_add(doc, KEY_ID, json_object_new_string(id));
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, entry_object(&v[i]));
    json_object_object_add(doc, KEY_SIGN_INS, a);
    char *out = cp_json_secret_line(doc);
    cp_cleanup_json_wipep(&doc);
    return out;
}

/* ---- decoding ---- */

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

/* The optional "id": lower-case hex, which the answer on standard output repeats. */
static int id_take(json_object *doc, struct cp_egress_sign_ins_message *t, cp_error_t *err)
{
    json_object *id = NULL;
    if (!json_object_object_get_ex(doc, KEY_ID, &id))
        return 0;
    const char *s = json_object_is_type(id, json_type_string) ? json_object_get_string(id) : "";
    size_t n = strlen(s);
    if (n == 0 || n > CP_EGRESS_SIGN_INS_ID_MAX || strspn(s, "0123456789abcdef") != n)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the message's id must be 1 to %d hex digits",
                             CP_EGRESS_SIGN_INS_ID_MAX);
    memcpy(t->id, s, n + 1);
    return 0;
}

/* A named sign-in's keys: header and placeholder together, write only with them. Returns how
 * many of the three are there, or -1. */
static int named_take(json_object *entry, size_t i, struct cp_egress_sign_in *out, cp_error_t *err)
{
    bool has_h = json_object_object_get_ex(entry, KEY_HEADER, NULL);
    bool has_p = json_object_object_get_ex(entry, KEY_PLACEHOLDER, NULL);
    json_object *w = NULL;
    bool has_w = json_object_object_get_ex(entry, KEY_WRITE, &w);
    if (!has_h && !has_p && !has_w)
        return 0;
    size_t hn = 0, pn = 0;
    const char *h = field(entry, KEY_HEADER, &hn), *p = field(entry, KEY_PLACEHOLDER, &pn);
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
        bool value = named > 0 && strcmp(fields[f].key, KEY_AUTHORIZATION) == 0;
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

static int entries_take(json_object *list, struct cp_egress_sign_ins_message *t, cp_error_t *err)
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

int cp_egress_sign_ins_decode(const char *data, size_t len, struct cp_egress_sign_ins_message *out,
                              cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    if (len > CP_EGRESS_SIGN_INS_MESSAGE_MAX)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the message is past %d bytes",
                             CP_EGRESS_SIGN_INS_MESSAGE_MAX);
    cleanup_json_wipe json_object *doc = NULL;
    if (parse_json(data, len, &doc, err) < 0)
        return cp_error_code(err);
    json_object *list = NULL;
    int keys = json_object_is_type(doc, json_type_object) ? json_object_object_length(doc) : 0;
    bool has_id = json_object_object_get_ex(doc, KEY_ID, NULL);
    if (keys != 1 + has_id || !json_object_object_get_ex(doc, KEY_SIGN_INS, &list) ||
        !json_object_is_type(list, json_type_array))
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the message must be {\"sign_ins\":[...]} with an optional \"id\"");
    cleanup_message struct cp_egress_sign_ins_message m = {0};
    if (id_take(doc, &m, err) < 0 || entries_take(list, &m, err) < 0)
        return cp_error_code(err);
    *out = m;
    memset(&m, 0, sizeof(m));
    return 0;
}
