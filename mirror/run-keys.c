/* The rule for host-run files that are also project data (mirror/run-keys.h), with each
 * format's short list of data keys. The lists allow, and everything else is refused: in these
 * tools nearly every key runs something, says where code or sign-ins come from, or widens what
 * is trusted, and a key a tool adds tomorrow must be refused until someone reads it. Decided
 * from the tools' documentation (cargo's config reference, npm's config page, pnpm's .npmrc
 * settings, Yarn's yarnrc reference). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/keys.h"
#include "mirror/layer.h"
#include "mirror/links.h"
#include "mirror/run-keys.h"
#include "mirror/walk.h"
#include "src/base/paths.h"
#include "src/base/util.h"
#include "src/base/protected.h"

/* A data key; only: the one value it may be given (a key whose other values run code). */
struct data_key {
    const char *key;
    const char *only;
};

/* npm's and pnpm's .npmrc keys that only shape what is written or shown. Refused, among the
 * rest: registry, @scope:registry and //host/:_authToken and friends (where packages and tokens
 * go), script-shell, shell, node-options, onload-script, git, editor, browser, viewer, node-gyp
 * (programs npm runs), prefix, globalconfig, userconfig, cache, init-module, pnpmfile,
 * global-pnpmfile, use-node-version (code or config from elsewhere), proxy, https-proxy,
 * strict-ssl, ca, cafile (what is trusted), enable-pre-post-scripts, side-effects-cache, and
 * tag-version-prefix (a tag name git could take for an option). Matched
 * in any case and with '_' for '-'. */
static const struct data_key npm_keys[] = {
    {"save-exact", NULL},        /* package.json gets exact versions */
    {"save-prefix", NULL},       /* the range operator package.json gets */
    {"save", NULL},              /* whether installs write package.json */
    {"save-dev", NULL},          /* ...as devDependencies */
    {"save-optional", NULL},     /* ...as optionalDependencies */
    {"save-peer", NULL},         /* ...as peerDependencies */
    {"save-bundle", NULL},       /* ...as bundleDependencies */
    {"engine-strict", NULL},     /* refuse packages for another Node.js */
    {"fund", NULL},              /* the funding message */
    {"audit", NULL},             /* whether installs ask for an audit */
    {"audit-level", NULL},       /* the audit's failing level */
    {"package-lock", NULL},      /* whether package-lock.json is read and written */
    {"package-lock-only", NULL}, /* update only the lock file */
    {"lockfile-version", NULL},  /* the lock file's format */
    {"legacy-peer-deps", NULL},  /* peer dependencies resolved as npm 6 did */
    {"strict-peer-deps", NULL},  /* conflicting peers fail the install */
    {"prefer-dedupe", NULL},     /* dedupe over the newest version */
    {"install-strategy", NULL},  /* hoisted, nested, shallow or linked node_modules */
    {"omit", NULL},              /* dependency kinds left out (dev, optional, peer) */
    {"include", NULL},           /* ...and put back */
    {"loglevel", NULL},          /* how much is logged */
    {"progress", NULL},          /* the progress bar */
    {"color", NULL},             /* colours in output */
    {"unicode", NULL},           /* unicode in output */
    {"update-notifier", NULL},   /* the new-version notice */
    {"prefer-offline", NULL},    /* the cache before the network */
    {"prefer-online", NULL},     /* the network before the cache */
    {"offline", NULL},           /* the cache only */
    {"fetch-retries", NULL},     /* network retries and timeouts */
    {"fetch-retry-factor", NULL},
    {"fetch-retry-mintimeout", NULL},
    {"fetch-retry-maxtimeout", NULL},
    {"fetch-timeout", NULL},
    {"message", NULL},                  /* npm version's commit message */
    {"git-tag-version", NULL},          /* whether npm version tags */
    {"ignore-scripts", "true"},         /* scripts never run; false makes them run */
    {"shamefully-hoist", NULL},         /* pnpm: a flat node_modules */
    {"node-linker", NULL},              /* pnpm: isolated, hoisted or pnp */
    {"auto-install-peers", NULL},       /* pnpm: peers installed by themselves */
    {"strict-peer-dependencies", NULL}, /* pnpm: conflicting peers fail */
    {"resolution-mode", NULL},          /* pnpm: highest or time-based versions */
    {"link-workspace-packages", NULL},  /* pnpm: workspace packages linked */
    {"prefer-workspace-packages", NULL},
    {"save-workspace-protocol", NULL},
    {"shared-workspace-lockfile", NULL}, /* pnpm: one lock file for the workspace */
    {"dedupe-peer-dependents", NULL},
    {"prefer-frozen-lockfile", NULL}, /* pnpm: lock file kept as it is */
    {NULL, NULL},
};

