/* Unit tests for the Daytona client's checks: URLs (abuse cases 114, 115), ids (116),
 * Retry-After, Daytona's error words, both list shapes, and the secrets file (121, 122). */
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

#include "places/cloud/daytona.h"
#include "places/cloud/sandbox.h"
#include "places/cloud/toolbox.h"
#include "src/base/json.h"
#include "src/base/secrets.h"
#include "src/base/shell.h"
#include "src/base/util.h"

static void refused(const char *url)
{
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *origin = NULL;
    if (cp_daytona_origin(url, &origin, NULL, &err) == 0)
        fail_msg("accepted %s as %s", url, origin);
}

static void test_cloud_origin__url_tricks__refused(void **state)
{
    (void)state;
    refused("https://app.daytona.io@evil.test/api");
    refused("https://evil.test\\@app.daytona.io/api");
    refused("http://app.daytona.io/api");
    refused("https://user:pw@app.daytona.io/api");
    refused("https://app.daytona.io/api#frag");
    refused("ftp://app.daytona.io/api");
    refused("not a url");
}

static void origin_is(const char *url, const char *want)
{
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *origin = NULL;
    assert_int_equal(cp_daytona_origin(url, &origin, NULL, &err), 0);
    assert_string_equal(origin, want);
}

static void test_cloud_origin__case_dot_port__normalised(void **state)
{
    (void)state;
    origin_is("https://APP.DAYTONA.IO./api", "https://app.daytona.io:443");
    origin_is("https://app.daytona.io:8443/api", "https://app.daytona.io:8443");
    origin_is("https://app.daytona.io.evil.test/api", "https://app.daytona.io.evil.test:443");
}

static struct cp_daytona *client(const char *toolbox_origin)
{
    struct cp_daytona *d = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_daytona_open(NULL, "dtn_x", &d, &err), 0);
    d->toolbox_origin = xstrdup(toolbox_origin);
    return d;
}

static void toolbox_refused(struct cp_daytona *d, const char *url)
{
    struct cp_sandbox sb = {.id = "abc-1", .state = "started"};
    snprintf(sb.toolbox, sizeof(sb.toolbox), "%s", url);
    cleanup_toolbox struct cp_toolbox tb = {0};
    cleanup_error cp_error_t err = NULL;
    if (cp_toolbox_open(d, &sb, &tb, &err) == 0)
        fail_msg("toolbox %s accepted", url);
}

static void test_cloud_toolbox__other_host__refused(void **state)
{
    (void)state;
    cleanup_daytona struct cp_daytona *d = client("https://proxy.app.daytona.io:443");
    toolbox_refused(d, "https://evil.test/toolbox");
    toolbox_refused(d, "http://proxy.app.daytona.io/toolbox");
    toolbox_refused(d, "https://8080-abc.proxy.daytona.works/toolbox");
    toolbox_refused(d, "https://proxy.app.daytona.io.evil.test/");
    toolbox_refused(d, "https://app.daytona.io/toolbox"); /* the API host: not the toolbox */
    struct cp_sandbox sb = {.id = "abc-1", .toolbox = "https://proxy.app.daytona.io/toolbox/"};
    cleanup_toolbox struct cp_toolbox tb = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_toolbox_open(d, &sb, &tb, &err), 0);
    assert_string_equal(tb.base, "https://proxy.app.daytona.io/toolbox/abc-1");
}

static void test_cloud_request__foreign_url__nothing_sent(void **state)
{
    (void)state;
    cleanup_daytona struct cp_daytona *d = client("https://proxy.app.daytona.io:443");
    cleanup_error cp_error_t err = NULL;
    /* Port 9 on loopback: were it sent, the error would be a connection one, not UNSAFE. */
    struct cp_daytona_call c = {.method = "GET", .url = "https://127.0.0.1:9/api/sandbox"};
    assert_int_equal(cp_daytona_request(d, &c, NULL, &err), CP_ERR_UNSAFE);
}

