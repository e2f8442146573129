/* Unit tests for the allow-list: the registries, a moved registry left off with its reason, the
 * folder's HTTPS remotes (never one with a password, plain HTTP or SSH), the folder's egress,
 * an unreadable settings file refused, and the readers of npmrc, bunfig, pip.conf and git. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "places/container/allow/allowlist.h"
#include "places/container/seal/egress-hint.h"
#include "places/container/allow/registries.h"
#include "places/container/allow/hostconf.h"
#include "places/container/seal/sidecar.h"
#include "src/base/json.h"
#include "src/base/util.h"

static char scratch[64];
static char *home, *work;

static void put(const char *dir, const char *name, const char *text)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, name);
    cleanup_free char *parent = xstrdup(path);
    *strrchr(parent, '/') = '\0';
    cleanup_free char *mk = xasprintf("%s", parent);
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

static int setup(void **state)
{
    snprintf(scratch, sizeof(scratch), "/tmp/conch-test-allow-XXXXXX");
    if (mkdtemp(scratch) == NULL)
        return -1;
    home = xasprintf("%s/home", scratch);
    work = xasprintf("%s/work", scratch);
    /* npm's default is asked of npm in real use; a fixed stand-in keeps these tests offline. */
    setenv("CONCH_NPM_DEFAULT_REGISTRY", "https://registry.npm.example/", 1);
    mkdir(home, 0700);
    mkdir(work, 0700);
    return 0;
}

static int teardown(void **state)
{
    cleanup_free char *cmd = xasprintf("%s", scratch);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/rm", "rm", "-rf", "--", cmd, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
    free(home);
    free(work);
    return 0;
}

static int build(struct cp_allowlist *l, const struct cp_config *cfg, cp_error_t *err)
{
    struct cp_settings_sources src = {.workdir = work, .config = cfg, .home = home};
    return cp_allowlist_build(&src, l, err);
}

static const char *left_why(const struct cp_allowlist *l, const char *host)
{
    for (size_t i = 0; i < l->nleft_off; i++)
        if (strcmp(l->left_off[i].host, host) == 0)
            return l->left_off[i].why;
    return NULL;
}

static void test_allowlist__plain_folder__registries_only(void **state)
{
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_true(cp_allowlist_has(&l, "registry.npm.example"));
    assert_true(cp_allowlist_has(&l, "pypi.org"));
    assert_true(cp_allowlist_has(&l, "github.com"));
    assert_false(cp_allowlist_has(&l, "upload.pypi.org"));
    assert_false(cp_allowlist_has(&l, "api.github.com"));
    assert_int_equal(l.nleft_off, 0);
    assert_false(l.allow_all);
}

