/* .cargo/config.toml (and .cargo/config) as TOML 1.0 reads it, into dotted keys: [a.b] tables,
 * [[a]] arrays of tables (their elements named a[0], a[1], ...), dotted keys, quoted keys (bare
 * and quoted spellings of one key are one key: "rustc-wrapper" is rustc-wrapper), inline tables
 * (build = { rustc-wrapper = "x" } is build.rustc-wrapper), arrays, the four kinds of strings.
 * A value's text is kept as written. No C TOML library is among Debian 12's packages we build
 * with, so this is a small strict reader of our own: it keeps TOML's rules on defining a table
 * twice, reopening a dotted or inline table and repeating a key, and anything it does not know
 * (a date with a space in it, an escape TOML 1.0 lacks, a lone CR) makes the file not
 * understood. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mirror/keys.h"
#include "src/base/util.h"

#define SEG_MAX   256
#define NAME_MAX_ 1024

enum tkind { T_TABLE, T_ARRAY, T_VALUE };

struct tnode {
    char *name;
    size_t nlen;
    enum tkind kind;
    bool explicit_, dotted, sealed; /* defined by a header; made by a dotted key; inline */
    struct tnode **kids;
    size_t n;
    const char *value; /* into the text */
    size_t vlen;
};

struct tp {
    const char *s;
    size_t len, at, nodes;
    struct tnode *root, *cur;
};

struct seg {
    char b[SEG_MAX];
    size_t n;
};

static void node_free(struct tnode *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n; i++)
        node_free(t->kids[i]);
    free(t->kids);
    free(t->name);
    free(t);
}

static struct tnode *node_add(struct tp *p, struct tnode *parent, const struct seg *g,
                              enum tkind kind)
{
    if (++p->nodes > CP_KEYS_MAX * 2)
        return NULL;
    struct tnode *t = xcalloc(1, sizeof(*t));
    t->kind = kind;
    t->nlen = g ? g->n : 0;
    t->name = xmalloc(t->nlen + 1);
    if (g)
        memcpy(t->name, g->b, g->n);
    t->name[t->nlen] = '\0';
    if (parent->n % 16 == 0)
        parent->kids = xrealloc(parent->kids, (parent->n + 16) * sizeof(*parent->kids));
    parent->kids[parent->n++] = t;
    return t;
}

static struct tnode *node_find(const struct tnode *t, const struct seg *g)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->kids[i]->nlen == g->n && memcmp(t->kids[i]->name, g->b, g->n) == 0)
            return t->kids[i];
    return NULL;
}

static void node_seal(struct tnode *t)
{
    t->sealed = true;
    for (size_t i = 0; i < t->n; i++)
        node_seal(t->kids[i]);
}

static int peek(const struct tp *p, size_t off)
{
    return p->at + off < p->len ? (unsigned char)p->s[p->at + off] : -1;
}

