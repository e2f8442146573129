/* Collects the sign-ins: each source's readers (signin-read.c) turned into a host, a path
 * prefix and the Authorization header's value. Only https on port 443 counts, the one way the
 * sidecar reaches anything. The first sign-in for a host and prefix wins, and the sources are
 * read in the order the clients themselves give: the project's .npmrc before ~/.npmrc. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "places/container/git-credential.h"
#include "places/container/hostconf.h"
#include "places/container/sign-ins.h"
#include "places/container/signin-read.h"
#include "src/base/digest.h"
#include "src/base/hostname.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/secrets.h"
#include "src/base/util.h"

#define SIGN_INS_MAX 256 /* more than any person has; past it, the rest are not added */
#define REMOTES_MAX  16  /* git credential fill runs per remote, one after another */

/* ---- the list ---- */

static bool same(const struct cp_sign_in *a, const char *host, const char *prefix)
{
    return strcmp(a->host, host) == 0 && strcmp(a->prefix, prefix) == 0;
}

/* Takes authorization (wiped when not kept). */
static void add(struct cp_sign_ins *s, const char *host, const char *prefix, char *authorization,
                const char *source)
{
    for (size_t i = 0; i < s->n; i++)
        if (same(&s->v[i], host, prefix)) {
            cp_debug("%s: a sign-in for %s%s is already given by %s", source, host, prefix,
                     s->v[i].source);
            cp_free_secret(authorization);
            return;
        }
    if (s->n >= SIGN_INS_MAX) {
        cp_free_secret(authorization);
        return;
    }
    s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
    s->v[s->n++] =
        (struct cp_sign_in){xstrdup(host), xstrdup(prefix), authorization, xstrdup(source)};
}

static char *basic(const char *user, const char *password)
{
    size_t n = strlen(user) + 1 + strlen(password);
    char *pair = xasprintf("%s:%s", user, password);
    cleanup_free char *b64 = cp_base64_encode(pair, n);
    explicit_bzero(pair, n);
    free(pair);
    char *out = xasprintf("Basic %s", b64);
    explicit_bzero(b64, strlen(b64));
    return out;
}

/* "/a/b" -> "/a/b/"; "" -> "/". */
static char *as_prefix(const char *path)
{
    size_t n = strlen(path);
    if (n == 0)
        return xstrdup("/");
    return path[n - 1] == '/' ? xstrdup(path) : xasprintf("%s/", path);
}

/* The host of an address the sidecar can reach with a sign-in: https, port 443, a valid name.
 * NULL, and a debug line naming source, otherwise. */
static bool reachable(const struct cp_url *u, const char *source)
{
    bool ok = u->https && (u->port == NULL || strcmp(u->port, "443") == 0) &&
              cp_hostname_valid(u->host) && u->host[strlen(u->host) - 1] != '.';
    if (!ok)
        cp_debug("%s: a sign-in for %s is not added: the sidecar reaches https on port 443 only",
                 source, u->host);
    return ok;
}

/* ---- ${NAME} ---- */

static bool name_char(char c, bool first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
}

/* The variable at p ("${NAME}", "${NAME?}" or, bare, "$NAME"): its length, its name in
 * name_out, whether unset means empty; 0 when p starts none. */
static size_t variable_at(const char *p, bool bare, char **name_out, bool *optional_out)
{
    *optional_out = false;
    if (p[0] != '$')
        return 0;
    if (p[1] == '{') {
        size_t n = 0;
        while (name_char(p[2 + n], n == 0))
            n++;
        *optional_out = p[2 + n] == '?';
        size_t close = 2 + n + (*optional_out ? 1 : 0);
        if (n == 0 || p[close] != '}')
            return 0;
        *name_out = strndup(p + 2, n);
        return close + 1;
    }
    size_t n = 0;
    while (bare && name_char(p[1 + n], n == 0))
        n++;
    if (n == 0)
        return 0;
    *name_out = strndup(p + 1, n);
    return 1 + n;
}

