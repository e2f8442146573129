/* Unit tests for config.json: validation names the key and the value; set writes atomically. */
#include "config.h"

#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "src/base/hostname.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/protected.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"

static char scratch[] = "/tmp/conch-test-settings-XXXXXX";

static int setup(void **state)
{
    if (mkdtemp(scratch) == NULL)
        return -1;
    setenv("CONCH_HOME", scratch, 1);
    return 0;
}

static int teardown(void **state)
{
    const char *names[] = {"config.json", "w-add",   "w-bad",  "w-hand", "w-rm",   "w-all",
                           "w-link",      "w-modes", "ca.pem", "ca.der", "ca-dir", "fifo"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        cleanup_free char *path = xasprintf("%s/%s", scratch, names[i]);
        if (unlink(path) < 0)
            rmdir(path);
    }
    rmdir(scratch);
    return 0;
}

static void write_config(const char *text)
{
    cleanup_free char *path = xasprintf("%s/config.json", scratch);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_write_file_atomic(path, text, strlen(text), 0600, &err), 0);
}

static void test_settings__absent_file__empty_config(void **state)
{
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *path = xasprintf("%s/config.json", scratch);
    unlink(path);
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_null(cp_config_get(&cfg, "engine"));
}

static void test_settings__bad_egress_host__names_key_and_value(void **state)
{
    write_config("{\"egress\": {\"/w\": [\"ok.example.org\", \"bad host\"]}}");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(cp_config_load(&cfg, &err) < 0);
    assert_non_null(strstr(err->msg, "egress.\"/w\"[1]"));
    assert_non_null(strstr(err->msg, "'bad host'"));
    assert_non_null(err->hint);
}

static void test_settings__malformed_json__refused(void **state)
{
    write_config("{\"engine\": ");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(cp_config_load(&cfg, &err) < 0);
    assert_non_null(strstr(err->msg, "config.json"));
}

static void test_settings__set_then_get__round_trips(void **state)
{
    write_config("{}");
    cleanup_error cp_error_t err = NULL;
    {
        cleanup_config struct cp_config cfg = {0};
        assert_int_equal(cp_config_load(&cfg, &err), 0);
        assert_int_equal(cp_config_set(&cfg, "engine", "podman", &err), 0);
    }
    cleanup_config struct cp_config again = {0};
    assert_int_equal(cp_config_load(&again, &err), 0);
    assert_string_equal(cp_config_get(&again, "engine"), "podman");
}

static void test_settings__bad_value__not_saved(void **state)
{
    write_config("{\"engine\": \"docker\"}");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_true(cp_config_set(&cfg, "engine", "dockr", &err) < 0);
    cleanup_config struct cp_config again = {0};
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(cp_config_load(&again, &err2), 0);
    assert_string_equal(cp_config_get(&again, "engine"), "docker");
}

/* container.limits: required unless the person accepts boxes without limits, in words. */
static void test_settings__container_limits__two_values_default_required(void **state)
{
    (void)state;
    write_config("{}");
    cleanup_error cp_error_t err = NULL;
    cleanup_config struct cp_config cfg = {0};
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_false(cp_config_limits_may_miss(&cfg));
    assert_false(cp_config_limits_may_miss(NULL));
    assert_int_equal(cp_config_set(&cfg, "container.limits", "off", &err), CP_ERR_USAGE);
    assert_non_null(strstr(err->msg, "not required or allow-missing"));
    assert_false(cp_config_limits_may_miss(&cfg));
    cp_error_free(&err);
    assert_int_equal(cp_config_set(&cfg, "container.limits", "allow-missing", &err), 0);
    assert_true(cp_config_limits_may_miss(&cfg));
    assert_int_equal(cp_config_set(&cfg, "container.limits", "required", &err), 0);
    assert_false(cp_config_limits_may_miss(&cfg));
}