static bool is_control(int c)
{
    return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

static void ws(struct tp *p)
{
    while (peek(p, 0) == ' ' || peek(p, 0) == '\t')
        p->at++;
}

/* A newline (LF or CRLF) at p: its length, else 0. */
static size_t newline(const struct tp *p)
{
    return peek(p, 0) == '\n' ? 1 : peek(p, 0) == '\r' && peek(p, 1) == '\n' ? 2 : 0;
}

static int comment(struct tp *p)
{
    if (peek(p, 0) != '#')
        return 0;
    for (p->at++; p->at < p->len && newline(p) == 0; p->at++)
        if (is_control(peek(p, 0)))
            return -1;
    return 0;
}

/* Blanks, a comment, then the line's end or the text's. */
static int eol(struct tp *p)
{
    ws(p);
    if (comment(p) < 0)
        return -1;
    size_t nl = newline(p);
    if (nl == 0 && p->at < p->len)
        return -1;
    p->at += nl;
    return 0;
}

/* Blanks, comments and newlines, as between an array's values. */
static int gap(struct tp *p)
{
    for (;;) {
        ws(p);
        if (comment(p) < 0)
            return -1;
        size_t nl = newline(p);
        if (nl == 0)
            return peek(p, 0) == '\r' ? -1 : 0;
        p->at += nl;
    }
}

static int seg_put(struct seg *g, const char *b, size_t n)
{
    if (g == NULL)
        return 0;
    if (g->n + n > SEG_MAX)
        return -1;
    memcpy(g->b + g->n, b, n);
    g->n += n;
    return 0;
}

/* A code point as UTF-8 into g; -1 for a surrogate, one past U+10FFFF, or NUL in a key. */
static int put_utf8(struct seg *g, unsigned long c)
{
    char b[4];
    size_t n;
    if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || (g != NULL && c == 0))
        return -1;
    if (c < 0x80) {
        b[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        b[0] = (char)(0xc0 | (c >> 6));
        b[1] = (char)(0x80 | (c & 0x3f));
        n = 2;
    } else if (c < 0x10000) {
        b[0] = (char)(0xe0 | (c >> 12));
        b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        b[2] = (char)(0x80 | (c & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | (c >> 18));
        b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
        b[3] = (char)(0x80 | (c & 0x3f));
        n = 4;
    }
    return seg_put(g, b, n);
}

/* One escape after '\' (TOML 1.0's: b t n f r " \ uXXXX UXXXXXXXX), decoded into g. */
static int escape(struct tp *p, struct seg *g)
{
    static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
    int c = peek(p, 0);
    const char *e = c > 0 ? strchr(from, c) : NULL;
    if (e != NULL) {
        p->at++;
        return seg_put(g, &to[e - from], 1);
    }
    size_t digits = c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (digits == 0)
        return -1;
    unsigned long v = 0;
    for (size_t i = 1; i <= digits; i++) {
        int h = cp_hex_value((char)peek(p, i));
        if (peek(p, i) < 0 || h < 0)
            return -1;
        v = v * 16 + (unsigned long)h;
    }
    p->at += digits + 1;
    return put_utf8(g, v);
}

/* A one-line string after its opening quote (q: '"' basic, '\'' literal), decoded into g. */
static int line_string(struct tp *p, char q, struct seg *g)
{
    for (;;) {
        int c = peek(p, 0);
        if (c < 0 || is_control(c))
            return -1;
        p->at++;
        if (c == q)
            return 0;
        if (c == '\\' && q == '"') {
            if (escape(p, g) < 0)
                return -1;
        } else {
            char ch = (char)c;
            if (seg_put(g, &ch, 1) < 0)
                return -1;
        }
    }
}

/* A basic string's line-ending backslash: blanks, a newline, then blanks and newlines. */
static int line_end_backslash(struct tp *p)
{
    ws(p);
    if (newline(p) == 0)
        return -1;
    while (peek(p, 0) == ' ' || peek(p, 0) == '\t' || newline(p) > 0)
        p->at += newline(p) > 0 ? newline(p) : 1;
    return 0;
}

/* A multi-line string after its three opening quotes: up to two quotes inside, five at the
 * end (two of them the string's). */
static int multi_string(struct tp *p, char q)
{
    p->at += newline(p);
    for (;;) {
        int c = peek(p, 0);
        size_t nl = newline(p);
        if (c < 0)
            return -1;
        if (nl > 0) {
            p->at += nl;
            continue;
        }
        if (is_control(c))
            return -1;
        if (c == q) {
            size_t run = 0;
            while (peek(p, run) == q)
                run++;
            if (run >= 3 && run <= 5) {
                p->at += run;
                return 0;
            }
            if (run > 5)
                return -1;
            p->at += run;
            continue;
        }
        p->at++;
        if (c == '\\' && q == '"') {
            int n = peek(p, 0);
            if ((n == ' ' || n == '\t' || newline(p) > 0) ? line_end_backslash(p) < 0
                                                          : escape(p, NULL) < 0)
                return -1;
        }
    }
}

/* One key segment: bare, "basic" or 'literal', decoded. */
static int key_seg(struct tp *p, struct seg *g)
{
    g->n = 0;
    int c = peek(p, 0);
    if (c == '"' || c == '\'') {
        if (peek(p, 1) == c && peek(p, 2) == c)
            return -1; /* multi-line strings are no keys */
        p->at++;
        return line_string(p, (char)c, g);
    }
    while ((c = peek(p, 0)) >= 0 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '_' || c == '-')) {
        char ch = (char)c;
        if (seg_put(g, &ch, 1) < 0)
            return -1;
        p->at++;
    }
    return g->n > 0 ? 0 : -1;
}

/* A dotted key: its segments in segs (at most CP_KEYS_DEPTH_MAX), their count in *n. */
static int key(struct tp *p, struct seg *segs, size_t *n)
{
    for (*n = 0;;) {
        if (*n >= CP_KEYS_DEPTH_MAX || key_seg(p, &segs[*n]) < 0)
            return -1;
        (*n)++;
        ws(p);
        if (peek(p, 0) != '.')
            return 0;
        p->at++;
        ws(p);
    }
}

static bool token_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '+' || c == '-' || c == '.' || c == ':';
}