/* Yarn's .yarnrc.yml keys that only shape installs' layout and output. Refused, among the rest:
 * yarnPath and plugins (JavaScript Yarn runs), npmRegistryServer, npmScopes and every npm*Auth*
 * (where packages and tokens go), injectEnvironmentFiles (environments for scripts),
 * unsafeHttpWhitelist, httpProxy, httpsProxy, enableStrictSsl, caFilePath (what is trusted),
 * packageExtensions (dependencies added, with their scripts), initFields (package.json's
 * fields, scripts too), cacheFolder, globalFolder and the other paths, changesetBaseRefs (refs
 * handed to git, where one could read as an option). Matched exactly. */
static const struct data_key yarn_keys[] = {
    {"nodeLinker", NULL},               /* pnp, pnpm or node-modules */
    {"nmMode", NULL},                   /* node_modules: classic or hard links */
    {"nmHoistingLimits", NULL},         /* node_modules: how far packages hoist */
    {"nmSelfReferences", NULL},         /* node_modules: workspaces' links to themselves */
    {"pnpMode", NULL},                  /* Plug'n'Play: strict or loose */
    {"pnpFallbackMode", NULL},          /* Plug'n'Play: which packages fall back */
    {"enableTelemetry", NULL},          /* usage reports */
    {"compressionLevel", NULL},         /* the cache's zip level */
    {"enableGlobalCache", NULL},        /* one cache for all projects */
    {"enableImmutableInstalls", NULL},  /* the lock file must not change */
    {"enableImmutableCache", NULL},     /* the cache must not change */
    {"enableInlineBuilds", NULL},       /* build output shown inline */
    {"enableProgressBars", NULL},       /* output */
    {"enableColors", NULL},             /* output */
    {"enableHyperlinks", NULL},         /* output */
    {"enableMessageNames", NULL},       /* output */
    {"enableTimers", NULL},             /* output */
    {"logFilters", NULL},               /* which messages show */
    {"preferInteractive", NULL},        /* yarn add asks */
    {"preferReuse", NULL},              /* yarn add reuses ranges */
    {"preferTruncatedLines", NULL},     /* output */
    {"defaultSemverRangePrefix", NULL}, /* the range yarn add writes */
    {"enableTransparentWorkspaces", NULL},
    {"enableOfflineMode", NULL},         /* the cache only */
    {"enableNetwork", NULL},             /* no network at all when false */
    {"networkConcurrency", NULL},        /* network tuning */
    {"httpTimeout", NULL},               /* network tuning */
    {"httpRetry", NULL},                 /* network tuning */
    {"supportedArchitectures.os", NULL}, /* which platforms' binaries are fetched */
    {"supportedArchitectures.cpu", NULL},
    {"supportedArchitectures.libc", NULL},
    {"enableScripts", "false"},     /* scripts never run; true makes them run */
    {"enableHardenedMode", "true"}, /* more checks of the lock file */
    {NULL, NULL},
};

/* cargo's config keys that only tune a build: profiles' code generation, the terminal, jobs.
 * Refused, among the rest: build.rustc, rustc-wrapper, rustc-workspace-wrapper, rustdoc,
 * rustflags and rustdocflags (-C linker= runs a program), build.target (a JSON spec names a
 * linker) and target-dir, target.* (runner, linker), alias, env (LD_PRELOAD into build
 * scripts), registry, registries, source (replace-with), credential-provider, http and net
 * (proxies, what is trusted), doc.browser, paths, patch, install.root, include, unstable, and
 * a profile's rustflags and codegen-backend (a library loaded into rustc). */