static void test_allowlist__npmrc_registry_moved__npm_left_off(void **state)
{
    put(home, ".npmrc", "; comment\nregistry = https://npm.corp.example/repo/\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_false(cp_allowlist_has(&l, "registry.npm.example"));
    assert_false(cp_allowlist_has(&l, "registry.yarnpkg.com"));
    assert_true(cp_allowlist_has(&l, "pypi.org"));
    assert_non_null(left_why(&l, "registry.npm.example"));
    assert_non_null(strstr(left_why(&l, "registry.npm.example"), "npm.corp.example"));
}

static void test_allowlist__npmrc_public_registry__kept(void **state)
{
    put(home, ".npmrc",
        "registry=https://registry.npm.example/\n//registry.npm.example/:_authToken=x\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_true(cp_allowlist_has(&l, "registry.npm.example"));
    assert_int_equal(l.nleft_off, 0);
}

static void test_allowlist__npmrc_scope_registry__npm_left_off(void **state)
{
    put(home, ".npmrc", "@acme:registry=https://npm.acme.example/\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_false(cp_allowlist_has(&l, "registry.npm.example"));
}

static void test_allowlist__bunfig_scope__npm_left_off(void **state)
{
    put(home, ".bunfig.toml",
        "[install.scopes]\nacme = { token = \"t\", url = \"https://bun.acme.example/\" }\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_false(cp_allowlist_has(&l, "registry.npm.example"));
    assert_non_null(strstr(left_why(&l, "registry.npm.example"), "bun.acme.example"));
}

static void test_allowlist__pip_index_url__pypi_left_off(void **state)
{
    put(home, ".config/pip/pip.conf", "[global]\nindex-url = https://pypi.corp.example/simple\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_false(cp_allowlist_has(&l, "pypi.org"));
    assert_false(cp_allowlist_has(&l, "files.pythonhosted.org"));
    assert_true(cp_allowlist_has(&l, "registry.npm.example"));
}

static void test_allowlist__unreadable_npmrc__refused(void **state)
{
    cleanup_free char *dir = xasprintf("%s/.npmrc", home);
    assert_int_equal(mkdir(dir, 0700), 0); /* a folder where the file should be: read fails */
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), CP_ERR_FAILED);
    assert_non_null(strstr(err->msg, "~/.npmrc cannot be read"));
}

static void test_allowlist__remotes__https_only_without_password(void **state)
{
    put(work, ".git/config",
        "[core]\n\tbare = false\n"
        "[remote \"origin\"]\n\turl = https://git.corp.example/team/app.git\n"
        "\tpushurl = https://push.corp.example:443/team/app.git # push\n"
        "[remote \"pw\"]\n\turl = https://me:hunter2@secret.example/x.git\n"
        "[remote \"plain\"]\n\turl = http://plain.example/x.git\n"
        "[remote \"ssh\"]\n\turl = git@ssh.example:x/y.git\n"
        "[remote \"port\"]\n\turl = https://port.example:8443/x.git\n"
        "[remote \"ip\"]\n\turl = https://10.0.0.1/x.git\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_true(cp_allowlist_has(&l, "git.corp.example"));
    assert_true(cp_allowlist_has(&l, "push.corp.example"));
    assert_false(cp_allowlist_has(&l, "secret.example"));
    assert_false(cp_allowlist_has(&l, "plain.example"));
    assert_false(cp_allowlist_has(&l, "ssh.example"));
    assert_false(cp_allowlist_has(&l, "port.example"));
    assert_false(cp_allowlist_has(&l, "10.0.0.1"));
}

static void test_allowlist__worktree_git_file__common_config_read(void **state)
{
    put(scratch, "main/.git/config", "[remote \"origin\"]\n\turl = https://wt.example/x.git\n");
    put(scratch, "main/.git/worktrees/w/commondir", "../..\n");
    cleanup_free char *gitfile = xasprintf("gitdir: %s/main/.git/worktrees/w\n", scratch);
    put(work, ".git", gitfile);
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_true(cp_allowlist_has(&l, "wt.example"));
}

static void test_allowlist__folder_egress__added_and_allow_all(void **state)
{
    struct cp_config cfg = {0};
    cleanup_free char *doc =
        xasprintf("{\"egress\": {\"%s\": [\"Extra.Example.org\", \"*.cdn.example\"]}}", work);
    assert_int_equal(cp_json_parse(doc, strlen(doc), "t", &cfg.root, NULL), 0);
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, &cfg, &err), 0);
    assert_true(cp_allowlist_has(&l, "extra.example.org"));
    assert_true(cp_allowlist_has(&l, "*.cdn.example"));
    assert_false(l.allow_all);
    json_object_put(cfg.root);

    cleanup_free char *all = xasprintf("{\"egress\": {\"%s\": \"allow-all\"}}", work);
    assert_int_equal(cp_json_parse(all, strlen(all), "t", &cfg.root, NULL), 0);
    cleanup_allowlist struct cp_allowlist l2 = {0};
    assert_int_equal(build(&l2, &cfg, &err), 0);
    assert_true(l2.allow_all);
    cleanup_json json_object *j = cp_allowlist_json(&l2);
    assert_non_null(
        strstr(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN), "\"host\":\"*\""));
    json_object_put(cfg.root);
}

static void test_allowlist__hash__differs_by_list_and_extra(void **state)
{
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    char a[65], b[65], c[65];
    cp_allowlist_hash(&l, "x", a);
    cp_allowlist_hash(&l, "y", b);
    l.allow_all = true;
    cp_allowlist_hash(&l, "x", c);
    assert_int_equal(strlen(a), 64);
    assert_string_not_equal(a, b);
    assert_string_not_equal(a, c);
}

/* The allowed entry of host in the list's JSON, or fails. */
static json_object *allowed_entry(json_object *doc, const char *host)
{
    json_object *allowed = NULL;
    assert_true(json_object_object_get_ex(doc, "allowed", &allowed));
    for (size_t i = 0; i < json_object_array_length(allowed); i++) {
        json_object *e = json_object_array_get_idx(allowed, i);
        if (strcmp(cp_json_str(e, "host"), host) == 0)
            return e;
    }
    fail_msg("%s is not allowed", host);
    return NULL;
}

/* The folder's modes reach the list and its JSON; a built-in the person adds --write (to push
 * to github.com) takes that mode; everything else is read; left-off hosts carry no mode. */
static void test_allowlist__folder_modes__in_list_and_json(void **state)
{
    put(home, ".npmrc", "registry=https://npm.corp.example/\n");
    struct cp_config cfg = {0};
    cleanup_free char *doc = xasprintf(
        "{\"egress\": {\"%s\": [\"plain.example.org\", {\"host\": \"up.example.org\", \"mode\": "
        "\"write\"}, {\"host\": \"pin.example.org\", \"mode\": \"pass-through\"}, {\"host\": "
        "\"GitHub.com\", \"mode\": \"write\"}]}}",
        work);
    assert_int_equal(cp_json_parse(doc, strlen(doc), "t", &cfg.root, NULL), 0);
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, &cfg, &err), 0);
    json_object_put(cfg.root);
    cleanup_json json_object *j = cp_allowlist_json(&l);
    const char *want[][2] = {{"plain.example.org", "read"},       {"up.example.org", "write"},
                             {"pin.example.org", "pass-through"}, {"github.com", "write"},
                             {"codeload.github.com", "read"},     {"pypi.org", "read"}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const char *mode = cp_json_str(allowed_entry(j, want[i][0]), "mode");
        if (mode == NULL || strcmp(mode, want[i][1]) != 0)
            fail_msg("%s: mode %s, expected %s", want[i][0], mode ? mode : "(none)", want[i][1]);
    }
    assert_non_null(strstr(cp_json_str(allowed_entry(j, "github.com"), "why"), "config.json"));
    json_object *left = NULL;
    assert_true(json_object_object_get_ex(j, "left_off", &left));
    assert_true(json_object_array_length(left) > 0);
    for (size_t i = 0; i < json_object_array_length(left); i++)
        assert_null(cp_json_str(json_object_array_get_idx(left, i), "mode"));
    /* The list itself carries them for the sidecar's flags. */
    for (size_t i = 0; i < l.nallowed; i++)
        if (strcmp(l.allowed[i].host, "pin.example.org") == 0)
            assert_int_equal(l.allowed[i].mode, CP_HOST_PASS);
}