char *cp_sign_in_expand(const char *value, bool bare, char **missing_out)
{
    size_t cap = strlen(value) + 1, len = 0;
    char *out = xmalloc(cap);
    *missing_out = NULL;
    for (const char *p = value; *p;) {
        cleanup_free char *name = NULL;
        bool optional = false;
        size_t skip = p[0] == '\\' && p[1] == '$' ? 0 : variable_at(p, bare, &name, &optional);
        const char *val = skip ? getenv(name) : NULL;
        if (skip && val == NULL && !optional) {
            explicit_bzero(out, cap); /* not yet terminated: its length is not strlen's */
            free(out);
            *missing_out = steal_pointer(&name);
            return NULL;
        }
        if (p[0] == '\\' && p[1] == '$')
            p++; /* \$ is a dollar, not a variable */
        const char *piece = skip ? (val ? val : "") : p;
        size_t pn = skip ? strlen(piece) : 1;
        if (len + pn + 1 > cap) {
            char *grown = xmalloc(cap = 2 * (len + pn + 1));
            memcpy(grown, out, len);
            explicit_bzero(out, len);
            free(out);
            out = grown;
        }
        memcpy(out + len, piece, pn);
        len += pn;
        p += skip ? skip : 1;
    }
    out[len] = '\0';
    return out;
}

/* value expanded, or NULL with a debug line (the variable's name, never a value). */
static char *expanded(const char *value, bool bare, const char *source, const char *what)
{
    cleanup_free char *missing = NULL;
    char *v = cp_sign_in_expand(value, bare, &missing);
    if (v == NULL)
        cp_debug("%s: %s names ${%s}, which is not set in conch-place's environment: no "
                 "sign-in from it",
                 source, what, missing);
    return v;
}

/* ---- reading a file that holds secrets ---- */

/* The file's text in *out (NULL when it does not exist); wiped by the caller. Its exact size
 * is read, so no buffer grown on the way keeps a copy. */
static int read_secret_file(const char *path, const char *shown, char **out, size_t *len_out,
                            cp_error_t *err)
{
    *out = NULL;
    cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 && errno == ENOENT)
        return 0;
    int e = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (e == 0 && st.st_size > CP_HOSTCONF_MAX)
        e = EFBIG;
    if (e != 0)
        return cp_error_make(err, CP_ERR_FAILED, e,
                             "%s cannot be read (%s), so conch-place cannot tell which sign-ins "
                             "it gives; make it a readable file, or remove it",
                             shown, strerror(e));
    size_t want = (size_t)st.st_size, got = 0;
    char *text = xmalloc(want + 1);
    while (got < want) {
        ssize_t n = read(fd, text + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    text[got] = '\0';
    *out = text;
    *len_out = got;
    return 0;
}

static void free_text(char *text, size_t len)
{
    if (text != NULL)
        explicit_bzero(text, len);
    free(text);
}

typedef char **(*reader_fn)(const char *, size_t);

/* The reader's records for the file at path (none when it does not exist). */
static int records_of(const char *path, const char *shown, reader_fn reader, char ***out,
                      cp_error_t *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    if (read_secret_file(path, shown, &text, &len, err) < 0)
        return cp_error_code(err);
    *out = text != NULL ? reader(text, len) : xcalloc(1, sizeof(char *));
    free_text(text, len);
    return 0;
}

/* Splits a record in place into exactly n fields. */
static bool fields(char *rec, char **f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        f[i] = rec;
        char *tab = strchr(rec, '\t');
        if ((tab == NULL) != (i == n - 1))
            return false;
        if (tab != NULL) {
            *tab = '\0';
            rec = tab + 1;
        }
    }
    return true;
}

/* ---- npm ---- */

/* "host[:port]/path" of a nerf-dart: its host and prefix, or false. */
static bool nerf_split(const char *nerf, const char *source, char **host_out, char **prefix_out)
{
    cleanup_free char *url = xasprintf("https://%s", nerf);
    cleanup_url struct cp_url u = {0};
    if (cp_url_parse(url, &u) < 0 || u.user != NULL || !reachable(&u, source))
        return false;
    *host_out = xstrdup(u.host);
    *prefix_out = as_prefix(u.path);
    return true;
}

