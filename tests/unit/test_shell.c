/* Unit tests for shell quoting and the `sh -c` builder: the exact text the far sides get
 * today, and a real sh reading every byte back as it was. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/base/shell.h"
#include "src/base/util.h"

static void test_shell__quote__single_quotes_posix(void **state)
{
    (void)state;
    cleanup_free char *q = cp_shell_quoted("it's $HOME");
    assert_string_equal(q, "'it'\\''s $HOME'");
    cleanup_free char *e = cp_shell_quoted("");
    assert_string_equal(e, "''");
    cleanup_free char *qq = cp_shell_quoted("''");
    assert_string_equal(qq, "''\\'''\\'''");
}

static void test_shell__quote_argv__spaces_between_only(void **state)
{
    (void)state;
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, 1024);
    const char *const argv[] = {"/bin/sh", "-c", "a b", NULL};
    assert_int_equal(cp_shell_quote_argv(&b, argv), 0);
    assert_string_equal(b.data, "'/bin/sh' '-c' 'a b'");
    cleanup_buf struct cp_buf small;
    cp_buf_init(&small, 4);
    assert_int_equal(cp_shell_quote_argv(&small, argv), -1);
}

static void test_shell__command__the_callers_forms(void **state)
{
    (void)state;
    cleanup_free char *plain = cp_shell_command("sh", "cd '/w' && exec 'x'", NULL, NULL);
    assert_string_equal(plain, "sh -c 'cd '\\''/w'\\'' && exec '\\''x'\\'''");
    const char *const args[] = {"a b", "it's", NULL};
    cleanup_free char *named = cp_shell_command("sh", "S", "conch-mirror", args);
    assert_string_equal(named, "sh -c 'S' conch-mirror 'a b' 'it'\\''s'");
    cleanup_free char *odd = cp_shell_command("exec /bin/sh", "S", "a name", NULL);
    assert_string_equal(odd, "exec /bin/sh -c 'S' 'a name'");
}

/* What sh makes of the line: each argument printed back between brackets. */
static void test_shell__command__sh_reads_back_every_byte(void **state)
{
    (void)state;
    const char *const args[] = {"it's", "$HOME `id` \\ \"x\"", "", "new\nline", "*", NULL};
    cleanup_free char *cmd =
        cp_shell_command("exec /bin/sh", "for a; do printf '[%s]' \"$a\"; done; printf '%s' \"$0\"",
                         "conch-test", args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[256] = "";
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    assert_string_equal(out, "[it's][$HOME `id` \\ \"x\"][][new\nline][*]conch-test");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shell__quote__single_quotes_posix),
        cmocka_unit_test(test_shell__quote_argv__spaces_between_only),
        cmocka_unit_test(test_shell__command__the_callers_forms),
        cmocka_unit_test(test_shell__command__sh_reads_back_every_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
