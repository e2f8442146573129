/* The sign-in readers: npmrc and bunfig.toml line by line in hostconf.c's manner, .yarnrc.yml
 * through libyaml (YAML's quoting, block scalars and flow maps are more than a line reader
 * should guess at), netrc as the stream of words it is. Every buffer that held a file's text
 * is wiped before it goes: these files hold tokens. */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "places/container/allow/hostconf.h"
#include "places/container/allow/sign-in-read.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

/* A field of a record never holds a tab or a line break (they separate records' fields). */
#define RECORD_SEP "\t\r\n"

void cp_strv_free_secret(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        explicit_bzero(v[i], strlen(v[i]));
    cp_strv_free(v);
}

void cp_cleanup_strv_secretp(char ***v)
{
    cp_strv_free_secret(*v);
    *v = NULL;
}

/* The records a reader keeps: secrets, wiped by whoever frees them (cleanup_strv_secret). */
struct records {
    struct cp_strvec v;
};

/* Takes rec; a record past the limit, or whose fields would run together, is dropped. */
static void keep(struct records *r, char *rec, size_t fields)
{
    size_t tabs = 0;
    for (const char *p = rec; *p; p++)
        tabs += *p == '\t';
    if (r->v.n >= CP_HOSTCONF_ITEMS_MAX || tabs != fields - 1 || strpbrk(rec, "\r\n") != NULL) {
        cp_free_secret(rec);
        return;
    }
    cp_strvec_push_owned(&r->v, rec);
}

static char **done(struct records *r)
{
    return cp_strvec_steal(&r->v);
}

/* A quoted value up to its closing quote (\" and \\ kept as the character); else as is, or up
 * to a '#' comment where comments may follow (TOML). */
static char *unquote(char *v, bool comments)
{
    v = cp_trim_blanks(v);
    if (*v == '"' || *v == '\'') {
        char q = *v, *out = v, *in = v + 1;
        for (; *in && *in != q; in++) {
            if (*in == '\\' && in[1] != '\0' && q == '"')
                in++;
            *out++ = *in;
        }
        *out = '\0';
        return v;
    }
    if (comments)
        v[strcspn(v, "#")] = '\0';
    return cp_trim_blanks(v);
}

/* ---- npmrc ---- */

static const char *const npm_keys[] = {"_authToken", "_auth", "username", "_password", NULL};

static void npmrc_line(void *state, char *l)
{
    l = cp_trim_blanks(l);
    if (strncmp(l, "//", 2) != 0)
        return; /* a comment, a section, or a key that is not a registry's */
    size_t k = strcspn(l, "=");
    if (l[k] == '\0')
        return;
    l[k] = '\0';
    char *key = cp_trim_blanks(l), *colon = strrchr(key, ':');
    if (colon == NULL || colon == key + 2)
        return;
    *colon = '\0';
    for (size_t i = 0; npm_keys[i] != NULL; i++)
        if (strcmp(colon + 1, npm_keys[i]) == 0)
            keep(state, xasprintf("%s\t%s\t%s", key + 2, npm_keys[i], unquote(l + k + 1, false)),
                 3);
}

char **cp_npmrc_sign_in_lines(const char *text, size_t len)
{
    struct records r = {0};
    cp_hostconf_each_line(text, len, npmrc_line, &r);
    return done(&r);
}

/* ---- bunfig.toml ---- */

struct bun_registry {
    char *url, *token, *username, *password;
};

struct bunfig {
    struct records r;
    char section[256];
    struct bun_registry table; /* [install.registry] or [install.scopes.NAME], until it ends */
};

static void bun_clear(struct bun_registry *b)
{
    cp_free_secret(b->url);
    cp_free_secret(b->token);
    cp_free_secret(b->username);
    cp_free_secret(b->password);
    *b = (struct bun_registry){0};
}

static void bun_emit(struct records *r, struct bun_registry *b)
{
    if (b->url != NULL && b->url[0] != '\0')
        keep(r,
             xasprintf("%s\t%s\t%s\t%s", b->url, b->token ? b->token : "",
                       b->username ? b->username : "", b->password ? b->password : ""),
             4);
    bun_clear(b);
}

