/* Unit tests for the sign-ins the sidecar adds: each reader (npmrc, bunfig, .yarnrc.yml,
 * pip.conf with ~/.netrc), ${VAR}, the https-on-443 rule, the project's .npmrc over ~'s, the
 * sidecar's message, git credential fill against a real git (a store helper, and one that
 * hangs), the allow-list's words, and the keyless copies the box sees in its HOME. */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "places/container/allow/allowlist.h"
#include "places/container/allow/git-credential.h"
#include "places/container/box/protect.h"
#include "places/container/allow/sign-ins.h"
#include "places/container/allow/sign-in-read.h"
#include "src/base/digest.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/keyless.h"
#include "src/base/util.h"
#include "tests/unit/wait.h"

static char scratch[64];
static char *home, *work;

static void put(const char *dir, const char *name, const char *text)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, name);
    cleanup_free char *mk = xstrdup(path);
    *strrchr(mk, '/') = '\0';
    for (char *p = mk + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(mk, 0700);
            *p = '/';
        }
    mkdir(mk, 0700);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void rm_rf(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/rm", "rm", "-rf", "--", path, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof(scratch), "/tmp/conch-test-sign-in-XXXXXX");
    if (mkdtemp(scratch) == NULL)
        return -1;
    home = xasprintf("%s/home", scratch);
    work = xasprintf("%s/work", scratch);
    mkdir(home, 0700);
    mkdir(work, 0700);
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    cleanup_free char *conch = xasprintf("%s/conch", scratch);
    setenv("CONCH_HOME", conch, 1);
    setenv("CONCH_NPM_DEFAULT_REGISTRY", "https://registry.npm.example/", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(scratch);
    free(home);
    free(work);
    return 0;
}

static int collect(struct cp_sign_ins *s)
{
    cleanup_error cp_error_t err = NULL;
    struct cp_settings_sources src = {.workdir = work, .home = home};
    int r = cp_sign_ins_collect(&src, s, &err);
    if (r < 0)
        fprintf(stderr, "%s\n", err->msg);
    return r;
}

static const struct cp_sign_in *find(const struct cp_sign_ins *s, const char *host,
                                     const char *prefix)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].host, host) == 0 && strcmp(s->v[i].prefix, prefix) == 0)
            return &s->v[i];
    return NULL;
}

static char *b64(const char *s)
{
    cleanup_free char *e = cp_base64_encode(s, strlen(s));
    return xasprintf("Basic %s", e);
}

/* ---- npm ---- */

