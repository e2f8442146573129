/* Unit tests for the sidecar's CA on disk (made once, the person's alone, refused when others may
 * read it) and egress.ca_file's text. The box's bundle is read from real images in
 * tests/integration/egress-tls.test. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "places/container/seal/egress-trust.h"
#include "egress/terminate/ca.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static char scratch[] = "/tmp/conch-test-trust-XXXXXX";

static int setup(void **state)
{
    if (mkdtemp(scratch) == NULL)
        return -1;
    setenv("CONCH_HOME", scratch, 1);
    return 0;
}

/* Only the CA's file and its folder are ever made here. */
static int teardown(void **state)
{
    cleanup_free char *ca = xasprintf("%s/egress/ca.pem", scratch);
    cleanup_free char *dir = xasprintf("%s/egress", scratch);
    unlink(ca);
    rmdir(dir);
    return rmdir(scratch);
}

static char *ca_path(void)
{
    return xasprintf("%s/egress/ca.pem", scratch);
}

static void test_ca__first_use__made_once_and_private(void **state)
{
    cleanup_free char *path = ca_path();
    unlink(path);
    cleanup_free char *a = NULL, *b = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_egress_ca_from_home(&a, &err), 0);
    assert_int_equal(cp_egress_ca_from_home(&b, &err), 0);
    assert_string_equal(a, b); /* the second run reads the first one's */
    assert_non_null(strstr(a, "PRIVATE KEY"));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

/* Two first runs at once keep one CA: the loser of the link reads the winner's. */
static void test_ca__two_first_runs__one_ca(void **state)
{
    cleanup_free char *path = ca_path();
    unlink(path);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t kids[2];
    for (int i = 0; i < 2; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            char *pem = NULL;
            cp_error_t err = NULL;
            char fp[65] = {0};
            if (cp_egress_ca_from_home(&pem, &err) < 0 ||
                cp_egress_ca_fingerprint(pem, fp, &err) < 0)
                _exit(1);
            _exit(write(fds[1], fp, 64) == 64 ? 0 : 1);
        }
    }
    close(fds[1]);
    char both[129] = {0};
    assert_int_equal(cp_read_full(fds[0], both, 128, 10000), 0);
    close(fds[0]);
    for (int i = 0; i < 2; i++) {
        int status = 0;
        waitpid(kids[i], &status, 0);
        assert_int_equal(status, 0);
    }
    assert_memory_equal(both, both + 64, 64);
}

static void test_ca__open_to_others__refused(void **state)
{
    cleanup_free char *path = ca_path(), *pem = NULL, *again = NULL;
    cleanup_error cp_error_t err = NULL, err2 = NULL;
    assert_int_equal(cp_egress_ca_from_home(&pem, &err), 0);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(cp_egress_ca_from_home(&again, &err2), CP_ERR_UNSAFE);
    assert_non_null(strstr(err2->msg, "not yours alone"));
    assert_null(again);
    assert_int_equal(chmod(path, 0600), 0);
}

static void test_ca__not_a_ca__refused_with_a_way_on(void **state)
{
    cleanup_free char *path = ca_path(), *pem = NULL, *seed = NULL;
    cleanup_error cp_error_t err = NULL, err2 = NULL;
    assert_int_equal(cp_egress_ca_from_home(&seed, &err), 0); /* the folder */
    assert_int_equal(cp_write_file_atomic(path, "junk\n", 5, 0600, &err), 0);
    assert_true(cp_egress_ca_from_home(&pem, &err2) < 0);
    assert_non_null(err2->hint);
    assert_non_null(strstr(err2->hint, "rm "));
}

static void test_extra_trust__unset__null(void **state)
{
    cleanup_free char *text = NULL;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_egress_extra_trust(NULL, &text, &err), 0);
    assert_null(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ca__first_use__made_once_and_private),
        cmocka_unit_test(test_ca__two_first_runs__one_ca),
        cmocka_unit_test(test_ca__open_to_others__refused),
        cmocka_unit_test(test_ca__not_a_ca__refused_with_a_way_on),
        cmocka_unit_test(test_extra_trust__unset__null),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
