/* The ssh keeper's request: every field of the run request survives the trip; anything
 * malformed is refused whole. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "places/ssh/keeper-request.h"
#include "src/base/json.h"
#include "src/base/util.h"

static int roundtrip(const struct cp_run_request *in, bool verbose, struct cp_ssh_request *out)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 1024 * 1024);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_ssh_request_encode(in, verbose, &b, &err), 0);
    return cp_ssh_request_decode(b.data, b.len, out, &err);
}

static void test_ssh_request__every_field__carried(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "printf '%s' \"$1\"", "x", "a\nb'c\"", "", NULL};
    struct cp_config cfg = {.path = "/home/u/.conch/config.json"};
    cleanup_error cp_error_t err = NULL;
    const char doc[] = "{\"image\": \"node:24\", \"engine\": \"podman\"}";
    assert_int_equal(cp_json_parse(doc, strlen(doc), "test", &cfg.root, &err), 0);
    struct cp_run_request in = {.place = "ssh:box",
                                .argv = argv,
                                .workdir = "/w/d ir",
                                .chat = "chat 1",
                                .sealed = false,
                                .interactive = true,
                                .engine = "podman",
                                .image = "node:24-bookworm",
                                .config = &cfg};
    struct cp_ssh_request out = {0};
    assert_int_equal(roundtrip(&in, true, &out), 0);
    assert_string_equal(out.req.place, "ssh:box");
    assert_string_equal(out.req.workdir, "/w/d ir");
    assert_string_equal(out.req.chat, "chat 1");
    assert_false(out.req.sealed);
    assert_true(out.req.interactive);
    assert_string_equal(out.req.engine, "podman");
    assert_string_equal(out.req.image, "node:24-bookworm");
    assert_true(out.verbose);
    for (size_t i = 0; argv[i] != NULL; i++)
        assert_string_equal(out.req.argv[i], argv[i]);
    assert_null(out.req.argv[6]);
    assert_non_null(out.req.config);
    assert_string_equal(out.req.config->path, cfg.path);
    assert_string_equal(cp_config_get(out.req.config, "image"), "node:24");
    cp_ssh_request_dispose(&out);
    json_object_put(cfg.root);
}

static void test_ssh_request__optional_fields_absent__null(void **state)
{
    (void)state;
    char *argv[] = {"true", NULL};
    struct cp_run_request in = {
        .place = "ssh:box", .argv = argv, .workdir = "/w", .chat = "c", .sealed = true};
    struct cp_ssh_request out = {0};
    assert_int_equal(roundtrip(&in, false, &out), 0);
    assert_null(out.req.engine);
    assert_null(out.req.image);
    assert_null(out.req.config);
    assert_true(out.req.sealed);
    assert_false(out.verbose);
    cp_ssh_request_dispose(&out);
}

static void test_ssh_request__malformed__refused(void **state)
{
    (void)state;
    const char *bad[] = {
        "",
        "[]",
        "{\"magic\": \"conch-keeper 1\"}",
        "{\"magic\":\"conch-keeper 2\",\"place\":\"ssh:b\",\"chat\":\"c\",\"workdir\":\"/w\","
        "\"sealed\":true,\"interactive\":false,\"verbose\":false,\"argv\":[]}",
        "{\"magic\":\"conch-keeper 2\",\"place\":\"ssh:b\",\"chat\":\"c\",\"workdir\":\"/w\","
        "\"sealed\":true,\"interactive\":false,\"verbose\":false,\"argv\":[1]}",
        "{\"magic\":\"conch-keeper 2\",\"place\":\"ssh:b\",\"chat\":\"c\",\"workdir\":\"/w\","
        "\"sealed\":\"yes\",\"interactive\":false,\"verbose\":false,\"argv\":[\"true\"]}",
        "{\"magic\":\"conch-keeper 2\",\"place\":\"ssh:b\",\"chat\":\"c\\u0000x\",\"workdir\":"
        "\"/w\",\"sealed\":true,\"interactive\":false,\"verbose\":false,\"argv\":[\"true\"]}",
        "{\"magic\":\"conch-keeper 2\",\"place\":\"ssh:b\",\"chat\":\"c\",\"workdir\":\"/w\","
        "\"sealed\":true,\"interactive\":false,\"verbose\":false,\"argv\":[\"true\"],"
        "\"config\":{\"path\":\"p\",\"root\":{\"engine\":7}}}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        struct cp_ssh_request out = {0};
        cleanup_error cp_error_t err = NULL;
        if (cp_ssh_request_decode(bad[i], strlen(bad[i]), &out, &err) == 0)
            fail_msg("accepted: %s", bad[i]);
        assert_non_null(err);
        assert_null(out.req.argv);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ssh_request__every_field__carried),
        cmocka_unit_test(test_ssh_request__optional_fields_absent__null),
        cmocka_unit_test(test_ssh_request__malformed__refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
