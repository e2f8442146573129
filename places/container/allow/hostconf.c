/* Line readers for npmrc, bunfig.toml, pip.conf and git's config: only the keys the allow-list
 * needs, from text already read, within fixed limits. Nothing here includes another file,
 * expands a variable or runs anything (git's own reader would honour include.path, and git
 * commands in a hostile folder can run its hooks and fsmonitor). */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "places/container/allow/hostconf.h"
#include "src/base/hostname.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

enum dialect { NPMRC, BUNFIG, PIPCONF, GITCONFIG };

struct reader {
    enum dialect dialect;
    char section[256];      /* lower-cased; for git the subsection follows a '\t' */
    struct cp_strvec items; /* what the dialect keeps */
    bool more_indexes;      /* pip: an indented line goes on with the index list above */
};

static void keep(struct reader *r, char *item)
{
    if (r->items.n >= CP_HOSTCONF_ITEMS_MAX) {
        free(item);
        return;
    }
    cp_strvec_push_owned(&r->items, item);
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* A value: a quoted string up to its closing quote (\" and \\ kept as the character), else
 * the text up to an unquoted comment where the dialect has them. */
static char *value_of(char *v, enum dialect d)
{
    v = cp_trim_blanks(v);
    if (*v == '"' || (*v == '\'' && d == BUNFIG)) {
        char q = *v, *out = v, *in = v + 1;
        for (; *in && *in != q; in++) {
            if (*in == '\\' && in[1] != '\0' && q == '"')
                in++;
            *out++ = *in;
        }
        *out = '\0';
        return v;
    }
    if (d == GITCONFIG || d == BUNFIG)
        v[strcspn(v, d == GITCONFIG ? "#;" : "#")] = '\0';
    return cp_trim_blanks(v);
}

/* [section], [section "sub"] and [section.sub]; git keeps the subsection after a tab. */
static void take_section(struct reader *r, char *line)
{
    char *end = strrchr(line, ']');
    if (end == NULL) {
        r->section[0] = '\0';
        return;
    }
    *end = '\0';
    char *name = cp_trim_blanks(line + 1), *quote = strchr(name, '"');
    if (r->dialect == GITCONFIG && quote != NULL) {
        *quote = '\0';
        char *sub = quote + 1, *close = strrchr(sub, '"');
        if (close != NULL)
            *close = '\0';
        char *sect = cp_trim_blanks(name);
        lower(sect);
        snprintf(r->section, sizeof(r->section), "%s\t%s", sect, sub);
        return;
    }
    if (r->dialect == GITCONFIG && strchr(name, '.') != NULL) {
        lower(name);
        char *dot = strchr(name, '.');
        *dot = '\0';
        snprintf(r->section, sizeof(r->section), "%s\t%s", name, dot + 1);
        return;
    }
    if (r->dialect != BUNFIG)
        lower(name);
    snprintf(r->section, sizeof(r->section), "%s", name);
}

/* bunfig's inline table `{ url = "X", token = "Y" }`: the url's value. */
static char *inline_url(char *v)
{
    char *p = strstr(v, "url");
    while (p != NULL && p > v && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
        p = strstr(p + 3, "url");
    if (p == NULL)
        return NULL;
    p = cp_trim_blanks(p + 3);
    if (*p != '=')
        return NULL;
    char *val = value_of(p + 1, BUNFIG);
    val[strcspn(val, ",}")] = '\0';
    return cp_trim_blanks(val);
}

static void bunfig_pair(struct reader *r, const char *key, char *v)
{
    const char *s = r->section;
    bool scopes = strcmp(s, "install.scopes") == 0;
    bool table = strcmp(s, "install.registry") == 0 || strncmp(s, "install.scopes.", 15) == 0;
    if (table && strcmp(key, "url") == 0) {
        keep(r, xstrdup(value_of(v, BUNFIG)));
        return;
    }
    if (!scopes && !(strcmp(s, "install") == 0 && strcmp(key, "registry") == 0))
        return;
    char *t = cp_trim_blanks(v);
    char *url = *t == '{' ? inline_url(t + 1) : value_of(t, BUNFIG);
    if (url != NULL && *url != '\0')
        keep(r, xstrdup(url));
}

/* extra-index-url too: pip takes a package from whichever index has the higher version, so a
 * private index beside PyPI is the same-name risk as one instead of it. */
static bool pip_index_key(const char *key)
{
    return strcmp(key, "index-url") == 0 || strcmp(key, "index_url") == 0 ||
           strcmp(key, "extra-index-url") == 0 || strcmp(key, "extra_index_url") == 0;
}

/* pip splits a list value on white space, across its continuation lines too. */
static void keep_words(struct reader *r, char *v)
{
    for (char *save = NULL, *w = strtok_r(v, " \t\r", &save); w != NULL;
         w = strtok_r(NULL, " \t\r", &save))
        keep(r, xstrdup(w));
}

static void pair(struct reader *r, char *key, char *v)
{
    switch (r->dialect) {
    case NPMRC:
        lower(key);
        if (strcmp(key, "registry") == 0 ||
            (key[0] == '@' && strlen(key) > 9 && strcmp(key + strlen(key) - 9, ":registry") == 0))
            keep(r, xstrdup(value_of(v, NPMRC)));
        break;
    case BUNFIG:
        bunfig_pair(r, key, v);
        break;
    case PIPCONF:
        lower(key);
        r->more_indexes =
            (strcmp(r->section, "global") == 0 || strcmp(r->section, "install") == 0) &&
            pip_index_key(key);
        if (r->more_indexes)
            keep_words(r, value_of(v, PIPCONF));
        break;
    case GITCONFIG:
        lower(key);
        if (strncmp(r->section, "remote\t", 7) == 0 &&
            (strcmp(key, "url") == 0 || strcmp(key, "pushurl") == 0))
            keep(r, xasprintf("%s\t%s", r->section + 7, value_of(v, GITCONFIG)));
        break;
    }
}

static void line(struct reader *r, char *l)
{
    bool indented = *l == ' ' || *l == '\t';
    if (r->dialect == PIPCONF && r->more_indexes && indented) {
        char *t = cp_trim_blanks(l);
        if (*t != '#' && *t != ';')
            keep_words(r, t);
        return;
    }
    r->more_indexes = false;
    l = cp_trim_blanks(l);
    if (*l == '\0' || *l == '#' || *l == ';')
        return;
    if (*l == '[' && r->dialect != NPMRC) {
        take_section(r, l);
        return;
    }
    size_t k = strcspn(l, r->dialect == PIPCONF ? "=:" : "=");
    if (l[k] == '\0')
        return;
    l[k] = '\0';
    char *key = cp_trim_blanks(l);
    if (r->dialect == BUNFIG && (*key == '"' || *key == '\''))
        key = value_of(key, BUNFIG);
    pair(r, key, l + k + 1);
}

/* Every text file here is read a line at a time, within the fixed limits: a longer line is
 * skipped, an embedded NUL just ends the line early, and the line's buffer is wiped after (a
 * line of .npmrc or .netrc may hold a secret). */
void cp_hostconf_each_line(const char *text, size_t len, cp_hostconf_line_fn fn, void *state)
{
    if (len > CP_HOSTCONF_MAX)
        return;
    char buf[CP_HOSTCONF_LINE_MAX + 1];
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t n = end - start;
        if (n <= CP_HOSTCONF_LINE_MAX) {
            memcpy(buf, text + start, n);
            buf[n] = '\0';
            fn(state, buf);
        }
        start = end + 1;
    }
    explicit_bzero(buf, sizeof(buf));
}

static void reader_line(void *state, char *l)
{
    line(state, l);
}

static char **read_text(const char *text, size_t len, enum dialect d)
{
    struct reader r = {.dialect = d};
    cp_hostconf_each_line(text, len, reader_line, &r);
    return cp_strvec_steal(&r.items);
}

char **cp_npmrc_registries(const char *text, size_t len)
{
    return read_text(text, len, NPMRC);
}

char **cp_bunfig_registries(const char *text, size_t len)
{
    return read_text(text, len, BUNFIG);
}

char **cp_pipconf_indexes(const char *text, size_t len)
{
    return read_text(text, len, PIPCONF);
}

char **cp_gitconfig_remotes(const char *text, size_t len)
{
    return read_text(text, len, GITCONFIG);
}

/* scheme://[userinfo@]host[:port][/...]: the parts, or false. */
static bool split_url(const char *url, const char *scheme, char **host_out, char **port_out,
                      bool *password_out)
{
    size_t sl = strlen(scheme);
    if (strncasecmp(url, scheme, sl) != 0 || strncmp(url + sl, "://", 3) != 0)
        return false;
    const char *auth = url + sl + 3;
    size_t alen = strcspn(auth, "/?#");
    cleanup_free char *a = strndup(auth, alen);
    char *at = strrchr(a, '@'), *hp = a;
    *password_out = false;
    if (at != NULL) {
        *at = '\0';
        *password_out = strchr(a, ':') != NULL;
        hp = at + 1;
    }
    char *colon = strchr(hp, ':');
    *port_out = colon ? xstrdup(colon + 1) : NULL;
    if (colon != NULL)
        *colon = '\0';
    *host_out = xstrdup(hp);
    lower(*host_out);
    return true;
}

char *cp_url_https_host(const char *url)
{
    cleanup_free char *host = NULL, *port = NULL;
    bool password = false;
    if (!split_url(url, "https", &host, &port, &password) || password)
        return NULL;
    if (port != NULL && strcmp(port, "443") != 0 && port[0] != '\0')
        return NULL;
    if (!cp_hostname_valid(host) || host[strlen(host) - 1] == '.')
        return NULL;
    return steal_pointer(&host);
}

char *cp_url_host(const char *url)
{
    cleanup_free char *host = NULL, *port = NULL;
    bool password = false;
    if (!split_url(url, "https", &host, &port, &password) &&
        !split_url(url, "http", &host, &port, &password))
        return NULL;
    if (host[0] == '\0')
        return NULL;
    return steal_pointer(&host);
}