/* A changed mode is another sidecar: the hash differs for each mode of one host. */
static void test_allowlist__hash__differs_by_mode(void **state)
{
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_true(l.nallowed > 0);
    char h[3][65];
    const enum cp_host_mode modes[] = {CP_HOST_READ, CP_HOST_WRITE, CP_HOST_PASS};
    for (size_t m = 0; m < 3; m++) {
        l.allowed[0].mode = modes[m];
        cp_allowlist_hash(&l, "x", h[m]);
    }
    assert_string_not_equal(h[0], h[1]);
    assert_string_not_equal(h[0], h[2]);
    assert_string_not_equal(h[1], h[2]);
    /* The same modes on another host: another list again. */
    char other[65];
    l.allowed[0].mode = CP_HOST_READ;
    l.allowed[l.nallowed - 1].mode = CP_HOST_WRITE;
    cp_allowlist_hash(&l, "x", other);
    assert_string_not_equal(other, h[1]);
    /* Back to all read: the first hash again (it is a function of the list, nothing else). */
    l.allowed[l.nallowed - 1].mode = CP_HOST_READ;
    cp_allowlist_hash(&l, "x", other);
    assert_string_equal(other, h[0]);
}

static void test_hostconf__url_host__strict(void **state)
{
    char *h = cp_url_https_host("HTTPS://GitHub.com/x");
    assert_string_equal(h, "github.com");
    free(h);
    assert_null(cp_url_https_host("https://u:p@github.com/x"));
    assert_null(cp_url_https_host("https://github.com:22/x"));
    assert_null(cp_url_https_host("ssh://github.com/x"));
    assert_null(cp_url_https_host("https://[::1]/x"));
    assert_null(cp_url_https_host("https://github.com./x"));
    h = cp_url_https_host("https://token@github.com/x");
    assert_string_equal(h, "github.com"); /* a user alone is not a password */
    free(h);
}