static void test_sign_ins__npmrc_token__bearer_for_nerf_dart(void **state)
{
    put(home, ".npmrc",
        "registry=https://npm.corp.example/npm/\n"
        "//npm.corp.example/npm/:_authToken=tok-123\n"
        "; a comment\n//other.example/:_authToken = \"quoted-tok\"\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    const struct cp_sign_in *a = find(&s, "npm.corp.example", "/npm/");
    assert_non_null(a);
    assert_string_equal(a->authorization, "Bearer tok-123");
    assert_string_equal(a->source, "~/.npmrc");
    assert_non_null(find(&s, "other.example", "/"));
    assert_string_equal(find(&s, "other.example", "/")->authorization, "Bearer quoted-tok");
}

static void test_sign_ins__npmrc_no_trailing_slash__prefix_gets_one(void **state)
{
    put(home, ".npmrc", "//npm.corp.example/npm:_authToken=t\n//bare.example:_auth=QUJD\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    assert_non_null(find(&s, "npm.corp.example", "/npm/"));
    assert_non_null(find(&s, "bare.example", "/"));
    assert_string_equal(find(&s, "bare.example", "/")->authorization, "Basic QUJD");
}

static void test_sign_ins__npmrc_username_password__basic_of_decoded(void **state)
{
    /* _password is base64 of the password, as npm writes it. */
    put(home, ".npmrc",
        "//npm.corp.example/:username=alice\n//npm.corp.example/:_password=cGFzcw==\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_free char *want = b64("alice:pass");
    assert_non_null(find(&s, "npm.corp.example", "/"));
    assert_string_equal(find(&s, "npm.corp.example", "/")->authorization, want);
}

static void test_sign_ins__npmrc_port__443_only(void **state)
{
    put(home, ".npmrc",
        "//a.example:443/r/:_authToken=t1\n//b.example:8443/r/:_authToken=t2\n"
        "//c.example:/r/:_authToken=t3\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    assert_non_null(find(&s, "a.example", "/r/"));
    assert_null(find(&s, "b.example", "/r/"));
    assert_false(cp_sign_ins_has(&s, "b.example"));
    assert_false(cp_sign_ins_has(&s, "c.example"));
}

static void test_sign_ins__npmrc_var__expanded_or_none(void **state)
{
    setenv("CONCH_TEST_NPM_TOKEN", "from-env", 1);
    unsetenv("CONCH_TEST_UNSET_TOKEN");
    put(home, ".npmrc",
        "//set.example/:_authToken=${CONCH_TEST_NPM_TOKEN}\n"
        "//unset.example/:_authToken=${CONCH_TEST_UNSET_TOKEN}\n"
        "//escaped.example/:_authToken=\\${CONCH_TEST_NPM_TOKEN}\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    assert_string_equal(find(&s, "set.example", "/")->authorization, "Bearer from-env");
    assert_false(cp_sign_ins_has(&s, "unset.example"));
    assert_string_equal(find(&s, "escaped.example", "/")->authorization,
                        "Bearer ${CONCH_TEST_NPM_TOKEN}");
}

static void test_sign_ins__npmrc_project_and_home__project_wins(void **state)
{
    put(home, ".npmrc", "//npm.corp.example/:_authToken=home-tok\n");
    put(work, ".npmrc", "//npm.corp.example/:_authToken=project-tok\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    const struct cp_sign_in *a = find(&s, "npm.corp.example", "/");
    assert_string_equal(a->authorization, "Bearer project-tok");
    cleanup_free char *shown = xasprintf("%s/.npmrc", work);
    assert_string_equal(a->source, shown);
    assert_int_equal(s.n, 1);
}

static void test_sign_ins__npmrc_bad_shapes__ignored(void **state)
{
    static const char text[] = "//:_authToken=x\n_authToken=y\n//h/:other=z\n"
                               "//h/:_authToken\n@s:registry=https://a/\n";
    char **v = cp_npmrc_sign_in_lines(text, sizeof(text) - 1);
    assert_null(v[0]);
    cp_strv_free_secret(v);
}

/* ---- bunfig ---- */

static void test_sign_ins__bunfig_forms__each_kind(void **state)
{
    put(home, ".bunfig.toml",
        "[install]\nregistry = \"https://bob:p%40ss@bun.example/r/\"\n"
        "[install.scopes]\n"
        "corp = { url = \"https://corp.example/npm/\", token = \"bun-tok\" }\n"
        "\"@two\" = { url = \"https://two.example/\", username = \"u\", password = \"pw\" }\n"
        "[install.scopes.three]\nurl = \"https://three.example/x\"\ntoken = \"t3\"\n"
        "[install.scopes.plain]\nurl = \"http://plain.example/\"\ntoken = \"t4\"\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_free char *bob = b64("bob:p@ss");
    cleanup_free char *two = b64("u:pw");
    assert_string_equal(find(&s, "bun.example", "/r/")->authorization, bob);
    assert_string_equal(find(&s, "corp.example", "/npm/")->authorization, "Bearer bun-tok");
    assert_string_equal(find(&s, "two.example", "/")->authorization, two);
    assert_string_equal(find(&s, "three.example", "/x/")->authorization, "Bearer t3");
    assert_false(cp_sign_ins_has(&s, "plain.example")); /* http: the sidecar cannot */
}

/* ---- Yarn ---- */

static void test_sign_ins__yarnrc__top_scopes_and_registries(void **state)
{
    setenv("CONCH_TEST_YARN_TOKEN", "yarn-env", 1);
    put(work, ".yarnrc.yml",
        "npmRegistryServer: \"https://yarn.corp.example/npm/\"\n"
        "npmAuthToken: \"${CONCH_TEST_YARN_TOKEN}\"\n"
        "npmScopes:\n  corp:\n    npmRegistryServer: https://scope.example/s/\n"
        "    npmAuthIdent: \"carol:secret\"\n"
        "  other:\n    npmAuthIdent: Y2FyOmQ=\n"
        "npmRegistries:\n  \"//reg.example/path\":\n    npmAuthToken: reg-tok\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_free char *carol = b64("carol:secret");
    assert_string_equal(find(&s, "yarn.corp.example", "/npm/")->authorization, "Bearer yarn-env");
    assert_string_equal(find(&s, "scope.example", "/s/")->authorization, carol);
    assert_string_equal(find(&s, "reg.example", "/path/")->authorization, "Bearer reg-tok");
    /* A scope without a server of its own is the top level's, as Yarn takes it; the top
     * level's own token came first. */
    assert_string_equal(find(&s, "yarn.corp.example", "/npm/")->authorization, "Bearer yarn-env");
}

static void test_sign_ins__yarnrc_not_yaml__nothing(void **state)
{
    const char *bad = "npmAuthToken: [unclosed\n  - : :\n";
    char **v = cp_yarnrc_sign_in_lines(bad, strlen(bad));
    assert_null(v[0]);
    cp_strv_free_secret(v);
}

/* ---- pip and netrc ---- */

static void test_sign_ins__pip_url_userinfo__basic_decoded(void **state)
{
    put(home, ".config/pip/pip.conf",
        "[global]\nindex-url = https://dave:p%3Aw%40x@pypi.corp.example/simple\n"
        "extra-index-url = https://plain.example/root/+simple/\n"
        "    http://insecure.example/simple/\n");
    put(home, ".netrc",
        "machine plain.example login erin password \"e p\"\n"
        "macdef init\ncd /\n\nmachine insecure.example login x password y\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_free char *dave = b64("dave:p:w@x");
    cleanup_free char *erin = b64("erin:e p");
    /* An index's files sit beside it: the prefix is the index's parent. */
    assert_string_equal(find(&s, "pypi.corp.example", "/")->authorization, dave);
    assert_string_equal(find(&s, "plain.example", "/root/")->authorization, erin);
    assert_string_equal(find(&s, "plain.example", "/root/")->source, "~/.netrc");
    assert_false(cp_sign_ins_has(&s, "insecure.example"));
}

static void test_sign_ins__netrc_default__used_when_no_machine(void **state)
{
    put(home, ".pip/pip.conf", "[install]\nindex-url = https://idx.example/pypi/\n");
    put(home, ".netrc", "machine else.example login a password b\ndefault login dl password dp\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_free char *want = b64("dl:dp");
    assert_string_equal(find(&s, "idx.example", "/pypi/")->authorization, want);
}

static void test_sign_ins__pip_no_credential__no_sign_in(void **state)
{
    /* No user in the address and no ~/.netrc: nothing, and nothing freed that was not made. */
    put(home, ".pip/pip.conf", "[global]\nindex-url = https://idx.example/simple/\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    assert_int_equal(s.n, 0);
}

static void test_sign_ins__unreadable_file__error(void **state)
{
    /* A folder where the file should be cannot be read as one, by root either. */
    cleanup_free char *path = xasprintf("%s/.npmrc", home);
    mkdir(path, 0700);
    cleanup_sign_ins struct cp_sign_ins s = {0};
    cleanup_error cp_error_t err = NULL;
    struct cp_settings_sources src = {.workdir = work, .home = home};
    assert_int_equal(cp_sign_ins_collect(&src, &s, &err), CP_ERR_FAILED);
    assert_non_null(strstr(err->msg, "~/.npmrc"));
    assert_int_equal(s.n, 0);
}

/* ---- the message ---- */

static void test_sign_ins__message__one_line_of_json(void **state)
{
    put(home, ".npmrc", "//a.example/r/:_authToken=t\"q\\\n//b.example/:_auth=QUI=\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    char *msg = cp_sign_ins_message(&s, NULL);
    size_t n = strlen(msg);
    assert_true(n > 1 && msg[n - 1] == '\n');
    assert_null(memchr(msg, '\n', n - 1));
    json_object *doc = json_tokener_parse(msg);
    assert_non_null(doc);
    json_object *a = NULL;
    assert_true(json_object_object_get_ex(doc, "sign_ins", &a));
    assert_int_equal(json_object_array_length(a), 2);
    json_object *first = json_object_array_get_idx(a, 0), *v = NULL;
    assert_true(json_object_object_get_ex(first, "authorization", &v));
    assert_string_equal(json_object_get_string(v), "Bearer t\"q\\");
    assert_true(json_object_object_get_ex(first, "prefix", &v));
    assert_string_equal(json_object_get_string(v), "/r/");
    assert_true(json_object_object_get_ex(first, "source", &v));
    json_object_put(doc);
    cp_free_secret(msg);
    struct cp_sign_ins none = {0};
    char *empty = cp_sign_ins_message(&none, "ab12");
    assert_string_equal(empty, "{\"id\":\"ab12\",\"sign_ins\":[]}\n"); /* the id, for the answer */
    cp_free_secret(empty);
}

/* ---- git credential fill ---- */

static void git_remote(const char *url)
{
    cleanup_free char *text = xasprintf("[remote \"origin\"]\n\turl = %s\n", url);
    put(work, ".git/config", text);
}

static void test_sign_ins__git_store_helper__basic_for_remote_path(void **state)
{
    put(home, ".gitconfig", "[credential]\n\thelper = store\n");
    put(home, ".git-credentials", "https://frank:g1t-s3cret@git.corp.example\n");
    git_remote("https://git.corp.example/org/repo.git");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_free char *want = b64("frank:g1t-s3cret");
    const struct cp_sign_in *a = find(&s, "git.corp.example", "/org/repo.git/");
    assert_non_null(a);
    assert_string_equal(a->authorization, want);
    assert_string_equal(a->source, "git credential");
}

static void test_sign_ins__git_remote_without_dotgit__prefix_as_written(void **state)
{
    put(home, ".gitconfig", "[credential]\n\thelper = store\n");
    put(home, ".git-credentials", "https://frank:pw@git.corp.example\n");
    git_remote("https://git.corp.example/org/repo");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    assert_non_null(find(&s, "git.corp.example", "/org/repo/"));
}

static void test_sign_ins__git_no_credential__no_sign_in(void **state)
{
    put(home, ".gitconfig", "[credential]\n\thelper = store\n");
    put(home, ".git-credentials", "https://someone:pw@elsewhere.example\n");
    git_remote("https://git.corp.example/org/repo.git");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    assert_int_equal(s.n, 0);
}

static void test_sign_ins__git_folder_helper__never_run(void **state)
{
    /* The work folder's own .git/config names a helper: git runs from /, so it is not read. */
    pid_t pid = fork();
    if (pid == 0) { /* a real repository, so a git run in the folder would read its config */
        execlp("git", "git", "init", "-q", work, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_int_equal(status, 0);
    cleanup_free char *mark = xasprintf("%s/ran", scratch);
    cleanup_free char *cfg = xasprintf("[remote \"origin\"]\n\turl = https://h.example/r\n"
                                       "[credential]\n\thelper = \"!touch %s; echo password=x\"\n"
                                       "[core]\n\trepositoryformatversion = 0\n",
                                       mark);
    put(work, ".git/config", cfg);
    put(home, ".gitconfig", "");
    char back[4096];
    assert_non_null(getcwd(back, sizeof(back)));
    assert_int_equal(chdir(work), 0); /* where conch-place usually runs */
    cleanup_sign_ins struct cp_sign_ins s = {0};
    int r = collect(&s);
    assert_int_equal(chdir(back), 0);
    assert_int_equal(r, 0);
    assert_int_equal(access(mark, F_OK), -1);
    assert_int_equal(s.n, 0);
}

static void test_sign_ins__git_helper_hangs__killed_at_deadline(void **state)
{
    /* The helper's sleep is the hang; the bound below is far above the 700 ms deadline and far
     * below the sleep, so only a wait for the helper fails it. */
    put(home, ".gitconfig", "[credential]\n\thelper = \"!sleep 300; :\"\n");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *user = NULL, *password = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        cp_git_credential_fill("git.corp.example", "org/repo.git", 700, &user, &password, &err),
        CP_ERR_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(took >= 0.69 && took < WAIT_SECONDS);
    assert_null(user);
    assert_null(password);
    assert_null(strstr(err->msg, "sleep"));
}

/* ---- the allow-list's words ---- */

static const struct cp_host_why *allowed(const struct cp_allowlist *l, const char *host)
{
    for (size_t i = 0; i < l->nallowed; i++)
        if (strcmp(l->allowed[i].host, host) == 0)
            return &l->allowed[i];
    return NULL;
}

static void test_sign_ins__allowlist_moved_registry__joins_with_words(void **state)
{
    put(home, ".npmrc",
        "registry=https://npm.corp.example/npm/\n//npm.corp.example/npm/:_authToken=t\n"
        "@x:registry=https://nosign.example/\n@y:registry=https://far.example:8443/\n");
    put(home, ".config/pip/pip.conf", "[global]\nindex-url = https://u:p@pypi.corp.example/s/\n");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    struct cp_settings_sources src = {.workdir = work, .home = home, .sign_ins = &s};
    assert_int_equal(cp_allowlist_build(&src, &l, &err), 0);
    const struct cp_host_why *corp = allowed(&l, "npm.corp.example");
    assert_non_null(corp);
    assert_true(corp->sign_in);
    assert_int_equal(corp->mode, CP_HOST_READ);
    assert_non_null(strstr(corp->why, "your registry"));
    assert_non_null(strstr(corp->why, "sign-in added by the sidecar"));
    const struct cp_host_why *nosign = allowed(&l, "nosign.example");
    assert_false(nosign->sign_in);
    assert_non_null(strstr(nosign->why, "no sign-in found"));
    assert_null(allowed(&l, "far.example"));
    assert_true(allowed(&l, "pypi.corp.example")->sign_in);
    assert_false(cp_allowlist_has(&l, "registry.npm.example"));
    assert_false(cp_allowlist_has(&l, "pypi.org"));
    for (size_t i = 0; i < l.nleft_off; i++)
        if (strcmp(l.left_off[i].host, "registry.npm.example") == 0)
            assert_non_null(strstr(l.left_off[i].why, "moved"));
    cleanup_json json_object *doc = cp_allowlist_json(&l);
    const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
    assert_non_null(strstr(text, "\"sign_in\":true"));
    assert_null(strstr(text, "Bearer"));
    assert_null(strstr(text, "Basic"));
}

static void test_sign_ins__allowlist_remote_with_sign_in__says_so(void **state)
{
    put(home, ".gitconfig", "[credential]\n\thelper = store\n");
    put(home, ".git-credentials", "https://frank:pw@git.corp.example\n");
    git_remote("https://git.corp.example/org/repo.git");
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    struct cp_settings_sources src = {.workdir = work, .home = home, .sign_ins = &s};
    assert_int_equal(cp_allowlist_build(&src, &l, &err), 0);
    const struct cp_host_why *h = allowed(&l, "git.corp.example");
    assert_non_null(h);
    assert_true(h->sign_in);
    assert_non_null(strstr(h->why, "sign-in added by the sidecar (from git credential)"));
    assert_false(allowed(&l, "github.com")->sign_in);
}

/* ---- what the box sees ---- */

static char *slurp(const char *path)
{
    char *text = NULL;
    assert_int_equal(cp_read_file(path, 1 << 20, &text, NULL, NULL), 0);
    return text;
}

static void test_sign_ins__home_copies__no_credential_survives(void **state)
{
    put(home, ".npmrc",
        "registry=https://npm.corp.example/npm/\n@corp:registry=https://u:pw1@s.example/\n"
        "//npm.corp.example/npm/:_authToken=SECRET1\nemail=me@example.com\n"
        "//x/:_password=SECRET2\n");
    put(home, ".config/pip/pip.conf",
        "[global]\nindex-url = https://dave:SECRET3@pypi.corp.example/simple\n");
    put(home, ".yarnrc.yml",
        "npmRegistryServer: https://y.example/\nnpmAuthToken: SECRET4\n"
        "npmScopes: {corp: {npmAuthIdent: SECRET5}}\n");
    put(home, ".bunfig.toml",
        "[install]\nregistry = { url = \"https://b.example/\", token = \"SECRET6\" }\n"
        "[install.scopes.x]\nurl = \"https://c.example/\"\npassword = \"SECRET7\"\n"
        "username = \"SECRET8\"\n");
    cleanup_protected struct cp_protected p = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_protect_home_copies(&p, "testbox", home, NULL, &err), 0);
    assert_int_equal(cp_strv_len(p.settings), 4);
    const char *want[] = {"/tmp/.npmrc", "/etc/pip.conf", "/tmp/.yarnrc.yml", "/tmp/.bunfig.toml"};
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(p.settings[i], want[i]);
        cleanup_free char *text = slurp(p.copies[i]);
        assert_null(strstr(text, "SECRET"));
        assert_null(strstr(text, "pw1"));
    }
    cleanup_free char *npmrc = slurp(p.copies[0]);
    assert_string_equal(npmrc, "registry=https://npm.corp.example/npm/\n"
                               "@corp:registry=https://s.example/\n");
    cleanup_free char *pip = slurp(p.copies[1]);
    assert_non_null(strstr(pip, "https://pypi.corp.example/simple"));
    cleanup_free char *bun = slurp(p.copies[3]);
    assert_non_null(strstr(bun, "registry = \"https://b.example/\""));
    assert_non_null(strstr(bun, "url = \"https://c.example/\""));
}

static void test_sign_ins__home_copies__none_without_files(void **state)
{
    put(home, ".npmrc", "//npm.corp.example/:_authToken=SECRET\n");
    cleanup_protected struct cp_protected p = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_protect_home_copies(&p, "testbox2", home, NULL, &err), 0);
    assert_null(p.copies); /* nothing to show: a warm box may still serve */
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        T(test_sign_ins__npmrc_token__bearer_for_nerf_dart),
        T(test_sign_ins__npmrc_no_trailing_slash__prefix_gets_one),
        T(test_sign_ins__npmrc_username_password__basic_of_decoded),
        T(test_sign_ins__npmrc_port__443_only),
        T(test_sign_ins__npmrc_var__expanded_or_none),
        T(test_sign_ins__npmrc_project_and_home__project_wins),
        T(test_sign_ins__npmrc_bad_shapes__ignored),
        T(test_sign_ins__bunfig_forms__each_kind),
        T(test_sign_ins__yarnrc__top_scopes_and_registries),
        T(test_sign_ins__yarnrc_not_yaml__nothing),
        T(test_sign_ins__pip_url_userinfo__basic_decoded),
        T(test_sign_ins__netrc_default__used_when_no_machine),
        T(test_sign_ins__pip_no_credential__no_sign_in),
        T(test_sign_ins__unreadable_file__error),
        T(test_sign_ins__message__one_line_of_json),
        T(test_sign_ins__git_store_helper__basic_for_remote_path),
        T(test_sign_ins__git_remote_without_dotgit__prefix_as_written),
        T(test_sign_ins__git_no_credential__no_sign_in),
        T(test_sign_ins__git_folder_helper__never_run),
        T(test_sign_ins__git_helper_hangs__killed_at_deadline),
        T(test_sign_ins__allowlist_moved_registry__joins_with_words),
        T(test_sign_ins__allowlist_remote_with_sign_in__says_so),
        T(test_sign_ins__home_copies__no_credential_survives),
        T(test_sign_ins__home_copies__none_without_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
