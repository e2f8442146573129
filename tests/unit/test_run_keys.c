/* Host-run files that are also project data (issue 35 item 1): the three readers, the rule (a
 * data key lands, every other key changed is refused by name, a file not understood is refused
 * whole, a key hidden by a trick of its format is still found) and both landings' hooks: the
 * container's layer and the mirror's for ssh and cloud. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mirror/keys.h"
#include "mirror/layer.h"
#include "mirror/run-keys.h"
#include "src/base/paths.h"
#include "src/base/util.h"
#include "tests/mirror/landrun.h"
#include "tests/unit/put-file.h"
#include "tests/unit/wait.h"

/* The key's value, or NULL when the reader did not give it. */
static const char *value_of(const struct cp_keys *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->v[i].name, name) == 0)
            return k->v[i].value;
    return NULL;
}

typedef int (*reader_fn)(const char *, size_t, struct cp_keys *);

static void not_understood(reader_fn read, const char *text)
{
    struct cp_keys k;
    if (read(text, strlen(text), &k) == 0) {
        cp_keys_dispose(&k);
        fail_msg("read, though it should not be understood: %s", text);
    }
    assert_int_equal(k.n, 0);
}

static void test_run_keys__npmrc__keys_as_npm_reads_them(void **state)
{
    (void)state;
    const char *text = "save-exact=true\n; a comment\n  # another\n  engine-strict = true \r"
                       "fund\n\n[sec]\na = b=c\nlist[]=1\n";
    struct cp_keys k;
    assert_int_equal(cp_keys_read_npmrc(text, strlen(text), &k), 0);
    assert_int_equal(k.n, 6);
    assert_string_equal(value_of(&k, "save-exact"), "true");
    assert_string_equal(value_of(&k, "engine-strict"), "true"); /* a lone CR ends a line */
    assert_string_equal(value_of(&k, "fund"), "true");          /* no '=': true */
    assert_non_null(value_of(&k, "[sec]"));
    assert_string_equal(value_of(&k, "sec.a"), "b=c"); /* the key ends at the first '=' */
    assert_string_equal(value_of(&k, "sec.list[]"), "1");
    cp_keys_dispose(&k);
}

static void test_run_keys__npmrc__keys_npm_reads_otherwise__not_understood(void **state)
{
    (void)state;
    not_understood(cp_keys_read_npmrc, "\"script-shell\"=/tmp/x\n"); /* ini unquotes it */
    not_understood(cp_keys_read_npmrc, "'script-shell'=/tmp/x\n");
    not_understood(cp_keys_read_npmrc, "${KEY}=/tmp/x\n");               /* npm expands it */
    not_understood(cp_keys_read_npmrc, "\xc2\xa0script-shell=/tmp/x\n"); /* JS trims NBSP */
    not_understood(cp_keys_read_npmrc, "script-shell;x=/tmp/x\n");       /* ini cuts at ';' */
    not_understood(cp_keys_read_npmrc, "save-exact=true\n\vscript-shell=x\n");
    not_understood(cp_keys_read_npmrc, " [sec]\n");
    not_understood(cp_keys_read_npmrc, "[sec] x\n");
}

static void test_run_keys__yarnrc__top_and_nested_keys(void **state)
{
    (void)state;
    const char *text = "# settings\nnodeLinker: node-modules\nsupportedArchitectures:\n"
                       "  os: [linux]\n  cpu:\n    - x64\n\"yarnPath\": .yarn/r.cjs\n"
                       "packageExtensions: {}\n";
    struct cp_keys k;
    assert_int_equal(cp_keys_read_yarnrc(text, strlen(text), &k), 0);
    assert_int_equal(k.n, 5);
    assert_string_equal(value_of(&k, "nodeLinker"), "node-modules");
    assert_string_equal(value_of(&k, "supportedArchitectures.os"), "[\"linux\"]");
    assert_string_equal(value_of(&k, "supportedArchitectures.cpu"), "[\"x64\"]");
    assert_string_equal(value_of(&k, "yarnPath"), ".yarn/r.cjs"); /* quoted: the same key */
    assert_string_equal(value_of(&k, "packageExtensions"), "{}");
    cp_keys_dispose(&k);
    struct cp_keys empty;
    assert_int_equal(cp_keys_read_yarnrc("# nothing\n", 10, &empty), 0);
    assert_int_equal(empty.n, 0);
}