static void sandbox_refused(const char *json)
{
    cleanup_json json_object *o = json_tokener_parse(json);
    struct cp_sandbox sb;
    cleanup_error cp_error_t err = NULL;
    assert_non_null(o);
    assert_int_not_equal(cp_sandbox_from_json(o, &sb, &err), 0);
}

static void test_cloud_sandbox__id_injection__refused(void **state)
{
    (void)state;
    sandbox_refused("{\"id\":\"../../api/api-keys\",\"state\":\"started\"}");
    sandbox_refused("{\"id\":\"x?y=1\",\"state\":\"started\"}");
    sandbox_refused("{\"id\":\"x#\",\"state\":\"started\"}");
    sandbox_refused("{\"id\":\"%2e%2e%2f\",\"state\":\"started\"}");
    sandbox_refused("{\"id\":\"\",\"state\":\"started\"}");
    cleanup_free char *big = xmalloc(10050);
    memset(big, 'a', 10049);
    big[10049] = '\0';
    cleanup_free char *json = xasprintf("{\"id\":\"%s\",\"state\":\"started\"}", big);
    sandbox_refused(json);
}

static void test_cloud_list__both_shapes__read(void **state)
{
    (void)state;
    const char *shapes[] = {
        "[{\"id\":\"a-1\",\"state\":\"stopped\",\"labels\":{\"conch-place\":\"1\","
        "\"conch-chat\":\"c\"},\"lastActivityAt\":\"2026-01-02T03:04:05.000Z\"}]",
        "{\"items\":[{\"id\":\"a-1\",\"state\":\"stopped\",\"labels\":{\"conch-place\":\"1\","
        "\"conch-chat\":\"c\"},\"lastActivityAt\":\"2026-01-02T03:04:05.000Z\"}],"
        "\"nextCursor\":\"n2\"}",
    };
    for (size_t i = 0; i < 2; i++) {
        cleanup_json json_object *o = json_tokener_parse(shapes[i]);
        cleanup_free struct cp_sandbox *v = NULL;
        cleanup_free char *next = NULL;
        size_t n = 0;
        cleanup_error cp_error_t err = NULL;
        assert_int_equal(cp_sandbox_list_parse(o, &v, &n, &next, &err), 0);
        assert_int_equal(n, 1);
        assert_string_equal(v[0].chat, "c");
        assert_true(v[0].ours);
        assert_int_equal(v[0].last_activity, 1767323045);
        if (i == 1)
            assert_string_equal(next, "n2");
        else
            assert_null(next);
    }
}

static void test_cloud_retry_after__named_and_plain__longest(void **state)
{
    (void)state;
    assert_int_equal(cp_daytona_retry_after_ms("HTTP/1.1 429 x\r\nRetry-After: 2\r\n"), 2000);
    assert_int_equal(cp_daytona_retry_after_ms("HTTP/1.1 429 x\r\nretry-after-sandbox-create: 5\r\n"
                                               "Retry-After: 2\r\n"),
                     5000);
    assert_int_equal(cp_daytona_retry_after_ms("HTTP/1.1 429 x\r\nRetry-Afterwards: 9\r\n"), -1);
    assert_int_equal(cp_daytona_retry_after_ms("HTTP/1.1 429 x\r\nRetry-After: soon\r\n"), -1);
}

static void test_cloud_message__shapes__daytona_words(void **state)
{
    (void)state;
    const char *nest = "{\"statusCode\":400,\"error\":\"Bad Request\",\"message\":[\"a\",\"b\"]}";
    cleanup_free char *m1 = cp_daytona_message(nest, strlen(nest));
    assert_string_equal(m1, "a, b");
    const char *go = "{\"statusCode\":404,\"message\":\"not found: x\",\"code\":\"NOT_FOUND\"}";
    cleanup_free char *m2 = cp_daytona_message(go, strlen(go));
    assert_string_equal(m2, "not found: x");
    const char *html = "<html>\x1b[31mred</html>";
    cleanup_free char *m3 = cp_daytona_message(html, strlen(html));
    assert_null(strstr(m3, "\x1b"));
    cleanup_free char *m4 = cp_daytona_message("", 0);
    assert_string_equal(m4, "(no message)");
}

