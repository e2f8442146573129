/* Unit tests for the sign-ins the person names (issue 33): the checks `sign-ins add` makes on
 * its host, path, header, scheme, variable and secret; the command itself parsed and run with
 * the secret on standard input; the store in the secrets file (0600, replaced by host, one
 * variable name per folder, removed, a hand-broken entry refused); and a run's side: a fresh
 * placeholder per run in CONCH_SIGNIN_<NAME>, the message the sidecar's own parser takes, and
 * the host on the allow-list with its mode and words. */
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "places/container/allow/allowlist.h"
#include "places/container/allow/sign-ins.h"
#include "egress/sign-ins/sign-ins-table.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/sign-ins-store.h"
#include "src/base/util.h"
#include "src/command.h"
#include "tests/unit/put-file.h"

extern const struct cp_command cp_cmd_sign_ins;

static char scratch[64];
static char *home, *work, *secrets;

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof(scratch), "/tmp/conch-test-named-XXXXXX");
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
    secrets = xasprintf("%s/workplaces.secrets.json", conch);
    setenv("CONCH_NPM_DEFAULT_REGISTRY", "https://registry.npm.example/", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_tree(scratch);
    free(home);
    free(work);
    free(secrets);
    return 0;
}

/* ---- the checks ---- */

static bool refused(int r, cp_error_t *err, const char *words)
{
    bool ok = r == CP_ERR_USAGE && *err != NULL && strstr((*err)->msg, words) != NULL;
    cp_error_free(err);
    return ok;
}

static void test_named__host__a_name_only(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_sign_in_host_check("api.example.com", &err), 0);
    static const char *const bad[] = {"10.0.0.1",
                                      "*.example.com",
                                      "api.example.com.",
                                      "api.example.com:443",
                                      "https://api.example.com",
                                      "localhost",
                                      "",
                                      NULL};
    for (size_t i = 0; bad[i] != NULL; i++)
        assert_true(refused(cp_sign_in_host_check(bad[i], &err), &err, "is not a host name"));
}

static void test_named__path__a_prefix_never_widened(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *a = NULL, *b = NULL;
    assert_int_equal(cp_sign_in_path_check("/v1", &a, &err), 0);
    assert_string_equal(a, "/v1/");
    assert_int_equal(cp_sign_in_path_check("/", &b, &err), 0);
    assert_string_equal(b, "/");
    static const char *const bad[] = {"v1",   "/a/../b", "/a/./b", "/a/..", "/a%2e", "/a?x=1",
                                      "/a;b", "//a",     "/a b",   "/a#b",  "",      NULL};
    for (size_t i = 0; bad[i] != NULL; i++) {
        char *out = NULL;
        assert_true(refused(cp_sign_in_path_check(bad[i], &out, &err), &err, "path prefix"));
        assert_null(out);
    }
}

static void test_named__header__token_and_no_hop_header(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_sign_in_header_check("X-Api-Key", &err), 0);
    assert_int_equal(cp_sign_in_header_check("Authorization", &err), 0);
    static const char *const bad[] = {"X Api", "X:Y", "X-K\r\nEvil", "", NULL};
    for (size_t i = 0; bad[i] != NULL; i++)
        assert_true(refused(cp_sign_in_header_check(bad[i], &err), &err, "not a header name"));
    static const char *const hop[] = {"Host",       "content-length",  "Transfer-Encoding",
                                      "CONNECTION", "Upgrade",         "Proxy-Authorization",
                                      "TE",         "Accept-Encoding", NULL};
    for (size_t i = 0; hop[i] != NULL; i++)
        assert_true(refused(cp_sign_in_header_check(hop[i], &err), &err, "frames or routes"));
}

static void test_named__env_and_scheme__names_checked_default_derived(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *d1 = cp_sign_in_env_default("api.example-1.com");
    cleanup_free char *d2 = cp_sign_in_env_default("9.example.com");
    assert_string_equal(d1, "API_EXAMPLE_1_COM");
    assert_string_equal(d2, "H9_EXAMPLE_COM");
    assert_int_equal(cp_sign_in_env_check(d1, &err), 0);
    assert_int_equal(cp_sign_in_env_check(d2, &err), 0);
    assert_true(refused(cp_sign_in_env_check("lower", &err), &err, "not a variable name"));
    assert_true(refused(cp_sign_in_env_check("1ST", &err), &err, "not a variable name"));
    assert_true(refused(cp_sign_in_env_check("A=B", &err), &err, "not a variable name"));
    assert_int_equal(cp_sign_in_scheme_check("basic", &err), 0);
    assert_true(refused(cp_sign_in_scheme_check("Bearer", &err), &err, "bearer, basic or raw"));
}