static void test_run_keys__yarnrc__keys_brought_from_elsewhere__not_understood(void **state)
{
    (void)state;
    not_understood(cp_keys_read_yarnrc, "base: &b {yarnPath: x}\nother: *b\n");
    not_understood(cp_keys_read_yarnrc, "a: &x 1\nb: *x\n");
    not_understood(cp_keys_read_yarnrc, "<<: {yarnPath: x}\nnodeLinker: pnp\n");
    not_understood(cp_keys_read_yarnrc, "nodeLinker: !!str pnp\n");
    not_understood(cp_keys_read_yarnrc, "nodeLinker: pnp\nnodeLinker: node-modules\n");
    not_understood(cp_keys_read_yarnrc, "a:\n  x: 1\na:\n  yarnPath: y\n");
    not_understood(cp_keys_read_yarnrc, "# yarn lockfile v1\nyarnPath \"x\"\n");
    not_understood(cp_keys_read_yarnrc, "{yarnPath: x}\n");
    not_understood(cp_keys_read_yarnrc, "a: 1\n---\nyarnPath: x\n");
    not_understood(cp_keys_read_yarnrc, "%YAML 1.2\n---\na: 1\n");
    not_understood(cp_keys_read_yarnrc, "? [yarnPath]\n: x\n");
    not_understood(cp_keys_read_yarnrc, "a: [unclosed\n");
    not_understood(cp_keys_read_yarnrc, "just a string\n");
}

static void test_run_keys__toml__every_form_gives_one_dotted_key(void **state)
{
    (void)state;
    const char *forms[] = {
        "[build]\nrustc-wrapper = \"x\"\n",
        "build.rustc-wrapper = \"x\"\n",
        "build . rustc-wrapper = \"x\" # comment\n",
        "[build]\n\"rustc-wrapper\" = \"x\"\n",
        "[build]\n'rustc-wrapper' = \"x\"\n",
        "[\"build\"]\n\"rustc\\u002dwrapper\" = \"x\"\n",
        "build = { rustc-wrapper = \"x\" }\n",
        "[ build ]\r\nrustc-wrapper=\"x\"\r\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
        struct cp_keys k;
        assert_int_equal(cp_keys_read_toml(forms[i], strlen(forms[i]), &k), 0);
        assert_int_equal(k.n, 1);
        assert_string_equal(k.v[0].name, "build.rustc-wrapper");
        assert_string_equal(k.v[0].value, "\"x\"");
        cp_keys_dispose(&k);
    }
}

static void test_run_keys__toml__strings_arrays_and_tables(void **state)
{
    (void)state;
    const char *text = "a = 'lit'\nb = \"\"\"\nmulti \"\" \\\n  line\"\"\"\"\"\n"
                       "c = '''\nraw ' '' x'''\nd = [ 1, # one\n  \"two\", [3], {x = 1}, ]\n"
                       "e = 1979-05-27T07:32:00Z\nf = -inf\ng = 0x_ff\n"
                       "[[bin]]\nname = \"x\"\n[[bin]]\nname = \"y\"\n[bin.z]\nq = true\n"
                       "[target.'cfg(unix)']\nrunner = \"r\"\n[\"a.b\"]\nc = 1\n[empty]\n";
    struct cp_keys k;
    assert_int_equal(cp_keys_read_toml(text, strlen(text), &k), 0);
    assert_string_equal(value_of(&k, "a"), "'lit'");
    assert_non_null(value_of(&k, "b"));
    assert_non_null(value_of(&k, "c"));
    assert_non_null(value_of(&k, "d"));
    assert_string_equal(value_of(&k, "e"), "1979-05-27T07:32:00Z");
    assert_string_equal(value_of(&k, "bin[0].name"), "\"x\"");
    assert_string_equal(value_of(&k, "bin[1].name"), "\"y\"");
    assert_string_equal(value_of(&k, "bin[1].z.q"), "true");
    assert_string_equal(value_of(&k, "target.\"cfg(unix)\".runner"), "\"r\"");
    assert_string_equal(value_of(&k, "\"a.b\".c"), "1");
    assert_string_equal(value_of(&k, "empty"), "{}");
    cp_keys_dispose(&k);
}

