/* Unit tests for the run report's collector: silent until started, bounded, UTF-8 whatever the
 * names, written whole into the folder opened at the start. */
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

#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/report.h"
#include "src/base/util.h"

static char scratch[] = "/tmp/conch-test-report-XXXXXX";

static int setup(void **state)
{
    return mkdtemp(scratch) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    const char *names[] = {"r.json", "moved/r.json", "moved", "dir", "dir2"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        cleanup_free char *p = xasprintf("%s/%s", scratch, names[i]);
        if (unlink(p) < 0)
            rmdir(p);
    }
    rmdir(scratch);
    return 0;
}

static json_object *read_report(const char *path)
{
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_read_file(path, 64 << 20, &text, &len, &err), 0);
    json_object *doc = NULL;
    assert_int_equal(cp_json_parse(text, len, path, &doc, &err), 0);
    return doc;
}

static json_object *at(json_object *o, const char *a, const char *b)
{
    json_object *v = NULL, *w = NULL;
    assert_true(json_object_object_get_ex(o, a, &v));
    if (b == NULL)
        return v;
    assert_true(json_object_object_get_ex(v, b, &w));
    return w;
}

static void test_run_report__not_started__hooks_do_nothing(void **state)
{
    cp_run_report_set("place", "container");
    cp_run_report_file("sent", "a", NULL);
    cp_run_report_take("seal", json_object_new_object()); /* freed, not leaked (ASan) */
    assert_false(cp_run_report_on());
    assert_null(cp_run_report_document());
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_run_report_finish(&err), 0);
}

static void test_run_report__every_field__written_whole(void **state)
{
    cleanup_free char *path = xasprintf("%s/r.json", scratch);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_run_report_start(path, &err), 0);
    cp_run_report_set("place", "ssh:box");
    cp_run_report_remote("host", "box", "resolve");
    cp_run_report_file("sent", "src/a.c", NULL);
    cp_run_report_file("back", "out/b.o", NULL);
    cp_run_report_file("refused_back", ".git/hooks/x", "under .git");
    cp_run_report_file("refused_send", ".env", "protected place");
    cp_run_report_file("deleted_here", "old.txt", NULL);
    cp_run_report_file("deleted_there", "gone.txt", NULL);
    cp_run_report_refused_host("evil.example", 443, "not-listed", NULL, NULL);
    cp_run_report_refused_host("registry.example", 443, "method", "PUT", "/pkg");
    cp_run_report_stage("push");
    cp_run_report_stage("push");
    cp_run_report_exit(3, "command", NULL);
    assert_int_equal(cp_run_report_finish(&err), 0);
    assert_false(cp_run_report_on());
    cleanup_json json_object *d = read_report(path);
    assert_string_equal(json_object_get_string(at(d, "host", NULL)), "box");
    assert_false(json_object_get_boolean(at(d, "sealed", NULL)));
    assert_string_equal(json_object_get_string(at(d, "files", "how")), "mirrored");
    assert_string_equal(json_object_to_json_string(at(d, "files", "sent")), "[ \"src\\/a.c\" ]");
    json_object *refused = at(d, "files", "refused");
    assert_int_equal(json_object_array_length(refused), 2);
    json_object *r0 = json_object_array_get_idx(refused, 0);
    assert_string_equal(json_object_get_string(at(r0, "reason", NULL)), "under .git");
    assert_string_equal(json_object_get_string(at(r0, "direction", NULL)), "back");
    json_object *del = at(d, "files", "deleted");
    assert_string_equal(
        json_object_get_string(at(json_object_array_get_idx(del, 1), "where", NULL)), "there");
    json_object *h = json_object_array_get_idx(at(d, "refused_hosts", NULL), 0);
    assert_int_equal(json_object_get_int(at(h, "port", NULL)), 443);
    assert_false(json_object_object_get_ex(h, "method", NULL)); /* a tunnel-level refusal */
    json_object *h1 = json_object_array_get_idx(at(d, "refused_hosts", NULL), 1);
    assert_string_equal(json_object_get_string(at(h1, "method", NULL)), "PUT");
    assert_string_equal(json_object_get_string(at(h1, "path", NULL)), "/pkg");
    assert_non_null(at(d, "stages", "push"));
    assert_int_equal(json_object_get_int(at(d, "exit", "status")), 3);
    assert_string_equal(json_object_get_string(at(d, "exit", "whose")), "command");
    /* Keys the run never reached are there, null. */
    assert_true(json_object_object_get_ex(d, "image_id", NULL));
    assert_null(at(d, "image_id", NULL));
}