static void test_hostconf__readers__keys_and_sections(void **state)
{
    const char npmrc[] = "registry=\"https://a.example/\"\n@s:registry=https://b.example/\n"
                         "//a.example/:_authToken=secret\n";
    cleanup_strv char **n = cp_npmrc_registries(npmrc, strlen(npmrc));
    assert_int_equal(cp_strv_len(n), 2);
    assert_string_equal(n[0], "https://a.example/");
    const char pip[] = "[download]\nindex-url = https://x.example/\n[install]\nindex_url: "
                       "https://y.example/\n";
    cleanup_strv char **p = cp_pipconf_indexes(pip, strlen(pip));
    assert_int_equal(cp_strv_len(p), 1);
    assert_string_equal(p[0], "https://y.example/");
    const char bun[] = "[install]\nregistry = \"https://r.example/\" # c\n"
                       "[install.scopes.acme]\nurl = 'https://s.example/'\n";
    cleanup_strv char **b = cp_bunfig_registries(bun, strlen(bun));
    assert_int_equal(cp_strv_len(b), 2);
    assert_string_equal(b[1], "https://s.example/");
    const char git[] = "[Remote \"Up\"]\nURL = \"https://g.example/x\"\n[remote.old]\nurl=https://"
                       "o.example/\n[branch \"main\"]\nurl = https://no.example/\n";
    cleanup_strv char **g = cp_gitconfig_remotes(git, strlen(git));
    assert_int_equal(cp_strv_len(g), 2);
    assert_string_equal(g[0], "Up\thttps://g.example/x");
    assert_string_equal(g[1], "old\thttps://o.example/");
}

static void test_sidecar__box_env__six_variables_with_token(void **state)
{
    struct cp_sidecar s = {.ip = "10.89.0.2", .secret = "0123456789abcdef0123456789abcdef"};
    cleanup_strv char **env = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_sidecar_box_env(&s, "conch-1-aa", &env, &err), 0);
    assert_int_equal(cp_strv_len(env), 6);
    const char *want[] = {
        "HTTP_PROXY=", "HTTPS_PROXY=", "ALL_PROXY=", "http_proxy=", "https_proxy=", "all_proxy="};
    for (size_t i = 0; i < 6; i++) {
        assert_true(strncmp(env[i], want[i], strlen(want[i])) == 0);
        assert_non_null(strstr(env[i], "=http://conch-1-aa:"));
        assert_non_null(strstr(env[i], "@10.89.0.2:3128"));
    }
}

/* pip takes whichever index has the higher version: a private index beside PyPI is the same
 * same-name risk as one instead of it. */