static void test_run_keys__toml__what_toml_refuses__not_understood(void **state)
{
    (void)state;
    not_understood(cp_keys_read_toml, "a = 1\na = 2\n");
    not_understood(cp_keys_read_toml, "a = 1\n\"a\" = 2\n");
    not_understood(cp_keys_read_toml, "[a]\n[a]\n");
    not_understood(cp_keys_read_toml, "a.b = 1\n[a]\n");
    not_understood(cp_keys_read_toml, "[a.b]\nx = 1\n[a]\nb.y = 2\n");
    not_understood(cp_keys_read_toml, "build = { x = 1 }\n[build]\nrustc-wrapper = \"w\"\n");
    not_understood(cp_keys_read_toml, "build = { x = 1 }\nbuild.rustc-wrapper = \"w\"\n");
    not_understood(cp_keys_read_toml, "a = []\n[[a]]\n");
    not_understood(cp_keys_read_toml, "a = 1\rb = 2\n");            /* a lone CR */
    not_understood(cp_keys_read_toml, "a = \"\\e\"\n");             /* TOML 1.1's escape */
    not_understood(cp_keys_read_toml, "a = 1979-05-27 07:32:00\n"); /* a date with a space */
    not_understood(cp_keys_read_toml, "a = \"open\n");
    not_understood(cp_keys_read_toml, "a = \"\"\"x\"\"\"\"\"\"\n");
    not_understood(cp_keys_read_toml, "a = { b = 1,\n c = 2 }\n");
    not_understood(cp_keys_read_toml, "a = { b = 1, }\n");
    not_understood(cp_keys_read_toml, "a = 1 b = 2\n");
    not_understood(cp_keys_read_toml, "\"\"\"a\"\"\" = 1\n");
    not_understood(cp_keys_read_toml, "a = word\n");
    not_understood(cp_keys_read_toml, "[a\n");
}

static char *judge(enum cp_keyed kind, const char *here, const char *box)
{
    const char *path = kind == CP_KEYED_NPMRC    ? ".npmrc"
                       : kind == CP_KEYED_YARNRC ? ".yarnrc.yml"
                                                 : ".cargo/config.toml";
    return cp_run_keys_judge(kind, path, here, here ? strlen(here) : 0, box, strlen(box));
}

static void lands(enum cp_keyed kind, const char *here, const char *box)
{
    char *why = judge(kind, here, box);
    if (why != NULL)
        fail_msg("refused (%s): %s", why, box);
}

/* Refused with a reason naming key. */
static void refused(enum cp_keyed kind, const char *here, const char *box, const char *key)
{
    cleanup_free char *why = judge(kind, here, box);
    cleanup_free char *want = xasprintf("host-run: %s in ", key);
    if (why == NULL || strncmp(why, want, strlen(want)) != 0)
        fail_msg("%s: want \"%s...\", got %s", box, want, why ? why : "(landed)");
}

static void test_run_keys__data_keys__land(void **state)
{
    (void)state;
    lands(CP_KEYED_CARGO, "[profile.dev]\nopt-level = 0\n", "[profile.dev]\nopt-level = 1\n");
    lands(CP_KEYED_CARGO, NULL, "profile.release.lto = true\n[term]\ncolor = 'never'\n");
    lands(CP_KEYED_CARGO, NULL, "[profile.dev.package.foo]\nopt-level = 3\n[build]\njobs = 2\n");
    lands(CP_KEYED_CARGO, "[alias]\n", ""); /* an empty table holds no key */
    lands(CP_KEYED_NPMRC, NULL, "save-exact=true\nengine-strict=true\nignore-scripts=true\n");
    lands(CP_KEYED_NPMRC, "registry=https://r.example/\n",
          "registry=https://r.example/\nSave_Exact=true\n");
    lands(CP_KEYED_YARNRC, NULL, "nodeLinker: node-modules\nenableScripts: false\n");
    lands(CP_KEYED_YARNRC, "yarnPath: .yarn/releases/y.cjs\nnodeLinker: pnp\n",
          "nodeLinker: node-modules\n\"yarnPath\": .yarn/releases/y.cjs\n");
}