static void test_named__secret__one_header_safe_line(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_sign_in_secret_check("bearer", "abc", 3, &err), 0);
    assert_true(refused(cp_sign_in_secret_check("bearer", "", 0, &err), &err, "empty"));
    assert_true(refused(cp_sign_in_secret_check("raw", "a b", 3, &err), &err, "offset 1"));
    assert_true(refused(cp_sign_in_secret_check("raw", "a\nb", 3, &err), &err, "offset 1"));
    assert_true(
        refused(cp_sign_in_secret_check("basic", "nocolon", 7, &err), &err, "user:password"));
    cleanup_free char *big = xcalloc(1, 5000);
    memset(big, 'a', 4097);
    assert_true(refused(cp_sign_in_secret_check("raw", big, 4097, &err), &err, "longer"));
    cleanup_free char *bearer = cp_sign_in_value("bearer", "S1");
    cleanup_free char *basic = cp_sign_in_value("basic", "u:p");
    cleanup_free char *raw = cp_sign_in_value("raw", "S3");
    assert_string_equal(bearer, "Bearer S1");
    assert_string_equal(basic, "Basic dTpw");
    assert_string_equal(raw, "S3");
}

/* ---- the command, its secret on standard input ---- */

/* Runs `sign-ins ARGS...` with stdin_text on standard input; its status, err's words kept. */
static int command(const char *stdin_text, cp_error_t *err, ...)
{
    char *argv[16] = {"sign-ins"};
    int argc = 1;
    va_list ap;
    va_start(ap, err);
    for (char *a; argc < 15 && (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    cleanup_free char *in = xasprintf("%s/stdin", scratch);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs(stdin_text, f);
    fclose(f);
    int saved = dup(STDIN_FILENO), fd = open(in, O_RDONLY);
    dup2(fd, STDIN_FILENO);
    close(fd);
    struct cp_parsed p;
    int r = cp_command_parse(&cp_cmd_sign_ins, argc, argv, &p, err);
    if (r == 0)
        r = cp_cmd_sign_ins.handler(&p, err);
    free(p.rest);
    fflush(stdout);
    dup2(saved, STDIN_FILENO);
    close(saved);
    return r;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    assert_int_equal(cp_read_file(path, 1 << 20, &text, NULL, NULL), 0);
    return text;
}

static void test_named__command__add_list_remove(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(command("S-one\n", &err, "add", "API.Example.com", "--path", "/v1",
                             "--workdir", work, NULL),
                     0);
    assert_int_equal(command("S-two", &err, "add", "keys.example.com", "--header", "X-Api-Key",
                             "--write", "--env", "KEYS", "--workdir", work, NULL),
                     0);
    struct stat st;
    assert_int_equal(stat(secrets, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    cleanup_free char *real = realpath(work, NULL);
    cleanup_named_sign_ins struct cp_named_sign_ins l = {0};
    assert_int_equal(cp_sign_ins_stored(real, true, &l, &err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[0].host, "api.example.com");
    assert_string_equal(l.v[0].prefix, "/v1/");
    assert_string_equal(l.v[0].header, "Authorization");
    assert_string_equal(l.v[0].scheme, "bearer");
    assert_string_equal(l.v[0].env, "API_EXAMPLE_COM");
    assert_false(l.v[0].write);
    assert_string_equal(l.v[0].secret, "S-one"); /* the newline is the terminal's */
    assert_string_equal(l.v[1].scheme, "raw");   /* another header: the key as it is */
    assert_string_equal(l.v[1].env, "KEYS");
    assert_true(l.v[1].write);
    cleanup_named_sign_ins struct cp_named_sign_ins bare = {0};
    assert_int_equal(cp_sign_ins_stored(real, false, &bare, &err), 0);
    assert_null(bare.v[0].secret);
    assert_int_equal(command("", &err, "remove", "keys.example.com", "--workdir", work, NULL), 0);
    cleanup_named_sign_ins struct cp_named_sign_ins after = {0};
    assert_int_equal(cp_sign_ins_stored(real, false, &after, &err), 0);
    assert_int_equal(after.n, 1);
    assert_true(refused(command("", &err, "remove", "keys.example.com", "--workdir", work, NULL),
                        &err, "has no sign-in for keys.example.com"));
}

static void test_named__command__bad_input_refused_with_words(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_true(refused(command("", &err, "add", "a.example.com", "--workdir", work, NULL), &err,
                        "the secret is empty"));
    assert_true(refused(
        command("s", &err, "add", "a.example.com", "--header", "Host", "--workdir", work, NULL),
        &err, "frames or routes"));
    assert_true(refused(command("s", &err, "list", "--path", "/x", "--workdir", work, NULL), &err,
                        "goes with 'sign-ins add HOST' only"));
    assert_true(
        refused(command("s", &err, "add", "--workdir", work, NULL), &err, "takes one HOST"));
    assert_true(refused(command("s", &err, "sign", "--workdir", work, NULL), &err,
                        "'add HOST', 'list' or 'remove HOST'"));
    assert_int_equal(access(secrets, F_OK), -1); /* nothing was stored */
}

/* ---- the store ---- */

static struct cp_named_sign_in named(char *host, char *env, char *secret)
{
    return (struct cp_named_sign_in){.host = host,
                                     .prefix = "/",
                                     .header = "X-K",
                                     .scheme = "raw",
                                     .env = env,
                                     .secret = secret};
}

static void test_named__store__replaced_by_host_env_unique(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    struct cp_named_sign_in a = named("a.example.com", "A", "old"),
                            a2 = named("a.example.com", "A", "new");
    struct cp_named_sign_in b = named("b.example.com", "A", "x");
    assert_int_equal(cp_sign_in_store(work, &a, &err), 0);
    assert_int_equal(cp_sign_in_store(work, &a2, &err), 0);
    assert_true(refused(cp_sign_in_store(work, &b, &err), &err, "already sets CONCH_SIGNIN_A"));
    cleanup_named_sign_ins struct cp_named_sign_ins l = {0};
    assert_int_equal(cp_sign_ins_stored(work, true, &l, &err), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].secret, "new");
    cleanup_free char *text = slurp(secrets);
    assert_null(strstr(text, "old"));
    /* Another folder's list is its own. */
    cleanup_named_sign_ins struct cp_named_sign_ins other = {0};
    assert_int_equal(cp_sign_ins_stored(home, true, &other, &err), 0);
    assert_int_equal(other.n, 0);
}

static void test_named__store__unsafe_or_broken_file_refused(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    struct cp_named_sign_in a = named("a.example.com", "A", "s");
    assert_int_equal(cp_sign_in_store(work, &a, &err), 0);
    chmod(secrets, 0644);
    cleanup_named_sign_ins struct cp_named_sign_ins l = {0};
    assert_int_equal(cp_sign_ins_stored(work, true, &l, &err), CP_ERR_UNSAFE);
    cp_error_free(&err);
    cleanup_free char *text = xasprintf(
        "{\"sign_ins\":{\"%s\":[{\"host\":\"a.example.com\",\"path\":\"/\",\"header\":\"Host\","
        "\"scheme\":\"raw\",\"env\":\"A\",\"write\":false,\"secret\":\"s\"}]}}",
        work);
    assert_int_equal(cp_write_file_atomic(secrets, text, strlen(text), 0600, &err), 0);
    assert_true(refused(cp_sign_ins_stored(work, true, &l, &err), &err, "its header is bad"));
}

/* ---- a run's side ---- */

static int collect(struct cp_sign_ins *s)
{
    cleanup_error cp_error_t err = NULL;
    struct cp_settings_sources src = {.workdir = work, .home = home};
    return cp_sign_ins_collect(&src, s, &err);
}

static void test_named__run__placeholder_per_run_message_the_sidecar_takes(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    struct cp_named_sign_in a = named("keys.example.com", "KEYS", "S-two");
    a.prefix = "/v1/";
    a.write = true;
    assert_int_equal(cp_sign_in_store(work, &a, &err), 0);
    cleanup_sign_ins struct cp_sign_ins one = {0}, two = {0};
    assert_int_equal(collect(&one), 0);
    assert_int_equal(collect(&two), 0);
    assert_int_equal(one.n, 1);
    assert_true(cp_sign_ins_any_named(&one));
    assert_string_equal(one.v[0].authorization, "S-two");
    assert_non_null(one.v[0].placeholder);
    assert_string_not_equal(one.v[0].placeholder, two.v[0].placeholder);
    cleanup_strv char **env = cp_sign_ins_box_env(&one);
    cleanup_free char *want = xasprintf("CONCH_SIGNIN_KEYS=%s", one.v[0].placeholder);
    assert_string_equal(env[0], want);
    assert_null(env[1]);
    assert_null(strstr(env[0], "S-two"));
    /* The sidecar's own parser takes the message, and signs only its host and prefix. */
    char *line = cp_sign_ins_message(&one, "ab12");
    struct cp_egress_sign_ins *t = NULL;
    assert_int_equal(cp_egress_sign_ins_parse(line, strlen(line) - 1, &t, &err), 0);
    cp_free_secret(line);
    const struct cp_egress_sign_in *s = cp_egress_sign_ins_match(t, "keys.example.com", "/v1/x");
    assert_non_null(s);
    assert_string_equal(s->header, "X-K");
    assert_string_equal(s->placeholder, one.v[0].placeholder);
    assert_true(s->write);
    assert_null(cp_egress_sign_ins_match(t, "keys.example.com", "/v2/x"));
    cp_egress_sign_ins_unref(t);
}

static const struct cp_host_why *allowed(const struct cp_allowlist *l, const char *host)
{
    for (size_t i = 0; i < l->nallowed; i++)
        if (strcmp(l->allowed[i].host, host) == 0)
            return &l->allowed[i];
    return NULL;
}

static void test_named__allowlist__host_joins_with_its_mode_and_words(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    struct cp_named_sign_in r = named("read.example.com", "R", "Sec-Read-1");
    struct cp_named_sign_in w = named("write.example.com", "W", "Sec-Write-2");
    w.write = true;
    assert_int_equal(cp_sign_in_store(work, &r, &err), 0);
    assert_int_equal(cp_sign_in_store(work, &w, &err), 0);
    cleanup_sign_ins struct cp_sign_ins s = {0};
    assert_int_equal(collect(&s), 0);
    cleanup_allowlist struct cp_allowlist l = {0};
    struct cp_settings_sources src = {.workdir = work, .home = home, .sign_ins = &s};
    assert_int_equal(cp_allowlist_build(&src, &l, &err), 0);
    const struct cp_host_why *hr = allowed(&l, "read.example.com");
    const struct cp_host_why *hw = allowed(&l, "write.example.com");
    assert_non_null(hr);
    assert_non_null(hw);
    assert_int_equal(hr->mode, CP_HOST_READ);
    assert_int_equal(hw->mode, CP_HOST_WRITE);
    assert_true(hr->sign_in);
    assert_non_null(strstr(hr->why, "sign-in added by the sidecar (yours)"));
    assert_null(strstr(hr->why, "every method"));
    assert_non_null(strstr(hw->why, "every method goes"));
    cleanup_json json_object *doc = cp_allowlist_json(&l);
    const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
    assert_null(strstr(text, "Sec-Read-1"));
    assert_null(strstr(text, "conch-sign-in-"));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_named__host__a_name_only),
        T(test_named__path__a_prefix_never_widened),
        T(test_named__header__token_and_no_hop_header),
        T(test_named__env_and_scheme__names_checked_default_derived),
        T(test_named__secret__one_header_safe_line),
        T(test_named__command__add_list_remove),
        T(test_named__command__bad_input_refused_with_words),
        T(test_named__store__replaced_by_host_env_unique),
        T(test_named__store__unsafe_or_broken_file_refused),
        T(test_named__run__placeholder_per_run_message_the_sidecar_takes),
        T(test_named__allowlist__host_joins_with_its_mode_and_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