/* The value of key for nerf among the records, expanded; NULL when absent or unset. */
static char *npm_value(char **recs, const char *nerf, const char *key, const char *source)
{
    for (size_t i = 0; recs[i] != NULL; i++) {
        char *f[3];
        cleanup_free char *copy = xstrdup(recs[i]);
        if (!fields(copy, f, 3) || strcmp(f[0], nerf) != 0 || strcmp(f[1], key) != 0) {
            explicit_bzero(copy, strlen(recs[i]));
            continue;
        }
        cleanup_free char *what = xasprintf("//%s:%s", nerf, key);
        char *v = expanded(f[2], false, source, what);
        explicit_bzero(copy, strlen(recs[i]));
        return v;
    }
    return NULL;
}

/* npm's order: a token, else _auth, else username with its base64 _password. */
static char *npm_authorization(char **recs, const char *nerf, const char *source)
{
    char *token = npm_value(recs, nerf, "_authToken", source);
    if (token != NULL) {
        char *a = xasprintf("Bearer %s", token);
        cp_free_secret(token);
        return a;
    }
    char *auth = npm_value(recs, nerf, "_auth", source);
    if (auth != NULL) {
        char *a = xasprintf("Basic %s", auth);
        cp_free_secret(auth);
        return a;
    }
    char *user = npm_value(recs, nerf, "username", source);
    char *pass64 = npm_value(recs, nerf, "_password", source);
    unsigned char *pass = NULL;
    size_t plen = 0;
    char *a = NULL;
    if (user != NULL && pass64 != NULL &&
        cp_base64_decode(pass64, strlen(pass64), &pass, &plen) == 0) {
        cleanup_free char *p = strndup((const char *)pass, plen);
        a = basic(user, p);
        explicit_bzero(p, strlen(p));
        explicit_bzero(pass, plen);
    }
    free(pass);
    cp_free_secret(user);
    cp_free_secret(pass64);
    return a;
}

static void npm_add(struct cp_sign_ins *s, char **recs, const char *source)
{
    for (size_t i = 0; recs[i] != NULL; i++) {
        cleanup_free char *nerf = strndup(recs[i], strcspn(recs[i], "\t"));
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strncmp(recs[k], nerf, strlen(nerf)) == 0 && recs[k][strlen(nerf)] == '\t';
        cleanup_free char *host = NULL, *prefix = NULL;
        if (seen || !nerf_split(nerf, source, &host, &prefix))
            continue;
        char *a = npm_authorization(recs, nerf, source);
        if (a != NULL)
            add(s, host, prefix, a, source);
    }
}

static int npm_file(struct cp_sign_ins *s, const char *path, const char *shown, cp_error_t *err)
{
    cleanup_strv_secret char **recs = NULL;
    if (records_of(path, shown, cp_npmrc_sign_in_lines, &recs, err) < 0)
        return cp_error_code(err);
    npm_add(s, recs, shown);
    return 0;
}

/* ---- an address with its sign-in (bunfig, yarnrc, pip) ---- */

/* Adds the sign-in for url. prefix_of turns the address's path into the prefix. */
static void add_for_url(struct cp_sign_ins *s, const char *url, char *authorization,
                        const char *source, char *(*prefix_of)(const char *))
{
    cleanup_url struct cp_url u = {0};
    if (authorization == NULL)
        return;
    if (cp_url_parse(url, &u) < 0 || !reachable(&u, source)) {
        cp_free_secret(authorization);
        return;
    }
    cleanup_free char *prefix = prefix_of(u.path);
    add(s, u.host, prefix, authorization, source);
}

/* The Basic header of the user:password in url, or NULL. */
static char *url_basic(const char *url)
{
    cleanup_url struct cp_url u = {0};
    if (cp_url_parse(url, &u) < 0 || u.user == NULL || u.password == NULL)
        return NULL;
    return basic(u.user, u.password);
}

/* ---- Bun ---- */