static void bun_field(struct bun_registry *b, const char *key, const char *value)
{
    char **slot = strcmp(key, "url") == 0        ? &b->url
                  : strcmp(key, "token") == 0    ? &b->token
                  : strcmp(key, "username") == 0 ? &b->username
                  : strcmp(key, "password") == 0 ? &b->password
                                                 : NULL;
    if (slot == NULL)
        return;
    cp_free_secret(*slot); /* TOML forbids a key twice; the last one is as good a guess */
    *slot = xstrdup(value);
}

/* The next key or value of an inline table: quoted, or bare up to a delimiter. */
static char *inline_word(char **p, const char *stops)
{
    char *s = *p + strspn(*p, " \t");
    if (*s == '"' || *s == '\'') {
        char q = *s, *out = s, *in = s + 1;
        for (; *in && *in != q; in++) {
            if (*in == '\\' && in[1] != '\0' && q == '"')
                in++;
            *out++ = *in;
        }
        *p = *in ? in + 1 : in;
        *out = '\0';
        return s;
    }
    size_t n = strcspn(s, stops);
    *p = s + n + (s[n] != '\0');
    if (s[n] != '\0')
        s[n] = '\0';
    return cp_trim_blanks(s);
}

/* `{ url = "X", token = "Y" }`, the '{' already passed. */
static void bun_inline(struct bun_registry *b, char *p)
{
    for (int guard = 0; *p && guard < 16; guard++) {
        p += strspn(p, " \t,");
        if (*p == '}' || *p == '\0')
            return;
        char *key = inline_word(&p, "= \t");
        p += strspn(p, " \t=");
        char *value = inline_word(&p, ",}");
        bun_field(b, key, value);
    }
}

/* registry = "URL" or { ... } */
static void bun_value(struct records *r, char *v)
{
    struct bun_registry b = {0};
    v = cp_trim_blanks(v);
    if (*v == '{')
        bun_inline(&b, v + 1);
    else
        b.url = xstrdup(unquote(v, true));
    bun_emit(r, &b);
}

static void bunfig_pair(struct bunfig *s, char *key, char *v)
{
    if (strcmp(s->section, "install.registry") == 0 ||
        strncmp(s->section, "install.scopes.", 15) == 0) {
        bun_field(&s->table, key, unquote(v, true));
        return;
    }
    if (strcmp(s->section, "install.scopes") == 0 ||
        (strcmp(s->section, "install") == 0 && strcmp(key, "registry") == 0))
        bun_value(&s->r, v);
}

static void bunfig_line(void *state, char *l)
{
    struct bunfig *s = state;
    l = cp_trim_blanks(l);
    if (*l == '\0' || *l == '#')
        return;
    if (*l == '[') {
        bun_emit(&s->r, &s->table);
        char *end = strrchr(l, ']');
        if (end != NULL)
            *end = '\0';
        snprintf(s->section, sizeof(s->section), "%s", end ? cp_trim_blanks(l + 1) : "");
        return;
    }
    size_t k = strcspn(l, "=");
    if (l[k] == '\0')
        return;
    l[k] = '\0';
    char *key = unquote(l, false);
    bunfig_pair(s, key, l + k + 1);
}

char **cp_bunfig_sign_in_lines(const char *text, size_t len)
{
    struct bunfig s = {0};
    cp_hostconf_each_line(text, len, bunfig_line, &s);
    bun_emit(&s.r, &s.table);
    return done(&s.r);
}

/* ---- .yarnrc.yml ---- */

/* libyaml keeps the text and every scalar it read: wiped before it lets them go. */
static void yaml_wipe(yaml_parser_t *p, yaml_document_t *d)
{
    for (yaml_node_t *n = d->nodes.start; n != NULL && n < d->nodes.top; n++)
        if (n->type == YAML_SCALAR_NODE && n->data.scalar.value != NULL)
            explicit_bzero(n->data.scalar.value, n->data.scalar.length);
    if (p->buffer.start != NULL)
        explicit_bzero(p->buffer.start, (size_t)(p->buffer.end - p->buffer.start));
    if (p->raw_buffer.start != NULL)
        explicit_bzero(p->raw_buffer.start, (size_t)(p->raw_buffer.end - p->raw_buffer.start));
}