static const struct data_key cargo_keys[] = {
    {"build.jobs", NULL},        /* parallel jobs */
    {"build.incremental", NULL}, /* incremental compilation */
    {"term.quiet", NULL},        /* output */
    {"term.verbose", NULL},
    {"term.color", NULL},
    {"term.hyperlinks", NULL},
    {"term.unicode", NULL},
    {"term.progress.when", NULL},
    {"term.progress.width", NULL},
    {"term.progress.term-integration", NULL},
    {"cargo-new.vcs", NULL},                       /* the VCS cargo new sets up */
    {"future-incompat-report.frequency", NULL},    /* how often the report is shown */
    {"cache.auto-clean-frequency", NULL},          /* the cache's cleaning */
    {"resolver.incompatible-rust-versions", NULL}, /* MSRV-aware resolution */
    {NULL, NULL},
};

/* A profile's code generation: profile.NAME.KEY, and the same for one package
 * (profile.NAME.package.PKG.KEY) and for build scripts (profile.NAME.build-override.KEY). */
static const char *const profile_keys[] = {
    "opt-level", "debug", "split-debuginfo", "strip",         "debug-assertions", "overflow-checks",
    "lto",       "panic", "incremental",     "codegen-units", "inherits",         "trim-paths",
    NULL,
};

enum cp_keyed cp_run_keys_kind(const char *path)
{
    static const struct {
        const char *pattern;
        enum cp_keyed kind;
    } kinds[] = {{".npmrc", CP_KEYED_NPMRC},
                 {".yarnrc.yml", CP_KEYED_YARNRC},
                 {".cargo/config.toml", CP_KEYED_CARGO},
                 {".cargo/config", CP_KEYED_CARGO}};
    for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
        const char *one[] = {kinds[i].pattern, NULL};
        if (cp_protected_is(one, path))
            return kinds[i].kind;
    }
    return CP_KEYED_NONE;
}

/* The dotted name's segments (a quoted one whole) into segs; their count, or -1. */
static int split(const char *name, const char **segs, size_t *lens, size_t max)
{
    size_t n = 0;
    for (const char *c = name; *c != '\0';) {
        const char *start = c;
        if (*c == '"') {
            for (c++; *c != '\0' && *c != '"'; c++)
                if (*c == '\\' && c[1] != '\0')
                    c++;
            if (*c == '"')
                c++;
        } else {
            while (*c != '\0' && *c != '.' && *c != '[')
                c++;
        }
        if (n >= max)
            return -1;
        segs[n] = start;
        lens[n++] = (size_t)(c - start);
        if (*c == '.')
            c++;
        else if (*c != '\0')
            return -1; /* an array of tables' [N]: never data */
    }
    return (int)n;
}

static bool seg_is(const char *seg, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(seg, word, len) == 0;
}

static bool profile_key(const char *name)
{
    const char *s[8];
    size_t l[8];
    int n = split(name, s, l, 8);
    if (n < 3 || !seg_is(s[0], l[0], "profile"))
        return false;
    int at = 2;
    if (n >= 5 && seg_is(s[2], l[2], "package"))
        at = 4;
    else if (n >= 4 && seg_is(s[2], l[2], "build-override"))
        at = 3;
    if (n != at + 1)
        return false;
    for (size_t i = 0; profile_keys[i] != NULL; i++)
        if (seg_is(s[at], l[at], profile_keys[i]))
            return true;
    return false;
}