/* container.caches: on unless turned off; another word is refused, naming the two. */
static void test_settings__container_caches__on_or_off_default_on(void **state)
{
    (void)state;
    write_config("{}");
    cleanup_error cp_error_t err = NULL;
    cleanup_config struct cp_config cfg = {0};
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_true(cp_config_caches_on(&cfg));
    assert_true(cp_config_caches_on(NULL));
    assert_int_equal(cp_config_set(&cfg, "container.caches", "no", &err), CP_ERR_USAGE);
    assert_non_null(strstr(err->msg, "not on or off"));
    assert_true(cp_config_caches_on(&cfg));
    cp_error_free(&err);
    assert_int_equal(cp_config_set(&cfg, "container.caches", "off", &err), 0);
    assert_false(cp_config_caches_on(&cfg));
    assert_int_equal(cp_config_set(&cfg, "container.caches", "on", &err), 0);
    assert_true(cp_config_caches_on(&cfg));
}

static void test_hostname__patterns__exact_or_suffix_only(void **state)
{
    assert_true(cp_host_pattern_valid("registry.example.org"));
    assert_true(cp_host_pattern_valid("*.example.org"));
    assert_false(cp_host_pattern_valid("*example.org"));
    assert_false(cp_host_pattern_valid("10.0.0.1"));
    assert_false(cp_host_pattern_valid("localhost"));
    assert_false(cp_host_pattern_valid("a..b"));
    assert_false(cp_host_pattern_valid("-a.example"));
    assert_true(cp_host_pattern_match("*.example.org", "files.example.org"));
    assert_false(cp_host_pattern_match("*.example.org", "example.org"));
    assert_false(cp_host_pattern_match("*.example.org", "badexample.org"));
    assert_true(cp_host_pattern_match("Example.ORG", "example.org"));
}

static void test_settings__syntax_error__line_and_column(void **state)
{
    write_config("{\n  \"engine\": \"docker\",\n  \"egress\": {\"/x\": [\"a.example\"],}\n}\n");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(cp_config_load(&cfg, &err) < 0);
    /* The stray '}' after the trailing comma: line 3, column 34. */
    assert_non_null(strstr(err->msg, "config.json:3:34: "));
    cp_error_free(&err);
    write_config("{\"engine\": \"docker\"}\n\n  x");
    cleanup_config struct cp_config cfg2 = {0};
    assert_true(cp_config_load(&cfg2, &err) < 0);
    assert_non_null(strstr(err->msg, "config.json:3:3: "));
}

static void test_json__position__counts_lines_and_columns(void **state)
{
    unsigned line = 0, col = 0;
    cp_json_position("ab\ncd\n", 4, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 2);
    cp_json_position("", 0, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
}

/* A folder of the scratch dir: its real path (mkdtemp's /tmp may itself be a link). */
static char *scratch_folder(const char *name)
{
    cleanup_free char *dir = xasprintf("%s/%s", scratch, name);
    mkdir(dir, 0700);
    char *real = realpath(dir, NULL);
    assert_non_null(real);
    return real;
}

static void test_settings__egress_add__stored_under_real_path_other_keys_kept(void **state)
{
    write_config("{\"engine\": \"docker\", \"protected\": [\"secret.txt\"]}");
    cleanup_free char *folder = scratch_folder("w-add");
    cleanup_error cp_error_t err = NULL;
    {
        cleanup_config struct cp_config cfg = {0};
        assert_int_equal(cp_config_load(&cfg, &err), 0);
        char *hosts[] = {"Registry.Example.org", "*.files.example", NULL};
        assert_int_equal(cp_config_egress_add(&cfg, folder, hosts, CP_HOST_READ, &err), 0);
        char *again[] = {"registry.example.org", NULL};
        assert_int_equal(cp_config_egress_add(&cfg, folder, again, CP_HOST_READ, &err), 0);
    }
    cleanup_config struct cp_config cfg = {0};
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_string_equal(cp_config_get(&cfg, "engine"), "docker");
    json_object *prot = NULL, *eg = NULL, *list = NULL;
    assert_true(json_object_object_get_ex(cfg.root, "protected", &prot));
    assert_true(json_object_object_get_ex(cfg.root, "egress", &eg));
    assert_true(json_object_object_get_ex(eg, folder, &list));
    assert_int_equal(json_object_array_length(list), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(list, 0)),
                        "registry.example.org");
    cleanup_free char *tmp = xasprintf("%s/config.json.tmp.%ld", scratch, (long)getpid());
    assert_int_equal(access(tmp, F_OK), -1);
}