/* A scalar's text (NUL-terminated by libyaml), or NULL. */
static const char *scalar(yaml_document_t *d, int id)
{
    yaml_node_t *n = yaml_document_get_node(d, id);
    return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in the mapping node map, as a node id, or 0. */
static int lookup(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return 0;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = scalar(d, p->key);
        if (k != NULL && strcmp(k, key) == 0)
            return p->value;
    }
    return 0;
}

static const char *lookup_scalar(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    int id = lookup(d, map, key);
    return id ? scalar(d, id) : NULL;
}

struct yarn_walk {
    yaml_document_t *doc;
    struct records r;
    bool sign_ins; /* records of sign-ins, else the registries' addresses */
};

/* One mapping's registry: its server (or the fallback) with its token and ident. */
static void yarn_entry(struct yarn_walk *w, yaml_node_t *map, const char *server)
{
    const char *own = lookup_scalar(w->doc, map, "npmRegistryServer");
    if (!w->sign_ins) {
        if (own != NULL && own[0] != '\0')
            keep(&w->r, xstrdup(own), 1);
        return;
    }
    const char *token = lookup_scalar(w->doc, map, "npmAuthToken");
    const char *ident = lookup_scalar(w->doc, map, "npmAuthIdent");
    server = own != NULL ? own : server;
    if (server != NULL && server[0] != '\0' && (token != NULL || ident != NULL))
        keep(&w->r, xasprintf("%s\t%s\t%s", server, token ? token : "", ident ? ident : ""), 3);
}

/* Each value of the mapping under key, as an entry; with_key: its key is the server. */
static void yarn_each(struct yarn_walk *w, yaml_node_t *root, const char *key, const char *fallback,
                      bool with_key)
{
    yaml_node_t *m = yaml_document_get_node(w->doc, lookup(w->doc, root, key));
    if (m == NULL || m->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
        if (v == NULL || v->type != YAML_MAPPING_NODE)
            continue;
        if (with_key && !w->sign_ins)
            continue; /* npmRegistries names sign-ins, never a registry to use */
        yarn_entry(w, v, with_key ? scalar(w->doc, p->key) : fallback);
    }
}

static char **yarn_read(const char *text, size_t len, bool sign_ins)
{
    struct yarn_walk w = {.sign_ins = sign_ins};
    if (len > CP_HOSTCONF_MAX)
        return done(&w.r);
    yaml_parser_t parser;
    yaml_document_t doc = {0};
    if (!yaml_parser_initialize(&parser))
        return done(&w.r);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (yaml_parser_load(&parser, &doc)) {
        w.doc = &doc;
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        const char *top = lookup_scalar(&doc, root, "npmRegistryServer");
        if (root != NULL && root->type == YAML_MAPPING_NODE) {
            yarn_entry(&w, root, NULL);
            yarn_each(&w, root, "npmScopes", top, false);
            yarn_each(&w, root, "npmRegistries", NULL, true);
        }
        yaml_wipe(&parser, &doc);
        yaml_document_delete(&doc);
    } else {
        yaml_wipe(&parser, &doc);
    }
    yaml_parser_delete(&parser);
    return done(&w.r);
}

char **cp_yarnrc_sign_in_lines(const char *text, size_t len)
{
    return yarn_read(text, len, true);
}

char **cp_yarnrc_registries(const char *text, size_t len)
{
    return yarn_read(text, len, false);
}

/* ---- netrc ---- */

struct netrc {
    struct records r;
    char *machine, *login, *password; /* borrowed from the copy being read */
    bool have_machine;
};

static void netrc_emit(struct netrc *s)
{
    if (s->have_machine && s->login != NULL && s->password != NULL)
        keep(&s->r, xasprintf("%s\t%s\t%s", s->machine ? s->machine : "", s->login, s->password),
             3);
    s->machine = s->login = s->password = NULL;
    s->have_machine = false;
}

/* The next word of the copy at *p, or NULL at its end: blank-separated, or double-quoted with
 * backslash escapes (as curl reads it). */