/* npm's spelling folded: any case, '_' for '-', a list's "[]" dropped. */
static void npm_fold(const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    if (n >= 2 && strcmp(name + n - 2, "[]") == 0)
        n -= 2;
    size_t i = 0;
    for (; i < n && i + 1 < cap; i++)
        out[i] = name[i] == '_' ? '-'
                                : (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    out[i] = '\0';
}

static const struct data_key *data_key(enum cp_keyed kind, const char *name)
{
    const struct data_key *list = kind == CP_KEYED_NPMRC    ? npm_keys
                                  : kind == CP_KEYED_YARNRC ? yarn_keys
                                                            : cargo_keys;
    char folded[512];
    if (kind == CP_KEYED_NPMRC)
        npm_fold(name, folded, sizeof(folded));
    const char *want = kind == CP_KEYED_NPMRC ? folded : name;
    for (size_t i = 0; list[i].key != NULL; i++)
        if (strcmp(list[i].key, want) == 0)
            return &list[i];
    static const struct data_key profile = {"profile", NULL};
    return kind == CP_KEYED_CARGO && profile_key(name) ? &profile : NULL;
}

/* The positions of one name's values, in file order: keys sorted by name, then position. */
struct entry {
    const struct cp_key *k;
    size_t pos;
};

static int by_name(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = strcmp(x->k->name, y->k->name);
    return c != 0 ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

static struct entry *sorted(const struct cp_keys *k)
{
    struct entry *e = xcalloc(k->n + 1, sizeof(*e));
    for (size_t i = 0; i < k->n; i++)
        e[i] = (struct entry){.k = &k->v[i], .pos = i};
    qsort(e, k->n, sizeof(*e), by_name);
    return e;
}

/* How many entries from e[at] on share its name. */
static size_t group(const struct entry *e, size_t n, size_t at)
{
    size_t g = 1;
    while (at + g < n && strcmp(e[at + g].k->name, e[at].k->name) == 0)
        g++;
    return g;
}

static bool same_values(const struct entry *a, size_t na, const struct entry *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].k->value, b[i].k->value) != 0)
            return false;
    return true;
}

static bool all_empty_tables(const struct entry *a, size_t na)
{
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].k->value, "{}") != 0)
            return false;
    return true;
}

/* Whether a name whose values changed (here: a, the box: b) may change so. */
static bool may_change(enum cp_keyed kind, const char *name, const struct entry *a, size_t na,
                       const struct entry *b, size_t nb)
{
    if (kind == CP_KEYED_CARGO && all_empty_tables(a, na) && all_empty_tables(b, nb))
        return true; /* an empty table holds no key */
    const struct data_key *d = data_key(kind, name);
    if (d == NULL)
        return false;
    return d->only == NULL || (nb == 1 && strcmp(b[0].k->value, d->only) == 0);
}

/* The first name (by its place in the box's file, then in this computer's) that changed and
 * may not; NULL when none. */
static const char *first_refused(enum cp_keyed kind, const struct cp_keys *here,
                                 const struct cp_keys *box)
{
    struct entry *h = sorted(here), *b = sorted(box);
    const char *worst = NULL;
    size_t worst_pos = (size_t)-1;
    for (size_t i = 0, j = 0; i < here->n || j < box->n;) {
        int c = i >= here->n ? 1 : j >= box->n ? -1 : strcmp(h[i].k->name, b[j].k->name);
        size_t gi = c <= 0 ? group(h, here->n, i) : 0, gj = c >= 0 ? group(b, box->n, j) : 0;
        const char *name = c <= 0 ? h[i].k->name : b[j].k->name;
        size_t pos = gj > 0 ? b[j].pos : box->n + h[i].pos;
        if (!same_values(h + i, gi, b + j, gj) && !may_change(kind, name, h + i, gi, b + j, gj) &&
            pos < worst_pos) {
            worst = name;
            worst_pos = pos;
        }
        i += gi;
        j += gj;
    }
    free(h);
    free(b);
    return worst;
}

static int read_keys(enum cp_keyed kind, const char *text, size_t len, struct cp_keys *out)
{
    if (text == NULL) {
        *out = (struct cp_keys){0};
        return 0;
    }
    return kind == CP_KEYED_NPMRC    ? cp_keys_read_npmrc(text, len, out)
           : kind == CP_KEYED_YARNRC ? cp_keys_read_yarnrc(text, len, out)
                                     : cp_keys_read_toml(text, len, out);
}

