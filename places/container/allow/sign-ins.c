/* Collects the sign-ins: each source's readers (sign-in-read.c) turned into a host, a path
 * prefix and the Authorization header's value, added to the list (sign-ins-list.c). The first
 * sign-in for a host and prefix wins, and the sources are read in the order the clients
 * themselves give: the project's .npmrc before ~/.npmrc. */
#include "config.h"

#include "places/container/allow/sign-ins-sources.h"
#include "places/container/allow/sign-ins.h"
#include "src/base/log.h"
#include "src/base/util.h"

struct source {
    char *path;
    const char *shown;
    int (*read)(struct cp_sign_ins *, const char *, const char *, cp_error_t *);
};

/* npm reads the project's .npmrc over ~/.npmrc, and Yarn the project's .yarnrc.yml over
 * ~'s: the first sign-in for a host and prefix is the one kept. */
static int npm_family(struct cp_sign_ins *s, const struct cp_settings_sources *src, cp_error_t *err)
{
    struct source order[] = {
        {xasprintf("%s/.npmrc", src->workdir), NULL, cp_sign_ins_npm_file},
        {xasprintf("%s/.npmrc", src->home), "~/.npmrc", cp_sign_ins_npm_file},
        {xasprintf("%s/.yarnrc.yml", src->workdir), NULL, cp_sign_ins_yarn_file},
        {xasprintf("%s/.yarnrc.yml", src->home), "~/.yarnrc.yml", cp_sign_ins_yarn_file},
        {xasprintf("%s/.bunfig.toml", src->home), "~/.bunfig.toml", cp_sign_ins_bun_file},
    };
    int r = 0;
    for (size_t i = 0; i < ARRAY_SIZE(order) && r == 0; i++)
        r = order[i].read(s, order[i].path, order[i].shown ? order[i].shown : order[i].path, err);
    for (size_t i = 0; i < ARRAY_SIZE(order); i++)
        free(order[i].path);
    return r;
}

int cp_sign_ins_collect(const struct cp_settings_sources *src, struct cp_sign_ins *out,
                        cp_error_t *err)
{
    *out = (struct cp_sign_ins){0};
    /* The ones the person named come first: for the same host and prefix, theirs wins. */
    if (cp_sign_ins_named(out, src->workdir, err) < 0 || npm_family(out, src, err) < 0 ||
        cp_sign_ins_pip_files(out, src, err) < 0 ||
        cp_sign_ins_git_remotes(out, src->workdir, err) < 0) {
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
    struct cp_settings_sources src;
    if (cp_settings_sources_from_env(workdir, &home, &src, err) < 0)
        return cp_error_code(err);
    return cp_sign_ins_collect(&src, out, err);
}