static void test_settings__egress_add__invalid_host_refused_file_unchanged(void **state)
{
    write_config("{\"engine\": \"docker\"}");
    cleanup_free char *folder = scratch_folder("w-bad");
    const char *bad[] = {"10.0.0.1",       "localhost",    "a.example.", "https://a.example",
                         "a.example:8443", "*example.org", "",           "a b.example"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cleanup_config struct cp_config cfg = {0};
        cleanup_error cp_error_t err = NULL;
        assert_int_equal(cp_config_load(&cfg, &err), 0);
        char *hosts[] = {"ok.example.org", (char *)bad[i], NULL};
        assert_int_equal(cp_config_egress_add(&cfg, folder, hosts, CP_HOST_WRITE, &err),
                         CP_ERR_USAGE);
        assert_non_null(strstr(err->msg, bad[i]));
    }
    cleanup_free char *path = xasprintf("%s/config.json", scratch);
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_read_file(path, 4096, &text, &len, &err), 0);
    assert_null(strstr(text, "ok.example.org"));
}

static void test_settings__egress_key_by_hand__trailing_slash_and_symlink_match(void **state)
{
    cleanup_free char *folder = scratch_folder("w-hand");
    cleanup_free char *link = xasprintf("%s/w-link", scratch);
    unlink(link);
    assert_int_equal(symlink(folder, link), 0);
    cleanup_free char *text =
        xasprintf("{\"egress\": {\"%s/\": [\"a.example.org\"], \"%s\": \"allow-all\"}}", folder,
                  "/nonexistent//conch-test/");
    write_config(text);
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    json_object *v = cp_config_egress(&cfg, folder);
    assert_non_null(v);
    assert_true(json_object_is_type(v, json_type_array));
    assert_non_null(cp_config_egress(&cfg, "/nonexistent/conch-test"));
    assert_null(cp_config_egress(&cfg, "/nonexistent"));
    /* Through the symlink: the key that names the link is the folder's too. */
    cleanup_free char *by_link = xasprintf("{\"egress\": {\"%s\": [\"b.example.org\"]}}", link);
    write_config(by_link);
    cleanup_config struct cp_config cfg2 = {0};
    assert_int_equal(cp_config_load(&cfg2, &err), 0);
    assert_non_null(cp_config_egress(&cfg2, folder));
    /* A change moves the entry under the real path: one key, both hosts. */
    char *hosts[] = {"c.example.org", NULL};
    assert_int_equal(cp_config_egress_add(&cfg2, folder, hosts, CP_HOST_READ, &err), 0);
    json_object *eg = NULL, *list = NULL;
    assert_true(json_object_object_get_ex(cfg2.root, "egress", &eg));
    assert_int_equal(json_object_object_length(eg), 1);
    assert_true(json_object_object_get_ex(eg, folder, &list));
    assert_int_equal(json_object_array_length(list), 2);
    unlink(link);
}

static void test_settings__egress_remove__last_host_drops_entry_unknown_refused(void **state)
{
    cleanup_free char *folder = scratch_folder("w-rm");
    cleanup_free char *text =
        xasprintf("{\"egress\": {\"%s\": [\"a.example.org\", \"b.example.org\"]}}", folder);
    write_config(text);
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    char *unknown[] = {"a.example.org", "z.example.org", NULL};
    assert_int_equal(cp_config_egress_remove(&cfg, folder, unknown, &err), CP_ERR_USAGE);
    assert_non_null(strstr(err->msg, "z.example.org"));
    assert_int_equal(json_object_array_length(cp_config_egress(&cfg, folder)), 2);
    cp_error_free(&err);
    char *one[] = {"A.example.org", NULL};
    assert_int_equal(cp_config_egress_remove(&cfg, folder, one, &err), 0);
    assert_int_equal(json_object_array_length(cp_config_egress(&cfg, folder)), 1);
    char *other[] = {"b.example.org", NULL};
    assert_int_equal(cp_config_egress_remove(&cfg, folder, other, &err), 0);
    assert_null(cp_config_egress(&cfg, folder));
    assert_false(json_object_object_get_ex(cfg.root, "egress", NULL));
}