static void test_run_keys__keys_that_run__refused_by_name(void **state)
{
    (void)state;
    static const struct {
        enum cp_keyed kind;
        const char *box, *key;
    } cases[] = {
        {CP_KEYED_CARGO, "[build]\nrustc-wrapper = \"/tmp/w\"\n", "build.rustc-wrapper"},
        {CP_KEYED_CARGO, "[build]\nrustc = \"/tmp/w\"\n", "build.rustc"},
        {CP_KEYED_CARGO, "[build]\nrustflags = [\"-Clinker=/tmp/w\"]\n", "build.rustflags"},
        {CP_KEYED_CARGO, "[build]\ntarget = \"/tmp/spec.json\"\n", "build.target"},
        {CP_KEYED_CARGO, "[target.x86_64-unknown-linux-gnu]\nrunner = \"/tmp/w\"\n",
         "target.x86_64-unknown-linux-gnu.runner"},
        {CP_KEYED_CARGO, "[alias]\nb = \"run --bin x\"\n", "alias.b"},
        {CP_KEYED_CARGO, "[env]\nLD_PRELOAD = \"/tmp/x.so\"\n", "env.LD_PRELOAD"},
        {CP_KEYED_CARGO, "[source.crates-io]\nreplace-with = \"x\"\n",
         "source.crates-io.replace-with"},
        {CP_KEYED_CARGO, "[registries.x]\nindex = \"https://x\"\n", "registries.x.index"},
        {CP_KEYED_CARGO, "[registry]\nglobal-credential-providers = [\"/tmp/w\"]\n",
         "registry.global-credential-providers"},
        {CP_KEYED_CARGO, "credential-provider = \"/tmp/w\"\n", "credential-provider"},
        {CP_KEYED_CARGO, "[http]\nproxy = \"h:1\"\n", "http.proxy"},
        {CP_KEYED_CARGO, "[doc]\nbrowser = \"/tmp/w\"\n", "doc.browser"},
        {CP_KEYED_CARGO, "paths = [\"../x\"]\n", "paths"},
        {CP_KEYED_CARGO, "[patch.crates-io]\nfoo = { path = \"x\" }\n", "patch.crates-io.foo.path"},
        {CP_KEYED_CARGO, "[profile.dev]\nrustflags = [\"-Clinker=w\"]\n", "profile.dev.rustflags"},
        {CP_KEYED_CARGO, "[profile.dev]\ncodegen-backend = \"x\"\n", "profile.dev.codegen-backend"},
        {CP_KEYED_CARGO, "include = \"x.toml\"\n", "include"},
        {CP_KEYED_CARGO, "[[a]]\nopt-level = 1\n", "a[0].opt-level"},
        {CP_KEYED_NPMRC, "script-shell=/tmp/w\n", "script-shell"},
        {CP_KEYED_NPMRC, "node-options=--require /tmp/w.js\n", "node-options"},
        {CP_KEYED_NPMRC, "onload-script=/tmp/w.js\n", "onload-script"},
        {CP_KEYED_NPMRC, "registry=https://evil/\n", "registry"},
        {CP_KEYED_NPMRC, "@s:registry=https://evil/\n", "@s:registry"},
        {CP_KEYED_NPMRC, "//evil/:_authToken=x\n", "//evil/:_authToken"},
        {CP_KEYED_NPMRC, "git=/tmp/w\n", "git"},
        {CP_KEYED_NPMRC, "shell=/tmp/w\n", "shell"},
        {CP_KEYED_NPMRC, "editor=/tmp/w\n", "editor"},
        {CP_KEYED_NPMRC, "prefix=/tmp\n", "prefix"},
        {CP_KEYED_NPMRC, "globalconfig=/tmp/rc\n", "globalconfig"},
        {CP_KEYED_NPMRC, "userconfig=/tmp/rc\n", "userconfig"},
        {CP_KEYED_NPMRC, "pnpmfile=/tmp/p.cjs\n", "pnpmfile"},
        {CP_KEYED_NPMRC, "global-pnpmfile=/tmp/p.cjs\n", "global-pnpmfile"},
        {CP_KEYED_NPMRC, "ignore-scripts=false\n", "ignore-scripts"},
        {CP_KEYED_YARNRC, "yarnPath: /tmp/y.cjs\n", "yarnPath"},
        {CP_KEYED_YARNRC, "plugins:\n  - path: /tmp/p.cjs\n", "plugins"},
        {CP_KEYED_YARNRC, "npmRegistryServer: https://evil\n", "npmRegistryServer"},
        {CP_KEYED_YARNRC, "npmScopes:\n  s:\n    npmRegistryServer: https://evil\n",
         "npmScopes.s.npmRegistryServer"},
        {CP_KEYED_YARNRC, "npmAuthToken: x\n", "npmAuthToken"},
        {CP_KEYED_YARNRC, "injectEnvironmentFiles: [.env.x]\n", "injectEnvironmentFiles"},
        {CP_KEYED_YARNRC, "unsafeHttpWhitelist: [evil]\n", "unsafeHttpWhitelist"},
        {CP_KEYED_YARNRC, "httpProxy: http://h\n", "httpProxy"},
        {CP_KEYED_YARNRC, "httpsProxy: http://h\n", "httpsProxy"},
        {CP_KEYED_YARNRC, "enableScripts: true\n", "enableScripts"},
        {CP_KEYED_YARNRC, "packageExtensions:\n  'a@*':\n    dependencies:\n      b: 1\n",
         "packageExtensions.\"a@*\".dependencies.b"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
        refused(cases[i].kind, NULL, cases[i].box, cases[i].key);
    /* The first such key is named, in the box's file's order. */
    refused(CP_KEYED_CARGO, NULL,
            "[profile.dev]\nlto = true\n[target.x]\nlinker = 'l'\n[alias]\n"
            "x = 'y'\n",
            "target.x.linker");
}

static void test_run_keys__keys_hidden_by_a_trick__still_refused(void **state)
{
    (void)state;
    const char *here = "[profile.dev]\nopt-level = 0\n";
    refused(CP_KEYED_CARGO, here, "profile.dev.opt-level = 0\nbuild.rustc-wrapper = 'w'\n",
            "build.rustc-wrapper");
    refused(CP_KEYED_CARGO, here,
            "[profile.dev]\nopt-level = 0\n[build]\n\"rustc-wrapper\" = 'w'\n",
            "build.rustc-wrapper");
    refused(CP_KEYED_CARGO, here,
            "build = { rustc-wrapper = \"w\" }\n[profile.dev]\nopt-level = 0\n",
            "build.rustc-wrapper");
    refused(CP_KEYED_CARGO, NULL,
            "profile = { dev = { opt-level = 1 } }\nbuild = { \"rustc-wra"
            "pper\" = 'w' }\n",
            "build.rustc-wrapper");
    refused(CP_KEYED_YARNRC, NULL, "nodeLinker: pnp\n\"yarnPath\": /tmp/y.cjs\n", "yarnPath");
    refused(CP_KEYED_YARNRC, NULL, "'yarnPath': /tmp/y.cjs\n", "yarnPath");
    refused(CP_KEYED_NPMRC, NULL, "  SCRIPT-SHELL   =   /tmp/w  \n", "SCRIPT-SHELL");
    refused(CP_KEYED_NPMRC, NULL, "Script_Shell\t=/tmp/w\n", "Script_Shell");
    refused(CP_KEYED_NPMRC, NULL, "script-shell[]=/tmp/w\n", "script-shell[]");
    refused(CP_KEYED_NPMRC, NULL, "save-exact=true\rscript-shell=/tmp/w\n", "script-shell");
    /* The order of a key's values is its meaning: npm keeps the last one. */
    refused(CP_KEYED_NPMRC, "script-shell=/a\nscript-shell=/b\n",
            "script-shell=/b\nscript-shell=/a\n", "script-shell");
}

static void test_run_keys__keys_here__unchanged_land_removed_refused(void **state)
{
    (void)state;
    const char *here = "[build]\nrustc-wrapper = \"sccache\"\n[profile.dev]\nopt-level = 0\n";
    lands(CP_KEYED_CARGO, here,
          "build.rustc-wrapper = \"sccache\"\nprofile.dev.opt-level = 2 # faster\n");
    refused(CP_KEYED_CARGO, here, "[profile.dev]\nopt-level = 2\n", "build.rustc-wrapper");
    refused(CP_KEYED_CARGO, here, "[build]\nrustc-wrapper = \"/tmp/w\"\n", "build.rustc-wrapper");
    refused(CP_KEYED_NPMRC, "ignore-scripts=true\n", "", "ignore-scripts");
}

static void test_run_keys__not_understood__refused_whole(void **state)
{
    (void)state;
    cleanup_free char *a = judge(CP_KEYED_CARGO, NULL, "[profile.dev]\nopt-level = 1\n[a\n");
    assert_string_equal(a, CP_RULES_HOST_RUN);
    cleanup_free char *b = judge(CP_KEYED_CARGO, "a = \"\\e\"\n", "[profile.dev]\nlto = true\n");
    assert_string_equal(b, CP_RULES_HOST_RUN);
    cleanup_free char *c = judge(CP_KEYED_YARNRC, NULL, "a: &x 1\n");
    assert_string_equal(c, CP_RULES_HOST_RUN);
    cleanup_free char *d = judge(CP_KEYED_NPMRC, NULL, "\"script-shell\"=x\n");
    assert_string_equal(d, CP_RULES_HOST_RUN);
    cleanup_free char *e = cp_run_keys_judge(CP_KEYED_NONE, "x", NULL, 0, "", 0);
    assert_string_equal(e, CP_RULES_HOST_RUN);
}

static void test_run_keys__only_keyed__other_host_run_places_stay(void **state)
{
    (void)state;
    assert_true(cp_run_keys_only_keyed(NULL, ".cargo/config.toml"));
    assert_true(cp_run_keys_only_keyed(NULL, "crate/.cargo/config"));
    assert_true(cp_run_keys_only_keyed(NULL, "web/.yarnrc.yml"));
    assert_true(cp_run_keys_only_keyed(NULL, ".NPMRC"));
    assert_false(cp_run_keys_only_keyed(NULL, ".claude/.npmrc"));
    assert_false(cp_run_keys_only_keyed(NULL, ".vscode/.cargo/config.toml"));
    assert_false(cp_run_keys_only_keyed(NULL, ".yarnrc"));
    assert_false(cp_run_keys_only_keyed(NULL, "bunfig.toml"));
    assert_int_equal(cp_run_keys_kind("a/.cargo/config.toml"), CP_KEYED_CARGO);
    assert_int_equal(cp_run_keys_kind("config.toml"), CP_KEYED_NONE);
}

/* The layer's landing: a work folder and an upper folder side by side. */
static char top[64], work[96], up[96], said[8192];

static int setup(void **state)
{
    (void)state;
    snprintf(top, sizeof(top), "/tmp/conch-run-keys-XXXXXX");
    assert_non_null(mkdtemp(top));
    snprintf(work, sizeof(work), "%s/work", top);
    snprintf(up, sizeof(up), "%s/up", top);
    mkdir(work, 0755);
    mkdir(up, 0755);
    said[0] = '\0';
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_tree(top);
    return 0;
}

static void say(void *ctx, const char *line)
{
    (void)ctx;
    size_t n = strlen(said);
    snprintf(said + n, sizeof(said) - n, "%s\n", line);
}

static char *text_of(const char *root, const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    char *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t err = NULL;
    return cp_read_file(path, 65536, &text, &len, &err) == 0 ? text : NULL;
}

static void land_layer(void)
{
    int64_t since = wait_fs_tick();
    assert_true(since > 0);
    cleanup_close int rootfd = open(work, O_RDONLY | O_DIRECTORY);
    cleanup_close int upfd = open(up, O_RDONLY | O_DIRECTORY);
    static const struct cp_rules rules = {.deps_land = true};
    struct cp_layer_opts o = {
        .rootfd = rootfd, .upperfd = upfd, .since_ns = since, .rules = &rules};
    struct cp_mirror_report rep = {.say = say};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_layer_land(&o, &rep, &err), 0);
    cp_report_host_run_said(&rep, "take them with --unsealed");
    cp_report_dispose(&rep);
}

static void test_run_keys__layer__data_lands_a_runner_is_named(void **state)
{
    (void)state;
    put(work, ".cargo/config.toml", "[profile.dev]\nopt-level = 0\n");
    put(up, ".cargo/config.toml", "[profile.dev]\nopt-level = 1\n");
    put(up, "web/.yarnrc.yml", "yarnPath: .yarn/releases/evil.cjs\n");
    put(up, "app/.yarnrc.yml", "nodeLinker: node-modules\n");
    land_layer();
    cleanup_free char *cargo = text_of(work, ".cargo/config.toml");
    assert_string_equal(cargo, "[profile.dev]\nopt-level = 1\n");
    cleanup_free char *app = text_of(work, "app/.yarnrc.yml");
    assert_string_equal(app, "nodeLinker: node-modules\n");
    cleanup_free char *web = text_of(work, "web/.yarnrc.yml");
    assert_null(web);
    assert_non_null(strstr(said, "host-run: yarnPath in web/.yarnrc.yml"));
}

static void test_run_keys__layer__through_a_host_run_link__refused(void **state)
{
    (void)state;
    /* Here .claude leads to cfg: cfg/.npmrc is also .claude/.npmrc, which never lands. */
    char cfg[128], link[128];
    snprintf(cfg, sizeof(cfg), "%s/cfg", work);
    snprintf(link, sizeof(link), "%s/.claude", work);
    assert_int_equal(mkdir(cfg, 0755), 0);
    assert_int_equal(symlink("cfg", link), 0);
    put(up, "cfg/.npmrc", "save-exact=true\n");
    land_layer();
    cleanup_free char *npmrc = text_of(work, "cfg/.npmrc");
    assert_null(npmrc);
    assert_non_null(strstr(said, "host-run"));
}

/* The mirror's landing (ssh, cloud): the far side's tar of what it asked for. */
static void test_run_keys__mirror__data_lands_a_runner_is_named(void **state)
{
    (void)state;
    struct scratch s;
    assert_int_equal(scratch_make(&s), 0);
    put_file(s.work, ".cargo/config.toml", "[profile.dev]\nopt-level = 0\n");
    struct tb t;
    tb_init(&t);
    tb_file(&t, ".cargo/config.toml", "[profile.dev]\nopt-level = 3\n");
    tb_file(&t, "a/.cargo/config", "[build]\nrustc-wrapper = \"/tmp/w\"\n");
    tb_file(&t, ".claude/.npmrc", "save-exact=true\n");
    tb_end(&t);
    const char *asked[] = {".cargo/config.toml", "a/.cargo/config", ".claude/.npmrc", NULL};
    cleanup_landrun struct landrun r;
    landrun(&r, &s, &t, asked, 1, 1 << 20);
    assert_int_equal(r.rc, 0);
    cleanup_free char *cargo = get_file(s.work, ".cargo/config.toml");
    assert_string_equal(cargo, "[profile.dev]\nopt-level = 3\n");
    assert_false(exists_nofollow(s.work, "a/.cargo/config"));
    assert_false(exists_nofollow(s.work, ".claude/.npmrc"));
    assert_int_equal(landrun_ask(&r, ".cargo/config.toml")->outcome, CP_LAND_LANDED);
    assert_int_equal(landrun_ask(&r, "a/.cargo/config")->outcome, CP_LAND_REFUSED);
    assert_int_equal(landrun_ask(&r, ".claude/.npmrc")->outcome, CP_LAND_REFUSED);
    assert_non_null(strstr(r.said, "host-run: build.rustc-wrapper in a/.cargo/config"));
    assert_true(outside_untouched(&s));
    cp_report_dispose(&r.rep);
    tb_free(&t);
    scratch_remove(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_keys__npmrc__keys_as_npm_reads_them),
        cmocka_unit_test(test_run_keys__npmrc__keys_npm_reads_otherwise__not_understood),
        cmocka_unit_test(test_run_keys__yarnrc__top_and_nested_keys),
        cmocka_unit_test(test_run_keys__yarnrc__keys_brought_from_elsewhere__not_understood),
        cmocka_unit_test(test_run_keys__toml__every_form_gives_one_dotted_key),
        cmocka_unit_test(test_run_keys__toml__strings_arrays_and_tables),
        cmocka_unit_test(test_run_keys__toml__what_toml_refuses__not_understood),
        cmocka_unit_test(test_run_keys__data_keys__land),
        cmocka_unit_test(test_run_keys__keys_that_run__refused_by_name),
        cmocka_unit_test(test_run_keys__keys_hidden_by_a_trick__still_refused),
        cmocka_unit_test(test_run_keys__keys_here__unchanged_land_removed_refused),
        cmocka_unit_test(test_run_keys__not_understood__refused_whole),
        cmocka_unit_test(test_run_keys__only_keyed__other_host_run_places_stay),
        cmocka_unit_test_setup_teardown(test_run_keys__layer__data_lands_a_runner_is_named, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_run_keys__layer__through_a_host_run_link__refused,
                                        setup, teardown),
        cmocka_unit_test(test_run_keys__mirror__data_lands_a_runner_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
