/* Unit tests for the string vector: always NULL-terminated, owned copies, and a steal that
 * never gives NULL. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/base/strvec.h"
#include "src/base/util.h"

static void test_strvec__push_many__null_terminated_copies(void **state)
{
    (void)state;
    cleanup_strvec struct cp_strvec sv = {0};
    char word[16];
    for (int i = 0; i < 100; i++) {
        snprintf(word, sizeof(word), "w%d", i);
        cp_strvec_push(&sv, word);
        assert_null(sv.v[sv.n]);
        assert_true(sv.n < sv.cap);
    }
    word[0] = 'x'; /* a copy was pushed, not the caller's buffer */
    assert_int_equal(sv.n, 100);
    assert_string_equal(sv.v[0], "w0");
    assert_string_equal(sv.v[99], "w99");
    assert_int_equal(cp_strv_len(sv.v), 100);
}

static void test_strvec__owned_and_formatted__kept_in_order(void **state)
{
    (void)state;
    cleanup_strvec struct cp_strvec sv = {0};
    cp_strvec_push_owned(&sv, xstrdup("owned"));
    cp_strvec_pushf(&sv, "%s=%d", "n", 7);
    const char *const more[] = {"a", "b", NULL};
    cp_strvec_push_all(&sv, more);
    cp_strvec_push_all(&sv, NULL);
    assert_int_equal(sv.n, 4);
    assert_string_equal(sv.v[0], "owned");
    assert_string_equal(sv.v[1], "n=7");
    assert_string_equal(sv.v[3], "b");
    assert_true(cp_strvec_has(&sv, "a"));
    assert_false(cp_strvec_has(&sv, "c"));
}

static void test_strvec__steal__caller_owns_and_struct_empties(void **state)
{
    (void)state;
    struct cp_strvec sv = {0};
    cleanup_strv char **empty = cp_strvec_steal(&sv);
    assert_non_null(empty);
    assert_null(empty[0]);
    cp_strvec_push(&sv, "one");
    cleanup_strv char **v = cp_strvec_steal(&sv);
    assert_string_equal(v[0], "one");
    assert_null(v[1]);
    assert_null(sv.v);
    assert_int_equal(sv.n, 0);
    assert_int_equal(sv.cap, 0);
    cp_strvec_dispose(&sv); /* an emptied vector may be disposed, and reused */
    cp_strvec_push(&sv, "again");
    assert_string_equal(sv.v[0], "again");
    cp_strvec_dispose(&sv);
    assert_null(sv.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strvec__push_many__null_terminated_copies),
        cmocka_unit_test(test_strvec__owned_and_formatted__kept_in_order),
        cmocka_unit_test(test_strvec__steal__caller_owns_and_struct_empties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