static void test_allowlist__pip_extra_index_url__pypi_left_off(void **state)
{
    put(home, ".config/pip/pip.conf",
        "[global]\nextra-index-url = https://pypi.corp.example/simple\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_false(cp_allowlist_has(&l, "pypi.org"));
    assert_false(cp_allowlist_has(&l, "files.pythonhosted.org"));
    assert_non_null(strstr(left_why(&l, "pypi.org"), "pypi.corp.example"));
    assert_true(cp_allowlist_has(&l, "registry.npm.example"));
}

static void test_allowlist__pip_extra_index_list__any_private_one_moves_pypi(void **state)
{
    /* pypi.org first, the private index on a continuation line after a comment. */
    put(home, ".pip/pip.conf",
        "[install]\nextra_index_url =\n    https://pypi.org/simple\n    # ours\n"
        "    https://pkgs.corp.example/simple https://pypi.org/simple\ntimeout = 5\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_false(cp_allowlist_has(&l, "pypi.org"));
    assert_non_null(strstr(left_why(&l, "pypi.org"), "pkgs.corp.example"));
}

static void test_allowlist__pip_extra_index_pypi_itself__kept(void **state)
{
    put(home, ".config/pip/pip.conf",
        "[global]\nindex-url = https://pypi.org/simple\nextra-index-url = "
        "https://files.pythonhosted.org/x\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    assert_true(cp_allowlist_has(&l, "pypi.org"));
    assert_int_equal(l.nleft_off, 0);
}

/* Every entry of ADR 0148's table is shown: allowed, or left off with why. */
static void test_allowlist__every_registry__allowed_or_left_off(void **state)
{
    put(home, ".config/pip/pip.conf", "[global]\nextra-index-url = https://pypi.corp.example/\n");
    cleanup_allowlist struct cp_allowlist l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(build(&l, NULL, &err), 0);
    for (size_t i = 0; cp_registries[i].host != NULL; i++)
        if (!cp_allowlist_has(&l, cp_registries[i].host) &&
            left_why(&l, cp_registries[i].host) == NULL)
            fail_msg("%s is neither allowed nor left off", cp_registries[i].host);
}

static const char hint_log[] =
    "\x01\x00\x00\x00\x00\x00\x00\x7b{\"box\":\"b1\",\"host\":\"evil.example\",\"port\":443,"
    "\"verdict\":\"refused\",\"reason\":\"not-listed\"}\n"
    "{\"box\":\"b1\",\"host\":\"10.0.0.7:443\",\"port\":0,\"verdict\":\"refused\","
    "\"reason\":\"ip-literal\"}\n"
    "{\"box\":\"b1\",\"host\":\"api.example:8443\",\"port\":0,\"verdict\":\"refused\","
    "\"reason\":\"port\"}\n"
    "{\"box\":\"b1\",\"host\":\"http://plain.example/x\",\"port\":0,\"verdict\":\"refused\","
    "\"reason\":\"absolute-form\"}\n"
    "{\"box\":\"b2\",\"host\":\"other-box.example\",\"port\":443,\"verdict\":\"refused\","
    "\"reason\":\"not-listed\"}\n"
    "{\"box\":\"b1\",\"host\":\"pypi.org\",\"port\":443,\"verdict\":\"allowed\","
    "\"reason\":\"allowed\"}\n"
    "{\"box\":\"b1\",\"host\":\"evil.example\",\"port\":443,\"verdict\":\"refused\","
    "\"reason\":\"not-listed\"}\n";

static char *hint_for(const char *log, size_t len, size_t *n_out)
{
    struct cp_egress_refusal *v = NULL;
    size_t n = cp_egress_refusals(log, len, "b1", &v);
    char *words = cp_egress_hint_words(v, n, "pypi.org, github.com");
    cp_egress_refusals_free(v, n);
    *n_out = n;
    return words;
}

static void test_hint__log__this_box_refusals_once_each(void **state)
{
    size_t n = 0;
    cleanup_free char *w = hint_for(hint_log, sizeof(hint_log) - 1, &n);
    assert_int_equal(n, 4); /* not b2's, not the allowed one, the repeat once */
    assert_null(strstr(w, "other-box.example"));
    assert_non_null(strstr(w, "The box reaches only: pypi.org, github.com"));
}

/* An upload refused inside an ended tunnel: its method and path, and the --write entry. */
static void test_hint__refused_upload__offers_write(void **state)
{
    static const char log[] =
        "{\"box\":\"b1\",\"host\":\"registry.example\",\"port\":443,\"verdict\":\"refused\","
        "\"reason\":\"method\",\"method\":\"PUT\",\"path\":\"/left-pad\"}\n"
        "{\"box\":\"b1\",\"host\":\"registry.example\",\"port\":443,\"verdict\":\"refused\","
        "\"reason\":\"method\",\"method\":\"POST\",\"path\":\"/other\"}\n";
    size_t n = 0;
    cleanup_free char *w = hint_for(log, sizeof(log) - 1, &n);
    assert_int_equal(n, 2);
    assert_non_null(strstr(w, "PUT /left-pad on registry.example"));
    const char *line = strstr(w, "\n  conch-place hosts add registry.example --write");
    assert_non_null(line);
    /* one line for the host, and no plain `hosts add`: it is on the list already */
    assert_null(strstr(strstr(line, "--write") + 7, "--write"));
    assert_null(strstr(w, "hosts add registry.example\n"));
    assert_null(strstr(w, "No entry on the list"));
}

/* Two failures with a step of the person's: a certificate (egress.ca_file) and a refused
 * sign-in (the file to renew it in); neither offers an entry. */
static void test_hint__failures__name_their_step(void **state)
{
    static const char log[] =
        "{\"box\":\"b1\",\"host\":\"git.corp.example\",\"port\":443,\"verdict\":\"failed\","
        "\"reason\":\"upstream-cert\"}\n"
        "{\"box\":\"b1\",\"host\":\"npm.corp.example\",\"port\":443,\"verdict\":\"failed\","
        "\"reason\":\"sign-in-refused\",\"method\":\"GET\",\"path\":\"/pkg\","
        "\"source\":\"~/.npmrc\"}\n"
        "{\"box\":\"b1\",\"host\":\"slow.example\",\"port\":443,\"verdict\":\"failed\","
        "\"reason\":\"dns\"}\n";
    size_t n = 0;
    cleanup_free char *w = hint_for(log, sizeof(log) - 1, &n);
    assert_int_equal(n, 2); /* a name that did not resolve is no step of the person's */
    assert_non_null(strstr(w, "config set egress.ca_file"));
    assert_non_null(strstr(w, "npm.corp.example refused the sign-in the sidecar added from "
                              "~/.npmrc: renew the credential there"));
    assert_null(strstr(w, "hosts add"));
    assert_null(strstr(w, "No entry on the list"));
}

static void test_hint__refused_name__offers_hosts_add(void **state)
{
    size_t n = 0;
    cleanup_free char *w = hint_for(hint_log, sizeof(hint_log) - 1, &n);
    assert_non_null(strstr(w, "\n  conch-place hosts add evil.example\n"));
    /* and only for the name: an entry cannot allow the others */
    assert_null(strstr(w, "hosts add 10.0.0.7"));
    assert_null(strstr(w, "hosts add api.example"));
    assert_null(strstr(w, "hosts add http"));
    assert_null(strstr(w, "\"egress\""));
}

static void expect_no_entry(const char *line, const char *target)
{
    size_t n = 0;
    cleanup_free char *w = hint_for(line, strlen(line), &n);
    assert_int_equal(n, 1);
    cleanup_free char *said = xasprintf("No entry on the list can allow %s:", target);
    if (strstr(w, said) == NULL || strstr(w, "Only --unsealed reaches it") == NULL ||
        strstr(w, "hosts add") != NULL)
        fail_msg("for %s the hint said:\n%s", target, w);
}

static void test_hint__ip_literal__no_entry_names_unsealed(void **state)
{
    expect_no_entry("{\"box\":\"b1\",\"host\":\"10.0.0.7:443\",\"verdict\":\"refused\","
                    "\"reason\":\"ip-literal\"}\n",
                    "10.0.0.7:443");
}

static void test_hint__other_port__no_entry_names_unsealed(void **state)
{
    expect_no_entry("{\"box\":\"b1\",\"host\":\"api.example:8443\",\"verdict\":\"refused\","
                    "\"reason\":\"port\"}\n",
                    "api.example:8443");
}

static void test_hint__plain_http__no_entry_names_unsealed(void **state)
{
    expect_no_entry("{\"box\":\"b1\",\"host\":\"http://plain.example/x\",\"verdict\":\"refused\","
                    "\"reason\":\"absolute-form\"}\n",
                    "http://plain.example/x");
    expect_no_entry("{\"box\":\"b1\",\"host\":\"plain.example\",\"verdict\":\"refused\","
                    "\"reason\":\"not-connect\"}\n",
                    "plain.example");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_allowlist__plain_folder__registries_only, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__npmrc_registry_moved__npm_left_off, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__npmrc_public_registry__kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__npmrc_scope_registry__npm_left_off, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__bunfig_scope__npm_left_off, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__pip_index_url__pypi_left_off, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__unreadable_npmrc__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__remotes__https_only_without_password, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__worktree_git_file__common_config_read,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__folder_egress__added_and_allow_all, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__hash__differs_by_list_and_extra, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__folder_modes__in_list_and_json, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__hash__differs_by_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__pip_extra_index_url__pypi_left_off, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_allowlist__pip_extra_index_list__any_private_one_moves_pypi, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__pip_extra_index_pypi_itself__kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowlist__every_registry__allowed_or_left_off, setup,
                                        teardown),
        cmocka_unit_test(test_hint__log__this_box_refusals_once_each),
        cmocka_unit_test(test_hint__refused_name__offers_hosts_add),
        cmocka_unit_test(test_hint__refused_upload__offers_write),
        cmocka_unit_test(test_hint__failures__name_their_step),
        cmocka_unit_test(test_hint__ip_literal__no_entry_names_unsealed),
        cmocka_unit_test(test_hint__other_port__no_entry_names_unsealed),
        cmocka_unit_test(test_hint__plain_http__no_entry_names_unsealed),
        cmocka_unit_test(test_hostconf__url_host__strict),
        cmocka_unit_test(test_hostconf__readers__keys_and_sections),
        cmocka_unit_test(test_sidecar__box_env__six_variables_with_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