static void test_settings__egress_allow_all__on_then_off_then_add(void **state)
{
    write_config("{}");
    cleanup_free char *folder = scratch_folder("w-all");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_int_equal(cp_config_egress_allow_all(&cfg, folder, true, &err), 0);
    cleanup_config struct cp_config back = {0};
    assert_int_equal(cp_config_load(&back, &err), 0);
    json_object *v = cp_config_egress(&back, folder);
    assert_string_equal(json_object_get_string(v), "allow-all");
    char *hosts[] = {"a.example.org", NULL};
    assert_int_equal(cp_config_egress_add(&back, folder, hosts, CP_HOST_READ, &err), CP_ERR_USAGE);
    cp_error_free(&err);
    assert_int_equal(cp_config_egress_allow_all(&back, folder, false, &err), 0);
    assert_null(cp_config_egress(&back, folder));
    assert_int_equal(cp_config_egress_add(&back, folder, hosts, CP_HOST_READ, &err), 0);
}

/* The modes as stored: a read host a plain string (what older versions load), others objects;
 * adding a listed host again with another mode changes it, never a second entry. */
static void test_settings__egress_modes__round_trip_and_change(void **state)
{
    write_config("{}");
    cleanup_free char *folder = scratch_folder("w-modes");
    cleanup_error cp_error_t err = NULL;
    {
        cleanup_config struct cp_config cfg = {0};
        assert_int_equal(cp_config_load(&cfg, &err), 0);
        char *reads[] = {"read.example.org", "up.example.org", NULL};
        char *writes[] = {"Up.Example.org", NULL};
        char *passes[] = {"pin.example.org", NULL};
        assert_int_equal(cp_config_egress_add(&cfg, folder, reads, CP_HOST_READ, &err), 0);
        assert_int_equal(cp_config_egress_add(&cfg, folder, writes, CP_HOST_WRITE, &err), 0);
        assert_int_equal(cp_config_egress_add(&cfg, folder, passes, CP_HOST_PASS, &err), 0);
    }
    cleanup_config struct cp_config cfg = {0};
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    json_object *list = cp_config_egress(&cfg, folder);
    assert_int_equal(json_object_array_length(list), 3);
    const char *want[][2] = {{"read.example.org", "read"},
                             {"up.example.org", "write"},
                             {"pin.example.org", "pass-through"}};
    for (size_t i = 0; i < 3; i++) {
        enum cp_host_mode mode;
        json_object *item = json_object_array_get_idx(list, i);
        assert_string_equal(cp_config_egress_item(item, &mode), want[i][0]);
        assert_string_equal(cp_host_mode_name(mode), want[i][1]);
    }
    assert_true(json_object_is_type(json_object_array_get_idx(list, 0), json_type_string));
    /* Back to read: a plain string again, in its place. */
    char *back[] = {"up.example.org", NULL};
    assert_int_equal(cp_config_egress_add(&cfg, folder, back, CP_HOST_READ, &err), 0);
    list = cp_config_egress(&cfg, folder);
    assert_int_equal(json_object_array_length(list), 3);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(list, 1)),
                        "up.example.org");
    /* remove finds an object item by its host. */
    char *rm[] = {"PIN.example.org", NULL};
    assert_int_equal(cp_config_egress_remove(&cfg, folder, rm, &err), 0);
    assert_int_equal(json_object_array_length(cp_config_egress(&cfg, folder)), 2);
}

