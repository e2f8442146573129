/* Unit tests for config.json: validation names the key and the value; set writes atomically. */
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

#include "src/base/hostname.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/settings.h"
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
    cleanup_free char *path = xasprintf("%s/config.json", scratch);
    unlink(path);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings__absent_file__empty_config),
        cmocka_unit_test(test_settings__bad_egress_host__names_key_and_value),
        cmocka_unit_test(test_settings__malformed_json__refused),
        cmocka_unit_test(test_settings__set_then_get__round_trips),
        cmocka_unit_test(test_settings__bad_value__not_saved),
        cmocka_unit_test(test_hostname__patterns__exact_or_suffix_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