static char *netrc_word(char **p)
{
    char *s = *p + strspn(*p, " \t\r\n");
    if (*s == '\0')
        return NULL;
    if (*s == '"') {
        char *out = s, *in = s + 1;
        for (; *in && *in != '"'; in++) {
            if (*in == '\\' && in[1] != '\0')
                in++;
            *out++ = *in;
        }
        *p = *in ? in + 1 : in;
        *out = '\0';
        return s;
    }
    size_t n = strcspn(s, " \t\r\n");
    *p = s + n + (s[n] != '\0');
    s[n] = '\0';
    return s;
}

/* A macro's body runs to the first empty line. */
static char *skip_macdef(char *p)
{
    char *end = strstr(p, "\n\n");
    return end ? end + 2 : p + strlen(p);
}

static void netrc_token(struct netrc *s, const char *tok, char **p)
{
    if (strcmp(tok, "machine") == 0 || strcmp(tok, "default") == 0) {
        netrc_emit(s);
        s->have_machine = true;
        s->machine = strcmp(tok, "machine") == 0 ? netrc_word(p) : NULL;
        if (s->machine != NULL && s->machine[0] == '\0')
            s->have_machine = false;
    } else if (strcmp(tok, "login") == 0) {
        s->login = netrc_word(p);
    } else if (strcmp(tok, "password") == 0) {
        s->password = netrc_word(p);
    } else if (strcmp(tok, "account") == 0) {
        (void)netrc_word(p);
    } else if (strcmp(tok, "macdef") == 0) {
        netrc_emit(s);
        (void)netrc_word(p);
        *p = skip_macdef(*p);
    }
}

char **cp_netrc_lines(const char *text, size_t len)
{
    struct netrc s = {0};
    if (len > CP_HOSTCONF_MAX)
        return done(&s.r);
    char *copy = xmalloc(len + 1), *p = copy;
    memcpy(copy, text, len);
    copy[len] = '\0';
    for (char *tok; (tok = netrc_word(&p)) != NULL;)
        netrc_token(&s, tok, &p);
    netrc_emit(&s);
    explicit_bzero(copy, len);
    free(copy);
    return done(&s.r);
}

/* ---- addresses ---- */

char *cp_percent_decode(const char *s)
{
    char *out = xmalloc(strlen(s) + 1), *o = out;
    for (; *s; s++) {
        int hi = *s == '%' ? cp_hex_value(s[1]) : -1, lo = hi >= 0 ? cp_hex_value(s[2]) : -1;
        if (lo >= 0) {
            *o++ = (char)(hi * 16 + lo);
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

/* user[:password], both percent-decoded. */
static void take_userinfo(struct cp_url *u, char *info)
{
    char *colon = strchr(info, ':');
    if (colon != NULL)
        *colon = '\0';
    u->user = cp_percent_decode(info);
    if (colon != NULL)
        u->password = cp_percent_decode(colon + 1);
}

int cp_url_parse(const char *url, struct cp_url *out)
{
    *out = (struct cp_url){0};
    size_t sl = strncasecmp(url, "https://", 8) == 0  ? 8
                : strncasecmp(url, "http://", 7) == 0 ? 7
                                                      : 0;
    if (sl == 0)
        return -1;
    out->https = sl == 8;
    const char *auth = url + sl;
    size_t alen = strcspn(auth, "/?#");
    char *a = strndup(auth, alen), *hp = a, *at = strrchr(a, '@');
    if (at != NULL) {
        *at = '\0';
        take_userinfo(out, a);
        hp = at + 1;
    }
    char *colon = strchr(hp, ':');
    if (colon != NULL) {
        *colon = '\0';
        out->port = xstrdup(colon + 1);
    }
    out->host = xstrdup(hp);
    for (char *c = out->host; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    explicit_bzero(a, alen);
    free(a);
    const char *path = auth + alen;
    out->path = *path == '/' ? strndup(path, strcspn(path, "?#")) : xstrdup("/");
    if (out->host[0] == '\0') {
        cp_url_dispose(out);
        return -1;
    }
    return 0;
}

void cp_url_dispose(struct cp_url *u)
{
    free(u->host);
    free(u->port);
    free(u->path);
    cp_free_secret(u->user);
    cp_free_secret(u->password);
    *u = (struct cp_url){0};
}