/* A number, date, time or boolean: one word of token_char that starts as one of them. */
static int token(struct tp *p)
{
    size_t start = p->at;
    while (token_char(peek(p, 0)))
        p->at++;
    size_t n = p->at - start;
    const char *t = p->s + start;
    if (n == 0)
        return -1;
    if ((n == 4 && memcmp(t, "true", 4) == 0) || (n == 5 && memcmp(t, "false", 5) == 0))
        return 0;
    const char *u = (t[0] == '+' || t[0] == '-') ? t + 1 : t;
    size_t un = n - (size_t)(u - t);
    if (un == 3 && (memcmp(u, "inf", 3) == 0 || memcmp(u, "nan", 3) == 0))
        return 0;
    return un > 0 && u[0] >= '0' && u[0] <= '9' ? 0 : -1;
}

static int value(struct tp *p, struct tnode *into, int depth);

static int array(struct tp *p, int depth)
{
    p->at++;
    for (;;) {
        if (gap(p) < 0)
            return -1;
        if (peek(p, 0) == ']') {
            p->at++;
            return 0;
        }
        if (value(p, NULL, depth + 1) < 0 || gap(p) < 0)
            return -1;
        if (peek(p, 0) == ',')
            p->at++;
        else if (peek(p, 0) != ']')
            return -1;
    }
}

static int keyval_in(struct tp *p, struct tnode *table, int depth);

/* An inline table, on one line, no trailing comma; built into into (NULL: only read), then
 * sealed: nothing outside its braces adds to it. */
static int inline_table(struct tp *p, struct tnode *into, int depth)
{
    struct tnode scratch = {.kind = T_TABLE};
    struct tnode *t = into ? into : &scratch;
    p->at++;
    ws(p);
    int r = 0;
    if (peek(p, 0) == '}')
        p->at++;
    else
        for (;;) {
            if ((r = keyval_in(p, t, depth + 1)) < 0)
                break;
            ws(p);
            if (peek(p, 0) == '}') {
                p->at++;
                break;
            }
            if (peek(p, 0) != ',') {
                r = -1;
                break;
            }
            p->at++;
            ws(p);
        }
    node_seal(t);
    for (size_t i = 0; into == NULL && i < scratch.n; i++)
        node_free(scratch.kids[i]);
    if (into == NULL)
        free(scratch.kids);
    return r;
}

/* A value; an inline table is built into into when it is a key's own value. */
static int value(struct tp *p, struct tnode *into, int depth)
{
    if (depth > CP_KEYS_DEPTH_MAX)
        return -1;
    int c = peek(p, 0);
    if (c == '"' || c == '\'') {
        bool multi = peek(p, 1) == c && peek(p, 2) == c;
        p->at += multi ? 3 : 1;
        return multi ? multi_string(p, (char)c) : line_string(p, (char)c, NULL);
    }
    if (c == '[')
        return array(p, depth);
    if (c == '{')
        return inline_table(p, into, depth);
    return token(p);
}

/* key = value into table, by TOML's rules for dotted keys: each table on the way is new or one
 * a dotted key made (not a header's, not an inline one); the last key is new. */
static int keyval_in(struct tp *p, struct tnode *table, int depth)
{
    struct seg segs[CP_KEYS_DEPTH_MAX];
    size_t n = 0;
    if (key(p, segs, &n) < 0 || peek(p, 0) != '=')
        return -1;
    p->at++;
    ws(p);
    struct tnode *t = table;
    for (size_t i = 0; i + 1 < n; i++) {
        struct tnode *k = node_find(t, &segs[i]);
        if (k == NULL && (k = node_add(p, t, &segs[i], T_TABLE)) != NULL)
            k->dotted = true;
        if (k == NULL || k->kind != T_TABLE || !k->dotted || k->sealed)
            return -1;
        t = k;
    }
    if (node_find(t, &segs[n - 1]) != NULL)
        return -1;
    bool inline_ = peek(p, 0) == '{';
    struct tnode *v = node_add(p, t, &segs[n - 1], inline_ ? T_TABLE : T_VALUE);
    if (v == NULL)
        return -1;
    size_t start = p->at;
    if (value(p, inline_ ? v : NULL, depth) < 0)
        return -1;
    v->value = p->s + start;
    v->vlen = p->at - start;
    return 0;
}