static char *bun_authorization(char **f, const char *source)
{
    if (f[1][0] != '\0') {
        cleanup_secret char *t = expanded(f[1], true, source, "a registry's token");
        return t ? xasprintf("Bearer %s", t) : NULL;
    }
    if (f[2][0] != '\0' && f[3][0] != '\0') {
        cleanup_secret char *u = expanded(f[2], true, source, "a registry's username");
        cleanup_secret char *p = u ? expanded(f[3], true, source, "a registry's password") : NULL;
        return p ? basic(u, p) : NULL;
    }
    return url_basic(f[0]);
}

static int bun_file(struct cp_sign_ins *s, const char *path, const char *shown, cp_error_t *err)
{
    cleanup_strv_secret char **recs = NULL;
    if (records_of(path, shown, cp_bunfig_sign_in_lines, &recs, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0; recs[i] != NULL; i++) {
        size_t n = strlen(recs[i]);
        char *copy = xstrdup(recs[i]), *f[4];
        if (fields(copy, f, 4))
            add_for_url(s, f[0], bun_authorization(f, shown), shown, as_prefix);
        free_text(copy, n);
    }
    return 0;
}

/* ---- Yarn ---- */

/* Yarn's npmAuthIdent: "user:password", or already in base64. */
static char *yarn_authorization(const char *token, const char *ident, const char *source)
{
    if (token[0] != '\0') {
        cleanup_secret char *t = expanded(token, false, source, "npmAuthToken");
        return t ? xasprintf("Bearer %s", t) : NULL;
    }
    cleanup_secret char *i = expanded(ident, false, source, "npmAuthIdent");
    if (i == NULL)
        return NULL;
    char *colon = strchr(i, ':');
    if (colon == NULL)
        return xasprintf("Basic %s", i);
    *colon = '\0';
    return basic(i, colon + 1);
}

static int yarn_file(struct cp_sign_ins *s, const char *path, const char *shown, cp_error_t *err)
{
    cleanup_strv_secret char **recs = NULL;
    if (records_of(path, shown, cp_yarnrc_sign_in_lines, &recs, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0; recs[i] != NULL; i++) {
        size_t n = strlen(recs[i]);
        char *copy = xstrdup(recs[i]), *f[3];
        if (fields(copy, f, 3)) {
            /* npmRegistries keys are written "//host/path" as often as with a scheme. */
            cleanup_free char *url =
                strncmp(f[0], "//", 2) == 0 ? xasprintf("https:%s", f[0]) : xstrdup(f[0]);
            add_for_url(s, url, yarn_authorization(f[1], f[2], shown), shown, as_prefix);
        }
        free_text(copy, n);
    }
    return 0;
}

/* ---- pip ---- */

/* pip sends an index's credentials to the files beside it too: an index at ".../simple/" has
 * its files under ".../" on Artifactory, Nexus, GitLab, CodeArtifact and devpi ("+simple"),
 * so the prefix is the index's parent there; elsewhere the index's own path. */
static char *pip_prefix(const char *path)
{
    char *p = as_prefix(path);
    size_t n = strlen(p);
    if (n >= 8 && strcmp(p + n - 8, "/simple/") == 0)
        p[n - 7] = '\0';
    else if (n >= 9 && strcmp(p + n - 9, "/+simple/") == 0)
        p[n - 8] = '\0';
    return p;
}

/* ~/.netrc's entry for host, else its default: a Basic header, or NULL. */
static char *netrc_basic(char **netrc, const char *host)
{
    char *found = NULL;
    for (size_t i = 0; netrc[i] != NULL; i++) {
        size_t hl = strcspn(netrc[i], "\t");
        bool exact = hl == strlen(host) && strncasecmp(netrc[i], host, hl) == 0;
        if (exact || (hl == 0 && found == NULL))
            found = netrc[i];
        if (exact)
            break;
    }
    if (found == NULL)
        return NULL;
    size_t n = strlen(found);
    char *copy = xstrdup(found), *f[3];
    char *a = fields(copy, f, 3) ? basic(f[1], f[2]) : NULL;
    free_text(copy, n);
    return a;
}

static void pip_urls(struct cp_sign_ins *s, char **urls, char **netrc, const char *shown)
{
    for (size_t i = 0; urls[i] != NULL; i++) {
        cleanup_url struct cp_url u = {0};
        if (cp_url_parse(urls[i], &u) < 0)
            continue;
        char *a = url_basic(urls[i]);
        const char *source = shown;
        if (a == NULL && u.password == NULL) {
            a = netrc_basic(netrc, u.host);
            source = "~/.netrc";
        }
        add_for_url(s, urls[i], a, source, pip_prefix);
    }
}

/* ---- git ---- */

static void git_remote(struct cp_sign_ins *s, const char *url)
{
    cleanup_url struct cp_url u = {0};
    cleanup_free char *host = cp_url_https_host(url);
    if (host == NULL || cp_url_parse(url, &u) < 0 || u.user != NULL)
        return; /* not https on 443, or a name in it: the allow-list leaves such a remote off */
    cleanup_free char *prefix = as_prefix(u.path);
    for (size_t i = 0; i < s->n; i++)
        if (same(&s->v[i], host, prefix))
            return;
    cleanup_secret char *user = NULL;
    cleanup_secret char *password = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_git_credential_fill(host, u.path + 1, CP_GIT_CREDENTIAL_WAIT_MS, &user, &password,
                               &err) < 0) {
        /* A fetch without it fails in the box with words of its own; this says why. */
        cp_say("%s; fetches from %s go without a sign-in", err->msg, host);
        return;
    }
    if (password != NULL)
        add(s, host, prefix, basic(user ? user : "", password), "git credential");
    else
        cp_debug("git credential fill gives no sign-in for %s", host);
}

static int git_remotes(struct cp_sign_ins *s, const char *workdir, cp_error_t *err)
{
    cleanup_free char *path = cp_git_config_path(workdir);
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (path == NULL)
        return 0;
    cleanup_error cp_error_t rerr = NULL;
    int r = cp_read_file(path, CP_HOSTCONF_MAX, &text, &len, &rerr);
    if (r == CP_ERR_NOT_FOUND)
        return 0;
    if (r < 0)
        return cp_error_make(err, CP_ERR_FAILED, rerr->sys_errno,
                             "%s cannot be read, so conch-place cannot tell the folder's remotes",
                             path);
    cleanup_strv char **remotes = cp_gitconfig_remotes(text, len);
    for (size_t i = 0; remotes[i] != NULL && i < REMOTES_MAX; i++) {
        const char *tab = strchr(remotes[i], '\t');
        if (tab != NULL)
            git_remote(s, tab + 1);
    }
    return 0;
}

/* ---- all of them ---- */

struct source {
    char *path;
    const char *shown;
    int (*read)(struct cp_sign_ins *, const char *, const char *, cp_error_t *);
};

static int pip_files(struct cp_sign_ins *s, const struct cp_allowlist_sources *src, cp_error_t *err)
{
    cleanup_free char *xdg =
        src->xdg_config ? xstrdup(src->xdg_config) : xasprintf("%s/.config", src->home);
    cleanup_free char *pip1 = xasprintf("%s/pip/pip.conf", xdg);
    cleanup_free char *pip2 = xasprintf("%s/.pip/pip.conf", src->home);
    cleanup_free char *netrc_path = xasprintf("%s/.netrc", src->home);
    cleanup_strv_secret char **netrc = NULL;
    cleanup_strv_secret char **urls1 = NULL;
    cleanup_strv_secret char **urls2 = NULL;
    if (records_of(netrc_path, "~/.netrc", cp_netrc_lines, &netrc, err) < 0 ||
        records_of(pip1, "pip's pip.conf", cp_pipconf_indexes, &urls1, err) < 0 ||
        records_of(pip2, "~/.pip/pip.conf", cp_pipconf_indexes, &urls2, err) < 0)
        return cp_error_code(err);
    pip_urls(s, urls1, netrc, "pip's pip.conf");
    pip_urls(s, urls2, netrc, "~/.pip/pip.conf");
    return 0;
}

/* npm reads the project's .npmrc over ~/.npmrc, and Yarn the project's .yarnrc.yml over
 * ~'s: the first sign-in for a host and prefix is the one kept. */
static int npm_family(struct cp_sign_ins *s, const struct cp_allowlist_sources *src,
                      cp_error_t *err)
{
    struct source order[] = {
        {xasprintf("%s/.npmrc", src->workdir), NULL, npm_file},
        {xasprintf("%s/.npmrc", src->home), "~/.npmrc", npm_file},
        {xasprintf("%s/.yarnrc.yml", src->workdir), NULL, yarn_file},
        {xasprintf("%s/.yarnrc.yml", src->home), "~/.yarnrc.yml", yarn_file},
        {xasprintf("%s/.bunfig.toml", src->home), "~/.bunfig.toml", bun_file},
    };
    int r = 0;
    for (size_t i = 0; i < ARRAY_SIZE(order) && r == 0; i++)
        r = order[i].read(s, order[i].path, order[i].shown ? order[i].shown : order[i].path, err);
    for (size_t i = 0; i < ARRAY_SIZE(order); i++)
        free(order[i].path);
    return r;
}

int cp_sign_ins_collect(const struct cp_allowlist_sources *src, struct cp_sign_ins *out,
                        cp_error_t *err)
{
    *out = (struct cp_sign_ins){0};
    if (npm_family(out, src, err) < 0 || pip_files(out, src, err) < 0 ||
        git_remotes(out, src->workdir, err) < 0) {
        cp_sign_ins_dispose(out);
        return cp_error_wrap(err, "while finding your sign-ins");
    }
    for (size_t i = 0; i < out->n; i++)
        cp_debug("a sign-in for %s%s from %s", out->v[i].host, out->v[i].prefix, out->v[i].source);
    return 0;
}

int cp_sign_ins_for(const char *workdir, struct cp_sign_ins *out, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_home_dir(&home, err) < 0)
        return cp_error_code(err);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    struct cp_allowlist_sources src = {
        .workdir = workdir, .home = home, .xdg_config = xdg && xdg[0] == '/' ? xdg : NULL};
    return cp_sign_ins_collect(&src, out, err);
}

