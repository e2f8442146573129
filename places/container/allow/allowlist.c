/* Builds the allow-list from the registries table, the person's registry settings, the work
 * folder's .git/config and config.json. Files are read as text (hostconf.c); git is never run
 * here, because the folder's own configuration could make it run anything (sign-ins-git.c runs it
 * outside the folder). A registry the person moved to joins the list in read mode, and the
 * public one it replaced is left off: a package meant for the person's registry must not come
 * from a stranger's of the same name. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "places/container/allow/allowlist.h"
#include "places/container/allow/hostconf.h"
#include "places/container/allow/registries.h"
#include "places/container/allow/settings-sources.h"
#include "places/container/allow/sign-ins.h"
#include "places/container/allow/sign-in-read.h"
#include "src/base/digest.h"
#include "src/base/buf.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define ENTRIES_MAX 1024
#define YOURS       "your registry"
#define SIGNED      "sign-in added by the sidecar"

/* Where host is in v (case aside), or n when it is not. */
static size_t find_at(const struct cp_host_why *v, size_t n, const char *host)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(v[i].host, host) == 0)
            return i;
    return n;
}

static bool has(const struct cp_host_why *v, size_t n, const char *host)
{
    return find_at(v, n, host) < n;
}

static void add(struct cp_host_why **v, size_t *n, const char *host, char *why)
{
    if (has(*v, *n, host) || *n >= ENTRIES_MAX) {
        free(why);
        return;
    }
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[*n].host = xstrdup(host);
    for (char *p = (*v)[*n].host; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    (*v)[*n].why = why;
    (*v)[*n].mode = CP_HOST_READ;
    (*v)[*n].sign_in = false; /* left-off entries are never marked */
    (*n)++;
}

bool cp_allowlist_has(const struct cp_allowlist *l, const char *host)
{
    return has(l->allowed, l->nallowed, host);
}

/* A settings file as text; *text_out stays NULL when it does not exist. */
static int read_settings(const char *path, const char *shown, char **text_out, size_t *len_out,
                         cp_error_t *err)
{
    cleanup_error cp_error_t rerr = NULL;
    *text_out = NULL;
    int r = cp_read_file(path, CP_HOSTCONF_MAX, text_out, len_out, &rerr);
    if (r == CP_ERR_NOT_FOUND)
        return 0;
    if (r < 0)
        return cp_error_make(err, CP_ERR_FAILED, rerr->sys_errno,
                             "%s cannot be read (%s), so conch-place cannot tell whether it "
                             "moves a public registry elsewhere; make it a readable file, or "
                             "remove it",
                             shown, rerr->sys_errno ? strerror(rerr->sys_errno) : rerr->msg);
    return 0;
}

/* Whether host is a public registry of family: then naming it moves nothing. */
static bool public_registry(const char *host, enum cp_registry_family family)
{
    const char *npm = cp_npm_default_host();
    if (family == CP_REG_NPM && npm != NULL && strcasecmp(npm, host) == 0)
        return true;
    for (size_t k = 0; cp_registries[k].host != NULL; k++)
        if (cp_registries[k].family == family && strcasecmp(cp_registries[k].host, host) == 0)
            return true;
    return false;
}

/* The host a box reaches url at (https, port 443; a user:password in it is the sign-in's, not
 * the host's), or NULL. */
static char *reachable_host(const char *url)
{
    cleanup_url struct cp_url u = {0};
    if (cp_url_parse(url, &u) < 0 || !u.https || (u.port != NULL && strcmp(u.port, "443") != 0))
        return NULL;
    cleanup_free char *bare = xasprintf("https://%s%s", u.host, u.path);
    return cp_url_https_host(bare);
}

/* Each registry one file names that is not a public one of family: it joins the list, and the
 * first one found is why the family's public registries are left off. */
static void moved(struct cp_allowlist *l, const struct cp_sign_ins *signs, char **urls,
                  enum cp_registry_family family, const char *shown, char **why_out)
{
    for (size_t i = 0; urls[i] != NULL; i++) {
        cleanup_url struct cp_url u = {0};
        bool parsed = cp_url_parse(urls[i], &u) == 0;
        if (parsed && public_registry(u.host, family))
            continue;
        cleanup_free char *host = reachable_host(urls[i]);
        if (host != NULL)
            add(&l->allowed, &l->nallowed, host, xasprintf(YOURS " (from %s)", shown));
        if (*why_out != NULL)
            continue;
        if (host != NULL)
            *why_out =
                xasprintf("moved: %s sends installs to %s instead, which the box reaches "
                          "%s",
                          shown, host,
                          cp_sign_ins_has(signs, host) ? "with your sign-in added by the sidecar"
                                                       : "as it is (no sign-in found for it)");
        else
            *why_out = xasprintf("moved: %s sends installs to %s instead, which a sealed box "
                                 "cannot reach (https on port 443 only)",
                                 shown, parsed ? u.host : "an address that is not http(s)");
    }
}

typedef char **(*reader_fn)(const char *, size_t);

static int check_file(struct cp_allowlist *l, const struct cp_settings_sources *src,
                      const char *path, const char *shown, reader_fn reader,
                      enum cp_registry_family family, char **why_out, cp_error_t *err)
{
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (read_settings(path, shown, &text, &len, err) < 0)
        return cp_error_code(err);
    if (text == NULL)
        return 0;
    /* pip's index addresses may hold a password: wiped with the text. */
    cleanup_strv_secret char **urls = reader(text, len);
    explicit_bzero(text, len);
    moved(l, src->sign_ins, urls, family, shown, why_out);
    return 0;
}

/* Why each family is left off (NULL: it stays on); the person's registries join l. The
 * project's settings are read before ~'s, as npm and Yarn read them. */
static int moved_families(const struct cp_settings_sources *src, struct cp_allowlist *l,
                          char **npm_out, char **pypi_out, cp_error_t *err)
{
    cleanup_free char *xdg = cp_settings_xdg_dir(src);
    struct {
        char *path;
        const char *shown;
        reader_fn reader;
        char **why;
    } files[] = {
        {xasprintf("%s/.npmrc", src->workdir), NULL, cp_npmrc_registries, npm_out},
        {xasprintf("%s/.npmrc", src->home), "~/.npmrc", cp_npmrc_registries, npm_out},
        {xasprintf("%s/.yarnrc.yml", src->workdir), NULL, cp_yarnrc_registries, npm_out},
        {xasprintf("%s/.yarnrc.yml", src->home), "~/.yarnrc.yml", cp_yarnrc_registries, npm_out},
        {xasprintf("%s/.bunfig.toml", src->home), "~/.bunfig.toml", cp_bunfig_registries, npm_out},
        {xasprintf("%s/pip/pip.conf", xdg), "pip's pip.conf", cp_pipconf_indexes, pypi_out},
        {xasprintf("%s/.pip/pip.conf", src->home), "~/.pip/pip.conf", cp_pipconf_indexes, pypi_out},
    };
    int r = 0;
    for (size_t i = 0; i < ARRAY_SIZE(files) && r == 0; i++)
        r = check_file(l, src, files[i].path, files[i].shown ? files[i].shown : files[i].path,
                       files[i].reader, files[i].why == npm_out ? CP_REG_NPM : CP_REG_PYPI,
                       files[i].why, err);
    for (size_t i = 0; i < ARRAY_SIZE(files); i++)
        free(files[i].path);
    return r;
}

static void add_registry(struct cp_allowlist *l, const struct cp_registry *r, const char *npm,
                         const char *pypi)
{
    const char *gone = r->family == CP_REG_NPM ? npm : r->family == CP_REG_PYPI ? pypi : NULL;
    if (gone != NULL)
        add(&l->left_off, &l->nleft_off, r->host,
            xasprintf("%s; left off, as a package meant for your registry could come from a "
                      "stranger's of the same name here",
                      gone));
    else
        add(&l->allowed, &l->nallowed, r->host, xasprintf("%s (ADR 0148)", r->why));
}

static int add_registries(const struct cp_settings_sources *src, struct cp_allowlist *l,
                          cp_error_t *err)
{
    cleanup_free char *npm = NULL, *pypi = NULL;
    if (moved_families(src, l, &npm, &pypi, err) < 0)
        return cp_error_code(err);
    const struct cp_registry npm_default = {cp_npm_default_host(), CP_REG_NPM,
                                            "the npm registry, npm's own default (npm, pnpm, Bun)"};
    if (npm_default.host != NULL)
        add_registry(l, &npm_default, npm, pypi);
    else /* every entry of the table is shown, this one too */
        add(&l->left_off, &l->nleft_off, "(npm's default registry)",
            xasprintf("its address is asked of npm, never written here, and %s",
                      cp_npm_default_missing()));
    for (size_t i = 0; cp_registries[i].host != NULL; i++)
        add_registry(l, &cp_registries[i], npm, pypi);
    return 0;
}

static int add_remotes(const struct cp_settings_sources *src, struct cp_allowlist *l,
                       cp_error_t *err)
{
    cleanup_free char *path = cp_git_config_path(src->workdir);
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (path == NULL)
        return 0; /* not a git folder: no remotes to add */
    if (read_settings(path, path, &text, &len, err) < 0)
        return cp_error_code(err);
    if (text == NULL)
        return 0;
    cleanup_strv char **remotes = cp_gitconfig_remotes(text, len);
    for (size_t i = 0; remotes[i] != NULL; i++) {
        char *tab = strchr(remotes[i], '\t');
        cleanup_free char *host = tab ? cp_url_https_host(tab + 1) : NULL;
        if (host == NULL || tab == remotes[i])
            continue;
        *tab = '\0';
        add(&l->allowed, &l->nallowed, host,
            xasprintf("an HTTPS remote of the work folder (%s)", remotes[i]));
    }
    return 0;
}

/* A host the folder lists. One already on the list (github.com, to push to it) takes the mode
 * the person gave it: a built-in stays read only while the person asks nothing more. */
static void add_egress_host(struct cp_allowlist *l, const char *host, enum cp_host_mode mode)
{
    size_t at = find_at(l->allowed, l->nallowed, host);
    if (at == l->nallowed) {
        add(&l->allowed, &l->nallowed, host, xstrdup("this folder's egress in config.json"));
        if (at < l->nallowed) /* else past ENTRIES_MAX */
            l->allowed[at].mode = mode;
        return;
    }
    struct cp_host_why *on = &l->allowed[at];
    if (mode == CP_HOST_READ || on->mode != CP_HOST_READ)
        return;
    char *why = xasprintf("%s, and this folder's egress in config.json", on->why);
    free(on->why);
    on->why = why;
    on->mode = mode;
}

static void add_egress(const struct cp_settings_sources *src, struct cp_allowlist *l)
{
    json_object *eg = src->config ? cp_config_egress(src->config, src->workdir) : NULL;
    if (eg == NULL)
        return;
    if (json_object_is_type(eg, json_type_string)) {
        l->allow_all = true; /* validated when config.json was loaded: "allow-all" */
        return;
    }
    for (size_t i = 0; i < json_object_array_length(eg); i++) {
        enum cp_host_mode mode;
        const char *host = cp_config_egress_item(json_object_array_get_idx(eg, i), &mode);
        add_egress_host(l, host, mode);
    }
}

/* The hosts the person named with `sign-ins add`: each joins the list for this run, read-only
 * unless added --write (then every method goes to it, as to a `hosts add --write` host). A
 * pass-through host stays so: its TLS is never opened, so nothing could be signed there. */
static void add_named(struct cp_allowlist *l, const struct cp_sign_ins *signs)
{
    for (size_t k = 0; signs != NULL && k < signs->n; k++) {
        const struct cp_sign_in *s = &signs->v[k];
        if (s->placeholder == NULL)
            continue;
        enum cp_host_mode mode = s->write ? CP_HOST_WRITE : CP_HOST_READ;
        size_t at = find_at(l->allowed, l->nallowed, s->host);
        if (at == l->nallowed) {
            add(&l->allowed, &l->nallowed, s->host, xstrdup("named by 'conch-place sign-ins add'"));
            if (at < l->nallowed)
                l->allowed[at].mode = mode;
        } else if (l->allowed[at].mode == CP_HOST_READ) {
            l->allowed[at].mode = mode;
        }
    }
}

/* A named sign-in's words: whose it is, its header, and whether every method carries it. */
static char *named_words(const struct cp_host_why *h, const struct cp_sign_in *s)
{
    if (h->mode == CP_HOST_PASS)
        return xasprintf("%s; your sign-in for it (sign-ins add) is not added: a pass-through "
                         "host's TLS is never opened, so nothing can be signed there",
                         h->why);
    bool whole = strcmp(s->prefix, "/") == 0;
    return xasprintf("%s, " SIGNED " (yours), in its %s header%s%s%s", h->why, s->header,
                     whole ? "" : " under ", whole ? "" : s->prefix,
                     s->write ? "; every method goes, the sign-in with it (--write)" : "");
}

/* Which hosts get a sign-in from the sidecar, in their words; the person's registries say
 * when none was found, since their installs then fail with the registry's 401. */
static void mark_sign_ins(struct cp_allowlist *l, const struct cp_sign_ins *signs)
{
    for (size_t i = 0; i < l->nallowed; i++) {
        struct cp_host_why *h = &l->allowed[i];
        h->sign_in = cp_sign_ins_has(signs, h->host);
        bool yours = strncmp(h->why, YOURS, strlen(YOURS)) == 0;
        if (!h->sign_in && !yours)
            continue;
        const struct cp_sign_in *first = NULL;
        for (size_t k = 0; h->sign_in && k < signs->n && first == NULL; k++)
            if (strcasecmp(signs->v[k].host, h->host) == 0)
                first = &signs->v[k];
        if (first != NULL && first->placeholder != NULL && h->mode == CP_HOST_PASS)
            h->sign_in = false; /* a blind tunnel: the sidecar cannot add it there */
        char *why = first != NULL && first->placeholder != NULL ? named_words(h, first)
                    : first != NULL ? xasprintf("%s, " SIGNED " (from %s)", h->why, first->source)
                                    : xasprintf("%s, no sign-in found", h->why);
        free(h->why);
        h->why = why;
    }
}

int cp_allowlist_build(const struct cp_settings_sources *src, struct cp_allowlist *out,
                       cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    if (add_registries(src, out, err) < 0 || add_remotes(src, out, err) < 0) {
        cp_allowlist_dispose(out);
        return cp_error_code(err);
    }
    add_egress(src, out);
    add_named(out, src->sign_ins);
    mark_sign_ins(out, src->sign_ins);
    return 0;
}

int cp_allowlist_signed_for(const char *workdir, const struct cp_config *cfg,
                            const struct cp_sign_ins *sign_ins, struct cp_allowlist *out,
                            cp_error_t *err)
{
    cleanup_free char *home = NULL;
    struct cp_settings_sources src;
    if (cp_settings_sources_from_env(workdir, &home, &src, err) < 0)
        return cp_error_code(err);
    src.config = cfg;
    src.sign_ins = sign_ins;
    return cp_allowlist_build(&src, out, err);
}

int cp_allowlist_for(const char *workdir, const struct cp_config *cfg, struct cp_allowlist *out,
                     cp_error_t *err)
{
    cleanup_sign_ins struct cp_sign_ins signs = {0};
    if (cp_sign_ins_for(workdir, &signs, err) < 0)
        return cp_error_code(err);
    return cp_allowlist_signed_for(workdir, cfg, &signs, out, err);
}

static void dispose_v(struct cp_host_why *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].host);
        free(v[i].why);
    }
    free(v);
}

