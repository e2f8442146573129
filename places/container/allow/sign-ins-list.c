/* The list of sign-ins that each source's reader adds to: one per host and path prefix, the
 * first kept, and the Authorization values made from a user and password or an address. Only
 * https on port 443 counts, the one way the sidecar reaches anything. Below the readers, so
 * the calls run one way: sign-ins.c calls the readers, the readers call this. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "places/container/allow/sign-ins-list.h"
#include "src/base/digest.h"
#include "src/base/hostname.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define SIGN_INS_MAX 256 /* more than any person has; past it, the rest are not added */

bool cp_sign_ins_same(const struct cp_sign_in *a, const char *host, const char *prefix)
{
    return strcmp(a->host, host) == 0 && strcmp(a->prefix, prefix) == 0;
}

/* Whether the list has room for one more for host and prefix: the first one given wins. */
static bool room_for(const struct cp_sign_ins *s, const char *host, const char *prefix,
                     const char *source)
{
    for (size_t i = 0; i < s->n; i++)
        if (cp_sign_ins_same(&s->v[i], host, prefix)) {
            cp_debug("%s: a sign-in for %s%s is already given by %s", source, host, prefix,
                     s->v[i].source);
            return false;
        }
    return s->n < SIGN_INS_MAX;
}

/* Takes authorization (wiped when not kept). */
void cp_sign_ins_add(struct cp_sign_ins *s, const char *host, const char *prefix,
                     char *authorization, const char *source)
{
    if (!room_for(s, host, prefix, source)) {
        cp_free_secret(authorization);
        return;
    }
    s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
    s->v[s->n++] = (struct cp_sign_in){.host = xstrdup(host),
                                       .prefix = xstrdup(prefix),
                                       .authorization = authorization,
                                       .source = xstrdup(source)};
}

void cp_sign_ins_add_named(struct cp_sign_ins *s, const struct cp_sign_in *named)
{
    if (!room_for(s, named->host, named->prefix, named->source)) {
        cp_free_secret(named->authorization);
        cp_free_secret(named->placeholder);
        return;
    }
    s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
    struct cp_sign_in *v = &s->v[s->n++];
    *v = *named;
    v->host = xstrdup(named->host);
    v->prefix = xstrdup(named->prefix);
    v->source = xstrdup(named->source);
    v->header = xstrdup(named->header);
    v->env = xstrdup(named->env);
}

bool cp_sign_ins_any_named(const struct cp_sign_ins *s)
{
    for (size_t i = 0; s != NULL && i < s->n; i++)
        if (s->v[i].placeholder != NULL)
            return true;
    return false;
}

char *cp_sign_in_basic(const char *user, const char *password)
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
char *cp_sign_in_prefix(const char *path)
{
    size_t n = strlen(path);
    if (n == 0)
        return xstrdup("/");
    return path[n - 1] == '/' ? xstrdup(path) : xasprintf("%s/", path);
}

/* The host of an address the sidecar can reach with a sign-in: https, port 443, a valid name.
 * NULL, and a debug line naming source, otherwise. */
bool cp_sign_in_reachable(const struct cp_url *u, const char *source)
{
    bool ok = u->https && (u->port == NULL || strcmp(u->port, "443") == 0) &&
              cp_hostname_valid(u->host) && u->host[strlen(u->host) - 1] != '.';
    if (!ok)
        cp_debug("%s: a sign-in for %s is not added: the sidecar reaches https on port 443 only",
                 source, u->host);
    return ok;
}

/* Adds the sign-in for url. prefix_of turns the address's path into the prefix. */
void cp_sign_ins_add_for_url(struct cp_sign_ins *s, const char *url, char *authorization,
                             const char *source, char *(*prefix_of)(const char *))
{
    cleanup_url struct cp_url u = {0};
    if (authorization == NULL)
        return;
    if (cp_url_parse(url, &u) < 0 || !cp_sign_in_reachable(&u, source)) {
        cp_free_secret(authorization);
        return;
    }
    cleanup_free char *prefix = prefix_of(u.path);
    cp_sign_ins_add(s, u.host, prefix, authorization, source);
}

/* The Basic header of the user:password in url, or NULL. */
char *cp_sign_in_url_basic(const char *url)
{
    cleanup_url struct cp_url u = {0};
    if (cp_url_parse(url, &u) < 0 || u.user == NULL || u.password == NULL)
        return NULL;
    return cp_sign_in_basic(u.user, u.password);
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
        free(s->v[i].header);
        cp_free_secret(s->v[i].placeholder);
        free(s->v[i].env);
    }
    free(s->v);
    *s = (struct cp_sign_ins){0};
}
