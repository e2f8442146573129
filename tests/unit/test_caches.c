/* Unit tests for the folders' package caches (places/container/box/caches.c): their names, the age
 * rule `clean` judges by, and the mount and variables a sealed box's spec (fresh or warm) gets. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "places/container/box/box-spec.h"
#include "places/container/box/caches.h"
#include "places/container/warm/warm.h"
#include "src/base/json.h"
#include "src/base/util.h"

#define DAY (24 * 3600)

/* One name per folder, home and engine; the same again for the same three. */
static void test_cache_name__folder_home_engine__each_its_own(void **state)
{
    (void)state;
    const char *sock = "/run/docker.sock";
    cleanup_free char *a = cp_cache_volume_name(sock, "0123456789abcdef", "/w/a");
    cleanup_free char *again = cp_cache_volume_name(sock, "0123456789abcdef", "/w/a");
    cleanup_free char *other_folder = cp_cache_volume_name(sock, "0123456789abcdef", "/w/b");
    cleanup_free char *other_home = cp_cache_volume_name(sock, "fedcba9876543210", "/w/a");
    cleanup_free char *other_engine =
        cp_cache_volume_name("/run/podman/podman.sock", "0123456789abcdef", "/w/a");
    /* ("/w/a" under "x") and ("/w/" under "xa") are not one record. */
    cleanup_free char *shifted = cp_cache_volume_name(sock, "0123456789abcdefa", "/w/");
    assert_string_equal(a, again);
    assert_int_equal(strncmp(a, "conch-cache-", 12), 0);
    assert_int_equal(strlen(a), 12 + 16);
    assert_null(strchr(a, '/'));
    assert_string_not_equal(a, other_folder);
    assert_string_not_equal(a, other_home);
    assert_string_not_equal(a, other_engine);
    assert_string_not_equal(a, shifted);
}

/* Unused for more than 7 days goes; 7 days to the second stays; a cache never marked goes. */
static void test_cache_stale__seven_days__the_line(void **state)
{
    (void)state;
    int64_t now = 1800000000;
    assert_false(cp_cache_stale(now, now));
    assert_false(cp_cache_stale(now - 7 * DAY, now));
    assert_true(cp_cache_stale(now - 7 * DAY - 1, now));
    assert_true(cp_cache_stale(now - 8 * DAY, now));
    assert_true(cp_cache_stale(0, now));
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static json_object *mount_at(json_object *spec, const char *target)
{
    json_object *mounts = get(get(spec, "HostConfig"), "Mounts");
    for (size_t i = 0; i < json_object_array_length(mounts); i++) {
        json_object *m = json_object_array_get_idx(mounts, i);
        if (strcmp(cp_json_str(m, "Target"), target) == 0)
            return m;
    }
    return NULL;
}

static bool env_has(json_object *spec, const char *entry)
{
    json_object *env = get(spec, "Env");
    for (size_t i = 0; i < json_object_array_length(env); i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(env, i)), entry) == 0)
            return true;
    return false;
}

static struct cp_box_spec sealed_spec(const char *cache)
{
    static char *argv[] = {"npm", "install", NULL};
    return (struct cp_box_spec){.image = "img",
                                .argv = argv,
                                .workdir = "/w",
                                .uid = 1000,
                                .gid = 1000,
                                .sealed = true,
                                .empty_file = "/e",
                                .network = "none",
                                .cpus = 2,
                                .cache = cache};
}

/* The volume at CP_CACHE_TARGET (never copied up from the image), the credential files covered
 * read-only, every tool's variable. */
static void test_cache_spec__on__volume_covers_and_variables(void **state)
{
    (void)state;
    struct cp_box_spec s = sealed_spec("conch-cache-x");
    cleanup_json json_object *j = cp_box_spec_json(&s);
    json_object *m = mount_at(j, CP_CACHE_TARGET);
    assert_non_null(m);
    assert_string_equal(cp_json_str(m, "Type"), "volume");
    assert_string_equal(cp_json_str(m, "Source"), "conch-cache-x");
    assert_false(json_object_get_boolean(get(m, "ReadOnly")));
    assert_true(json_object_get_boolean(get(get(m, "VolumeOptions"), "NoCopy")));
    for (size_t i = 0; cp_cache_covers[i] != NULL; i++) {
        json_object *c = mount_at(j, cp_cache_covers[i]);
        assert_non_null(c);
        assert_string_equal(cp_json_str(c, "Source"), "/e");
        assert_true(json_object_get_boolean(get(c, "ReadOnly")));
    }
    for (size_t i = 0; cp_cache_env[i] != NULL; i++) {
        assert_true(env_has(j, cp_cache_env[i]));
        assert_int_equal(strncmp(strchr(cp_cache_env[i], '=') + 1, CP_CACHE_TARGET "/",
                                 strlen(CP_CACHE_TARGET) + 1),
                         0);
    }
    assert_true(env_has(j, "npm_config_cache=" CP_CACHE_TARGET "/npm"));
    assert_true(env_has(j, "HOME=/tmp")); /* HOME stays the box's own */
}

/* Off (or unsealed): no mount there, no cover, no variable. */
static void test_cache_spec__off__nothing(void **state)
{
    (void)state;
    struct cp_box_spec s = sealed_spec(NULL);
    cleanup_json json_object *j = cp_box_spec_json(&s);
    assert_null(mount_at(j, CP_CACHE_TARGET));
    for (size_t i = 0; cp_cache_covers[i] != NULL; i++)
        assert_null(mount_at(j, cp_cache_covers[i]));
    for (size_t i = 0; cp_cache_env[i] != NULL; i++)
        assert_false(env_has(j, cp_cache_env[i]));
}

/* A warm box is made from the same body: the same mount and variables; and a box made with
 * caches never serves a run without them, nor one of another folder's cache. */
static void test_cache_warm__same_volume__in_the_key(void **state)
{
    (void)state;
    struct cp_box_spec on = sealed_spec("conch-cache-x");
    struct cp_box_spec off = sealed_spec(NULL);
    struct cp_box_spec other = sealed_spec("conch-cache-y");
    cleanup_json json_object *warm = cp_warm_spec(&on, "KEY");
    json_object *m = mount_at(warm, CP_CACHE_TARGET);
    assert_non_null(m);
    assert_string_equal(cp_json_str(m, "Source"), "conch-cache-x");
    assert_true(env_has(warm, "GOMODCACHE=" CP_CACHE_TARGET "/go/mod"));
    cleanup_free char *k_on = cp_warm_key(&on, "sha256:1");
    cleanup_free char *k_off = cp_warm_key(&off, "sha256:1");
    cleanup_free char *k_other = cp_warm_key(&other, "sha256:1");
    assert_string_not_equal(k_on, k_off);
    assert_string_not_equal(k_on, k_other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_name__folder_home_engine__each_its_own),
        cmocka_unit_test(test_cache_stale__seven_days__the_line),
        cmocka_unit_test(test_cache_spec__on__volume_covers_and_variables),
        cmocka_unit_test(test_cache_spec__off__nothing),
        cmocka_unit_test(test_cache_warm__same_volume__in_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