void cp_allowlist_dispose(struct cp_allowlist *l)
{
    dispose_v(l->allowed, l->nallowed);
    dispose_v(l->left_off, l->nleft_off);
    memset(l, 0, sizeof(*l));
}

static json_object *entries(const struct cp_host_why *v, size_t n, bool with_mode)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "host", json_object_new_string(v[i].host));
        json_object_object_add(o, "why", json_object_new_string(v[i].why));
        if (with_mode)
            json_object_object_add(o, "mode", json_object_new_string(cp_host_mode_name(v[i].mode)));
        if (v[i].sign_in)
            json_object_object_add(o, "sign_in", json_object_new_boolean(1));
        json_object_array_add(a, o);
    }
    return a;
}

json_object *cp_allowlist_json(const struct cp_allowlist *l)
{
    json_object *o = json_object_new_object();
    json_object *allowed = entries(l->allowed, l->nallowed, true);
    if (l->allow_all) {
        json_object *any = json_object_new_object();
        json_object_object_add(any, "host", json_object_new_string("*"));
        json_object_object_add(any, "why",
                               json_object_new_string("\"allow-all\" for this folder in "
                                                      "config.json: any public host on port 443"));
        /* The sidecar's method rules hold for every tunnel it ends (DESIGN.md). */
        json_object_object_add(any, "mode", json_object_new_string("read"));
        json_object_array_add(allowed, any);
    }
    json_object_object_add(o, "allowed", allowed);
    json_object_object_add(o, "left_off", entries(l->left_off, l->nleft_off, false));
    return o;
}