/* [a.b] or [[a.b]]: the tables on the way are made (implicitly) or entered (an array of
 * tables: its last element); the last is defined once ([a.b]) or gets a new element. */
static int header(struct tp *p)
{
    bool arr = peek(p, 1) == '[';
    p->at += arr ? 2 : 1;
    ws(p);
    struct seg segs[CP_KEYS_DEPTH_MAX];
    size_t n = 0;
    if (key(p, segs, &n) < 0 || peek(p, 0) != ']' || (arr && peek(p, 1) != ']'))
        return -1;
    p->at += arr ? 2 : 1;
    struct tnode *t = p->root;
    for (size_t i = 0; i + 1 < n; i++) {
        struct tnode *k = node_find(t, &segs[i]);
        if (k == NULL)
            k = node_add(p, t, &segs[i], T_TABLE);
        if (k == NULL || k->kind == T_VALUE || k->sealed || (k->kind == T_ARRAY && k->n == 0))
            return -1;
        t = k->kind == T_ARRAY ? k->kids[k->n - 1] : k;
    }
    struct tnode *k = node_find(t, &segs[n - 1]);
    if (!arr) {
        if (k == NULL)
            k = node_add(p, t, &segs[n - 1], T_TABLE);
        else if (k->kind != T_TABLE || k->explicit_ || k->dotted || k->sealed)
            return -1;
    } else {
        if (k == NULL)
            k = node_add(p, t, &segs[n - 1], T_ARRAY);
        if (k == NULL || k->kind != T_ARRAY)
            return -1;
        k = node_add(p, k, NULL, T_TABLE);
    }
    if (k == NULL)
        return -1;
    k->explicit_ = true;
    p->cur = k;
    return eol(p);
}

static int statements(struct tp *p)
{
    while (p->at < p->len) {
        ws(p);
        if (comment(p) < 0)
            return -1;
        size_t nl = newline(p);
        if (nl > 0) {
            p->at += nl;
            continue;
        }
        if (p->at >= p->len)
            return 0;
        if (peek(p, 0) == '[' ? header(p) < 0 : keyval_in(p, p->cur, 0) < 0 || eol(p) < 0)
            return -1;
    }
    return 0;
}

static int flatten(const struct tnode *t, const char *prefix, struct cp_keys *out);

static int flatten_one(const struct tnode *k, const char *name, struct cp_keys *out)
{
    if (k->kind == T_VALUE)
        return cp_keys_add(out, name, strlen(name), k->value, k->vlen);
    if (k->kind == T_TABLE)
        return k->n == 0 ? cp_keys_add(out, name, strlen(name), "{}", 2) : flatten(k, name, out);
    for (size_t i = 0; i < k->n; i++) {
        char elem[NAME_MAX_];
        if ((size_t)snprintf(elem, sizeof(elem), "%s[%zu]", name, i) >= sizeof(elem) ||
            flatten_one(k->kids[i], elem, out) < 0)
            return -1;
    }
    return 0;
}

static int flatten(const struct tnode *t, const char *prefix, struct cp_keys *out)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct tnode *k = t->kids[i];
        char name[NAME_MAX_];
        snprintf(name, sizeof(name), "%s", prefix);
        if (cp_keys_join(name, sizeof(name), k->name, k->nlen) < 0 || flatten_one(k, name, out) < 0)
            return -1;
    }
    return 0;
}

int cp_keys_read_toml(const char *text, size_t len, struct cp_keys *out)
{
    *out = (struct cp_keys){0};
    if (len > CP_KEYS_FILE_MAX)
        return -1;
    struct tp p = {.s = text, .len = len, .root = xcalloc(1, sizeof(struct tnode))};
    p.root->kind = T_TABLE;
    p.cur = p.root;
    int r = statements(&p) == 0 ? flatten(p.root, "", out) : -1;
    node_free(p.root);
    if (r < 0)
        cp_keys_dispose(out);
    return r;
}