static void test_run_report__hostile_names__still_utf8_json(void **state)
{
    cleanup_free char *path = xasprintf("%s/r.json", scratch);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_run_report_start(path, &err), 0);
    cp_run_report_file("back",
                       "a\xff\xfe\"\n\x01"
                       "b\xc3\xa9",
                       NULL);
    cp_run_report_file("back", "\xe2\x82", NULL); /* cut short */
    cp_run_report_exit(0, "command", NULL);
    assert_int_equal(cp_run_report_finish(&err), 0);
    cleanup_json json_object *d = read_report(path);
    json_object *back = at(d, "files", "back");
    assert_string_equal(json_object_get_string(json_object_array_get_idx(back, 0)),
                        "a\xef\xbf\xbd\xef\xbf\xbd\"\n\x01"
                        "b\xc3\xa9");
    assert_string_equal(json_object_get_string(json_object_array_get_idx(back, 1)),
                        "\xef\xbf\xbd\xef\xbf\xbd");
}

static void test_run_report__many_files__bounded_and_counted(void **state)
{
    cleanup_free char *path = xasprintf("%s/r.json", scratch);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_run_report_start(path, &err), 0);
    for (int i = 0; i < 200010; i++)
        cp_run_report_file("sent", "f", NULL);
    json_object *d = cp_run_report_document();
    assert_int_equal(json_object_array_length(at(d, "files", "sent")), 200000);
    assert_int_equal(json_object_get_int(at(d, "files", "omitted")), 10);
    cp_run_report_exit(0, "command", NULL);
    assert_int_equal(cp_run_report_finish(&err), 0);
}

static void test_run_report__folder_moved_during_run__written_where_opened(void **state)
{
    cleanup_free char *dir = xasprintf("%s/dir", scratch);
    cleanup_free char *moved = xasprintf("%s/moved", scratch);
    cleanup_free char *other = xasprintf("%s/dir2", scratch);
    cleanup_free char *path = xasprintf("%s/r.json", dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(mkdir(other, 0700), 0);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_run_report_start(path, &err), 0);
    assert_int_equal(rename(dir, moved), 0);
    assert_int_equal(symlink(other, dir), 0);
    cp_run_report_exit(125, "place", NULL);
    assert_int_equal(cp_run_report_finish(&err), 0);
    cleanup_free char *landed = xasprintf("%s/r.json", moved);
    cleanup_free char *followed = xasprintf("%s/r.json", other);
    assert_int_equal(access(landed, F_OK), 0);
    assert_int_equal(access(followed, F_OK), -1);
    unlink(dir);
}

static void test_run_report__bad_target__refused_at_start(void **state)
{
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_run_report_start("/nonexistent/conch/r.json", &err), CP_ERR_USAGE);
    cp_error_free(&err);
    assert_int_equal(cp_run_report_start(scratch, &err), CP_ERR_USAGE);
    cp_error_free(&err);
    cleanup_free char *slash = xasprintf("%s/", scratch);
    assert_int_equal(cp_run_report_start(slash, &err), CP_ERR_USAGE);
    assert_false(cp_run_report_on());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_report__not_started__hooks_do_nothing),
        cmocka_unit_test(test_run_report__every_field__written_whole),
        cmocka_unit_test(test_run_report__hostile_names__still_utf8_json),
        cmocka_unit_test(test_run_report__many_files__bounded_and_counted),
        cmocka_unit_test(test_run_report__folder_moved_during_run__written_where_opened),
        cmocka_unit_test(test_run_report__bad_target__refused_at_start),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