bool cp_sign_ins_has(const struct cp_sign_ins *s, const char *host)
{
    for (size_t i = 0; s != NULL && i < s->n; i++)
        if (strcasecmp(s->v[i].host, host) == 0)
            return true;
    return false;
}

void cp_sign_ins_dispose(struct cp_sign_ins *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].host);
        free(s->v[i].prefix);
        cp_free_secret(s->v[i].authorization);
        free(s->v[i].source);
    }
    free(s->v);
    *s = (struct cp_sign_ins){0};
}

/* ---- the sidecar's message ---- */

/* json-c keeps its own copy of every string, and of the text it printed: both wiped. */
static void wipe_strings(json_object *o)
{
    if (json_object_is_type(o, json_type_string)) {
        explicit_bzero((char *)json_object_get_string(o), (size_t)json_object_get_string_len(o));
    } else if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach (o, k, v) {
            (void)k;
            wipe_strings(v);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            wipe_strings(json_object_array_get_idx(o, i));
    }
}

static json_object *entry(const struct cp_sign_in *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "host", json_object_new_string(s->host));
    json_object_object_add(o, "prefix", json_object_new_string(s->prefix));
    json_object_object_add(o, "authorization", json_object_new_string(s->authorization));
    json_object_object_add(o, "source", json_object_new_string(s->source));
    return o;
}

char *cp_sign_ins_message(const struct cp_sign_ins *s, const char *id)
{
    json_object *doc = json_object_new_object();
    json_object *a = json_object_new_array();
    if (id != NULL)
        json_object_object_add(doc, "id", json_object_new_string(id));
    for (size_t i = 0; i < s->n; i++)
        json_object_array_add(a, entry(&s->v[i]));
    json_object_object_add(doc, "sign_ins", a);
    size_t len = 0;
    /* PLAIN: no line breaks inside, so the message is one line. */
    const char *text = json_object_to_json_string_length(
        doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    char *out = xmalloc(len + 2);
    memcpy(out, text, len);
    out[len] = '\n';
    out[len + 1] = '\0';
    explicit_bzero((char *)text, len);
    wipe_strings(doc);
    json_object_put(doc);
    return out;
}