/* A file written before modes: plain strings, every host read. */
static void test_settings__egress_old_file__loads_every_host_read(void **state)
{
    write_config(
        "{\"egress\": {\"/w\": [\"a.example.org\", \"*.b.example\"], \"/v\": \"allow-all\"}}");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    json_object *list = cp_config_egress(&cfg, "/w");
    assert_int_equal(json_object_array_length(list), 2);
    enum cp_host_mode mode = CP_HOST_PASS;
    assert_string_equal(cp_config_egress_item(json_object_array_get_idx(list, 1), &mode),
                        "*.b.example");
    assert_int_equal(mode, CP_HOST_READ);
}

static void expect_config_refused(const char *text, const char *words)
{
    write_config(text);
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(cp_config_load(&cfg, &err) < 0);
    if (strstr(err->msg, words) == NULL)
        fail_msg("%s: expected '%s' in: %s", text, words, err->msg);
    assert_non_null(err->hint);
}

static void test_settings__egress_bad_mode__refused_with_the_modes_named(void **state)
{
    write_config("{\"egress\": {\"/w\": [{\"host\": \"a.example.org\", \"mode\": \"upload\"}]}}");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_true(cp_config_load(&cfg, &err) < 0);
    assert_non_null(strstr(err->msg, "egress.\"/w\"[0]"));
    assert_non_null(strstr(err->msg, "'upload'"));
    assert_non_null(strstr(err->msg, "\"pass-through\""));
    assert_non_null(strstr(err->hint, "\"write\""));
    /* Misspelt, missing or wrong-typed parts are refused, never read as read-only. */
    expect_config_refused(
        "{\"egress\": {\"/w\": [{\"host\": \"a.example.org\", \"mdoe\": \"write\"}]}}", "'mdoe'");
    expect_config_refused("{\"egress\": {\"/w\": [{\"host\": \"a.example.org\"}]}}", "(none)");
    expect_config_refused("{\"egress\": {\"/w\": [{\"host\": \"a.example.org\", \"mode\": 1}]}}",
                          "mode");
    expect_config_refused("{\"egress\": {\"/w\": [{\"mode\": \"write\"}]}}", "not a host name");
    expect_config_refused("{\"egress\": {\"/w\": [{\"host\": \"10.0.0.1\", \"mode\": \"write\"}]}}",
                          "'10.0.0.1'");
    expect_config_refused("{\"egress\": {\"/w\": [7]}}", "'7'");
    expect_config_refused("{\"egress\": {\"/w\": [\"a.example.org\", {\"host\": \"A.example.org\", "
                          "\"mode\": \"write\"}]}}",
                          "twice");
    /* The same host twice with one mode is what older versions allowed: still loads. */
    write_config("{\"egress\": {\"/w\": [\"a.example.org\", \"a.example.org\"]}}");
    cleanup_config struct cp_config twice = {0};
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(cp_config_load(&twice, &err2), 0);
}

static char *scratch_file(const char *name, const char *text)
{
    char *path = xasprintf("%s/%s", scratch, name);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_write_file_atomic(path, text, strlen(text), 0600, &err), 0);
    return path;
}

static void expect_ca_refused(const char *path, const char *words)
{
    write_config("{}");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_int_equal(cp_config_set(&cfg, "egress.ca_file", path, &err), CP_ERR_USAGE);
    if (strstr(err->msg, words) == NULL)
        fail_msg("%s: expected '%s' in: %s", path, words, err->msg);
    assert_non_null(strstr(err->hint, "BEGIN CERTIFICATE"));
    cleanup_config struct cp_config again = {0};
    cleanup_error cp_error_t err2 = NULL;
    assert_int_equal(cp_config_load(&again, &err2), 0);
    assert_null(cp_config_egress_ca_file(&again));
}