char *cp_allowlist_summary(const struct cp_allowlist *l)
{
    if (l->allow_all)
        return xstrdup("any public host on port 443 (\"allow-all\")");
    struct cp_buf b;
    cp_buf_init(&b, 1 << 20);
    for (size_t i = 0; i < l->nallowed; i++) {
        if (i > 0)
            (void)cp_buf_append(&b, ", ", 2);
        (void)cp_buf_append(&b, l->allowed[i].host, strlen(l->allowed[i].host));
    }
    (void)cp_buf_append(&b, "", 1);
    return cp_buf_steal(&b);
}

void cp_allowlist_hash(const struct cp_allowlist *l, const char *extra, char out[65])
{
    struct cp_buf b;
    cp_buf_init(&b, 1 << 20);
    const char *head = l->allow_all ? "conch-egress-v1 allow-all\n" : "conch-egress-v1\n";
    (void)cp_buf_append(&b, head, strlen(head));
    for (size_t i = 0; i < l->nallowed; i++) {
        (void)cp_buf_append(&b, l->allowed[i].host, strlen(l->allowed[i].host));
        /* A read host hashes as before, so a list without --write or --pass-through keeps its
         * sidecar's name; any other mode makes another (hosts hold no tab). */
        if (l->allowed[i].mode != CP_HOST_READ) {
            const char *m = cp_host_mode_name(l->allowed[i].mode);
            (void)cp_buf_append(&b, "\t", 1);
            (void)cp_buf_append(&b, m, strlen(m));
        }
        (void)cp_buf_append(&b, "\n", 1);
    }
    if (extra != NULL)
        (void)cp_buf_append(&b, extra, strlen(extra));
    uint8_t digest[32];
    cp_sha256(b.data ? b.data : "", b.len, digest);
    for (size_t i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
    cp_buf_dispose(&b);
}