static char home[] = "/tmp/conch-test-cloud-XXXXXX";

static void test_cloud_secret__header_breaking_key__refused(void **state)
{
    (void)state;
    cleanup_error cp_error_t e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL;
    assert_int_not_equal(cp_secret_check("dtn\r\nX-Evil: 1", 15, &e1), 0);
    assert_int_not_equal(cp_secret_check("dtn abc", 7, &e2), 0);
    assert_int_not_equal(cp_secret_check("dtn\xc3\xa9", 5, &e3), 0);
    cleanup_free char *big = xmalloc(CP_SECRET_MAX + 2);
    memset(big, 'a', CP_SECRET_MAX + 1);
    big[CP_SECRET_MAX + 1] = '\0';
    assert_int_not_equal(cp_secret_check(big, CP_SECRET_MAX + 1, &e4), 0);
}

static void test_cloud_secrets__readable_by_others__refused(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_secrets_put("daytona", "dtn_abc", &err), 0);
    cleanup_free char *path = xasprintf("%s/workplaces.secrets.json", home);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    cleanup_secret char *key = NULL;
    assert_int_equal(cp_secrets_get("daytona", &key, &err), 0);
    assert_string_equal(key, "dtn_abc");
    chmod(path, 0644);
    cleanup_secret char *key2 = NULL;
    assert_int_equal(cp_secrets_get("daytona", &key2, &err), CP_ERR_UNSAFE);
    assert_non_null(strstr(err->msg, "can be read by others"));
    chmod(path, 0600);
}

static void test_cloud_secrets__symlink__refused(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *path = xasprintf("%s/workplaces.secrets.json", home);
    cleanup_free char *real = xasprintf("%s/elsewhere.json", home);
    assert_int_equal(cp_secrets_put("daytona", "dtn_abc", &err), 0);
    assert_int_equal(rename(path, real), 0);
    assert_int_equal(symlink(real, path), 0);
    cleanup_secret char *key = NULL;
    assert_int_equal(cp_secrets_get("daytona", &key, &err), CP_ERR_UNSAFE);
    unlink(path);
    unlink(real);
}

static void test_cloud_secrets__remove__gone(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_secrets_put("daytona", "dtn_abc", &err), 0);
    assert_int_equal(cp_secrets_put("daytona", NULL, &err), 0);
    cleanup_secret char *key = NULL;
    assert_int_equal(cp_secrets_get("daytona", &key, &err), CP_ERR_NOT_FOUND);
}

static void test_cloud_quote__quotes__one_word(void **state)
{
    (void)state;
    cleanup_free char *q = cp_shell_quoted("it's $HOME"); /* the quoter cloud uses */
    assert_string_equal(q, "'it'\\''s $HOME'");
}

static int setup(void **state)
{
    (void)state;
    if (mkdtemp(home) == NULL)
        return -1;
    setenv("CONCH_HOME", home, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cleanup_free char *path = xasprintf("%s/workplaces.secrets.json", home);
    unlink(path);
    rmdir(home);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cloud_origin__url_tricks__refused),
        cmocka_unit_test(test_cloud_origin__case_dot_port__normalised),
        cmocka_unit_test(test_cloud_toolbox__other_host__refused),
        cmocka_unit_test(test_cloud_request__foreign_url__nothing_sent),
        cmocka_unit_test(test_cloud_sandbox__id_injection__refused),
        cmocka_unit_test(test_cloud_list__both_shapes__read),
        cmocka_unit_test(test_cloud_retry_after__named_and_plain__longest),
        cmocka_unit_test(test_cloud_message__shapes__daytona_words),
        cmocka_unit_test(test_cloud_secret__header_breaking_key__refused),
        cmocka_unit_test(test_cloud_secrets__readable_by_others__refused),
        cmocka_unit_test(test_cloud_secrets__symlink__refused),
        cmocka_unit_test(test_cloud_secrets__remove__gone),
        cmocka_unit_test(test_cloud_quote__quotes__one_word),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