static void test_settings__egress_ca_file__checked_on_set_stored_absolute(void **state)
{
    cleanup_free char *missing = xasprintf("%s/no-such.pem", scratch);
    cleanup_free char *der = scratch_file("ca.der", "0\x82\x01\x0a not a PEM file\n");
    cleanup_free char *dir = xasprintf("%s/ca-dir", scratch);
    cleanup_free char *fifo = xasprintf("%s/fifo", scratch);
    mkdir(dir, 0700);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_ca_refused(missing, "cannot be used");
    expect_ca_refused(der, "holds no PEM certificate");
    expect_ca_refused(dir, "is not a regular file");
    expect_ca_refused(fifo, "is not a regular file"); /* never opened: it would hang */
    cleanup_free char *pem = scratch_file(
        "ca.pem", "# a company CA\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    /* A relative path is stored absolute: it must mean one file from any folder. */
    cleanup_free char *old_cwd = getcwd(NULL, 0);
    assert_int_equal(chdir(scratch), 0);
    cleanup_error cp_error_t err = NULL;
    {
        cleanup_config struct cp_config cfg = {0};
        assert_int_equal(cp_config_load(&cfg, &err), 0);
        assert_int_equal(cp_config_set(&cfg, "egress.ca_file", "ca.pem", &err), 0);
    }
    assert_int_equal(chdir(old_cwd), 0);
    cleanup_free char *real = realpath(pem, NULL);
    cleanup_config struct cp_config cfg = {0};
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    assert_string_equal(cp_config_egress_ca_file(&cfg), real);
    assert_int_equal(cp_config_unset(&cfg, "egress.ca_file", &err), 0);
    assert_null(cp_config_egress_ca_file(&cfg));
    assert_int_equal(cp_config_unset(&cfg, "egress.ca_file", &err), 0); /* unset again: no error */
    cleanup_config struct cp_config back = {0};
    assert_int_equal(cp_config_load(&back, &err), 0);
    assert_null(cp_config_egress_ca_file(&back));
    /* Written by hand, only its shape is checked when loading: absolute. */
    expect_config_refused("{\"egress.ca_file\": \"ca.pem\"}", "not an absolute path");
}

/* A person's "protected" entries add places: the one list's keys stay covered whatever the
 * config says, and the added name is covered too (box and mirror read the same list). */
static void test_protected__config_list__adds_never_replaces(void **state)
{
    write_config("{\"protected\": [\"secrets.yaml\", \"private/\"]}");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    char **owned = NULL;
    const char *const *pats = cp_protected_in_force(&cfg, &owned);
    assert_non_null(owned);
    assert_true(cp_protected_is(pats, "deploy/secrets.yaml"));
    assert_true(cp_protected_within(pats, "private/notes.txt"));
    assert_true(cp_protected_is(pats, ".env"));
    assert_true(cp_protected_within(pats, ".ssh/id_ed25519"));
    assert_true(cp_protected_is(pats, ".cargo/credentials.toml"));
    assert_false(cp_protected_is(pats, "src/main.c"));
    cp_strv_free(owned);
    /* Without the key, the one list itself, nothing owned. */
    write_config("{}");
    cleanup_config struct cp_config plain = {0};
    assert_int_equal(cp_config_load(&plain, &err), 0);
    assert_ptr_equal(cp_protected_in_force(&plain, &owned), cp_protected_default);
    assert_null(owned);
    assert_ptr_equal(cp_protected_in_force(NULL, &owned), cp_protected_default);
}

/* DESIGN.md: the work folder may not be the home folder, a folder that holds it, or / (125):
 * a command there would reach every key the person has. */
static void expect_refused(const char *dir, const char *words)
{
    cleanup_free char *out = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_workdir_resolve(dir, &out, &err), CP_ERR_FAILED);
    assert_null(out);
    if (strstr(err->msg, words) == NULL)
        fail_msg("%s: expected '%s' in: %s", dir ? dir : "(the current folder)", words, err->msg);
}

static void expect_allowed(const char *dir)
{
    cleanup_free char *out = NULL;
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *real = realpath(dir, NULL);
    assert_int_equal(cp_workdir_resolve(dir, &out, &err), 0);
    assert_string_equal(out, real);
}