char *cp_run_keys_judge(enum cp_keyed kind, const char *path, const char *here, size_t here_len,
                        const char *box, size_t box_len)
{
    struct cp_keys h = {0}, b = {0};
    if (kind == CP_KEYED_NONE || read_keys(kind, here, here_len, &h) < 0)
        return xstrdup(CP_RULES_HOST_RUN);
    if (read_keys(kind, box, box_len, &b) < 0) {
        cp_keys_dispose(&h);
        return xstrdup(CP_RULES_HOST_RUN);
    }
    const char *key = first_refused(kind, &h, &b);
    char *why = NULL;
    if (key != NULL) {
        cleanup_free char *k = cp_escape(key), *p = cp_escape(path);
        why = xasprintf("host-run: %s in %s may run a program here; only data keys land (set it "
                        "here yourself to keep it)",
                        k, p);
    }
    cp_keys_dispose(&h);
    cp_keys_dispose(&b);
    return why;
}

/* The table in force without the entries for the keyed files; the caller frees the vector
 * (not its strings). */
static const char **table_without_keyed(const struct cp_rules *r)
{
    static const char *const keyed[] = {".npmrc", ".yarnrc.yml", ".cargo/config.toml",
                                        ".cargo/config", NULL};
    const char *const *table = r && r->host_run ? r->host_run : cp_host_run_default;
    size_t n = 0;
    while (table[n] != NULL)
        n++;
    const char **v = xcalloc(n + 1, sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool drop = false;
        for (size_t j = 0; keyed[j] != NULL; j++)
            drop = drop || strcmp(table[i], keyed[j]) == 0;
        if (!drop)
            v[k++] = table[i];
    }
    return v;
}

static struct cp_rules rules_without_keyed(const struct cp_rules *r, const char **table)
{
    struct cp_rules w = r ? *r : (struct cp_rules){0};
    w.host_run = table;
    return w;
}

bool cp_run_keys_only_keyed(const struct cp_rules *r, const char *path)
{
    if (cp_run_keys_kind(path) == CP_KEYED_NONE)
        return false;
    cleanup_free const char **table = table_without_keyed(r);
    struct cp_rules w = rules_without_keyed(r, table);
    return cp_rules_check_back(&w, path) == NULL;
}

/* A plain file's bytes, at most CP_KEYS_FILE_MAX; -1 otherwise. */
static int read_text(int fd, char **out, size_t *len)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CP_KEYS_FILE_MAX)
        return -1;
    cleanup_error cp_error_t err = NULL;
    return cp_read_fd("settings", fd, CP_KEYS_FILE_MAX, out, len, &err);
}

/* This computer's file at path: *out NULL when there is none. -1 when it cannot be read as
 * a plain file (a link, a folder on the way that is a link). */
static int read_here(int rootfd, const char *path, char **out, size_t *len)
{
    struct stat st;
    *out = NULL;
    *len = 0;
    if (fstat(rootfd, &st) < 0)
        return -1;
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(rootfd, (uint64_t)st.st_dev, path, false, &dirfd, &base, &why) < 0)
        return strcmp(why, "no such folder") == 0 ? 0 : -1;
    cleanup_close int fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    return read_text(fd, out, len);
}

char *cp_run_keys_why(int rootfd, const char *path, int boxfd)
{
    cleanup_free char *here = NULL, *box = NULL;
    size_t here_len = 0, box_len = 0;
    if (lseek(boxfd, 0, SEEK_SET) < 0 || read_text(boxfd, &box, &box_len) < 0 ||
        read_here(rootfd, path, &here, &here_len) < 0)
        return xstrdup(CP_RULES_HOST_RUN);
    return cp_run_keys_judge(cp_run_keys_kind(path), path, here, here_len, box ? box : "", box_len);
}

char *cp_run_keys_layer_why(const struct cp_layer_opts *o, int udirfd, const char *name,
                            const char *path)
{
    if (cp_run_keys_kind(path) == CP_KEYED_NONE)
        return xstrdup(CP_RULES_HOST_RUN);
    cleanup_free const char **table = table_without_keyed(o->rules);
    struct cp_rules w = rules_without_keyed(o->rules, table);
    struct cp_links *links = cp_links_new(o->rootfd, o->upperfd, &w);
    const char *other = cp_links_place_why(links, path);
    char *why = other != NULL ? xstrdup(other) : NULL;
    cp_links_free(links);
    if (why != NULL)
        return why;
    cleanup_close int fd = openat(udirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    return cp_run_keys_why(o->rootfd, path, fd);
}