static void test_workdir__home_its_holders_and_root__refused(void **state)
{
    char top[] = "/tmp/conch-test-workdir-XXXXXX";
    assert_non_null(mkdtemp(top));
    cleanup_free char *person = xasprintf("%s/person", top);
    cleanup_free char *home = xasprintf("%s/person/home", top);
    cleanup_free char *home_slash = xasprintf("%s/person/home/", top);
    cleanup_free char *proj = xasprintf("%s/person/home/proj", top);
    cleanup_free char *sibling = xasprintf("%s/person/homework", top); /* home's name, longer */
    cleanup_free char *stem = xasprintf("%s/person/hom", top);         /* a prefix of home's path */
    cleanup_free char *link = xasprintf("%s/to-home", top);
    assert_int_equal(mkdir(person, 0700), 0);
    assert_int_equal(mkdir(home, 0700), 0);
    assert_int_equal(mkdir(proj, 0700), 0);
    assert_int_equal(mkdir(sibling, 0700), 0);
    assert_int_equal(mkdir(stem, 0700), 0);
    assert_int_equal(symlink("person/home", link), 0);
    cleanup_free char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
    cleanup_free char *old_cwd = getcwd(NULL, 0);
    setenv("HOME", home, 1);
    expect_refused(home, "is your home folder");
    expect_refused(home_slash, "is your home folder");
    expect_refused(link, "is your home folder"); /* judged on the real path */
    expect_refused(person, "holds your home folder");
    expect_refused(top, "holds your home folder");
    expect_refused("/tmp", "holds your home folder");
    expect_refused("/", "is /");
    assert_int_equal(chdir(home), 0);
    expect_refused(NULL, "is your home folder"); /* the current folder, by default */
    assert_int_equal(chdir(old_cwd), 0);
    setenv("HOME", link, 1); /* HOME named through a link: its real path is home */
    expect_refused(home, "is your home folder");
    setenv("HOME", home, 1);
    expect_allowed(proj);
    expect_allowed(sibling);
    expect_allowed(stem);
    /* The password database's home is refused too, whatever HOME says. */
    struct passwd *pw = getpwuid(getuid());
    struct stat st;
    if (pw != NULL && pw->pw_dir[0] == '/' && strcmp(pw->pw_dir, "/") != 0 &&
        stat(pw->pw_dir, &st) == 0 && S_ISDIR(st.st_mode))
        expect_refused(pw->pw_dir, "is your home folder");
    if (old_home != NULL)
        setenv("HOME", old_home, 1);
    else
        unsetenv("HOME");
    unlink(link);
    rmdir(proj);
    rmdir(sibling);
    rmdir(stem);
    rmdir(home);
    rmdir(person);
    rmdir(top);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings__absent_file__empty_config),
        cmocka_unit_test(test_settings__bad_egress_host__names_key_and_value),
        cmocka_unit_test(test_settings__malformed_json__refused),
        cmocka_unit_test(test_settings__set_then_get__round_trips),
        cmocka_unit_test(test_settings__bad_value__not_saved),
        cmocka_unit_test(test_settings__container_limits__two_values_default_required),
        cmocka_unit_test(test_hostname__patterns__exact_or_suffix_only),
        cmocka_unit_test(test_settings__syntax_error__line_and_column),
        cmocka_unit_test(test_json__position__counts_lines_and_columns),
        cmocka_unit_test(test_settings__egress_add__stored_under_real_path_other_keys_kept),
        cmocka_unit_test(test_settings__egress_add__invalid_host_refused_file_unchanged),
        cmocka_unit_test(test_settings__egress_key_by_hand__trailing_slash_and_symlink_match),
        cmocka_unit_test(test_settings__egress_remove__last_host_drops_entry_unknown_refused),
        cmocka_unit_test(test_settings__egress_allow_all__on_then_off_then_add),
        cmocka_unit_test(test_settings__egress_modes__round_trip_and_change),
        cmocka_unit_test(test_settings__egress_old_file__loads_every_host_read),
        cmocka_unit_test(test_settings__egress_bad_mode__refused_with_the_modes_named),
        cmocka_unit_test(test_settings__egress_ca_file__checked_on_set_stored_absolute),
        cmocka_unit_test(test_settings__container_caches__on_or_off_default_on),
        cmocka_unit_test(test_protected__config_list__adds_never_replaces),
        cmocka_unit_test(test_workdir__home_its_holders_and_root__refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
