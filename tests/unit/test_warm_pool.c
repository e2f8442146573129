/* The warm pool's files (warm-pool.h): records counted while young and dropped when old, the
 * pace that sizes the pool, and the hand-over of used boxes to a maker at work, which never
 * leaves a box with a maker that has gone. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "places/container/warm/warm-pool.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define POOL "0123456789abcdef"

/* A box id: 64 hex digits, all c. */
static char ids[8][65];
static const char *ID(char c)
{
    static int next;
    char *id = ids[next++ % 8];
    memset(id, c, 64);
    id[64] = '\0';
    return id;
}

static char home[] = "/tmp/conch-warm-pool-XXXXXX";

static char *pool_file(const char *name)
{
    return xasprintf("%s/workplaces/warm/" POOL ".%s", home, name);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void records_counted_while_young(void **state)
{
    (void)state;
    assert_int_equal(cp_warm_pool_ready(POOL), 0);
    assert_int_equal(cp_warm_pool_add(POOL, "conch-warm-00000000000000aa", ID('a'), NULL), 0);
    assert_int_equal(cp_warm_pool_add(POOL, "conch-warm-00000000000000bb", ID('b'), NULL), 0);
    assert_int_equal(cp_warm_pool_ready(POOL), 2);
    /* One made long ago is past its claim and goes; one not of our shape is not a record. */
    char *old = pool_file("conch-warm-00000000000000cc");
    cleanup_free char *text = xasprintf("%s %lld\n", ID('c'), (long long)time(NULL) - 1000);
    write_file(old, text);
    char *odd = pool_file("not-a-warm-box");
    cleanup_free char *odd_text = xasprintf("%s 1\n", ID('d'));
    write_file(odd, odd_text);
    assert_int_equal(cp_warm_pool_ready(POOL), 2);
    assert_int_not_equal(access(old, F_OK), 0);
    /* Another pool's records are not this one's. */
    assert_int_equal(cp_warm_pool_ready("fedcba9876543210"), 0);
    free(old);
    free(odd);
}

static void pace_sizes_the_pool(void **state)
{
    (void)state;
    const char *pool = "aaaaaaaaaaaaaaaa";
    /* Runs far apart keep one box; runs on each other's heels one more each, up to the most. Each
     * run's time is given, never read from the clock, so a stalled test cannot widen the gaps. */
    cleanup_free char *path = xasprintf("%s/workplaces/warm/%s.pace", home, pool);
    long long now = 1800000000000LL;
    cleanup_free char *apart = xasprintf("%lld\n%lld\n", now - 30000, now - 15000);
    write_file(path, apart);
    assert_int_equal(cp_warm_pool_pace_at(pool, now), 1);
    assert_int_equal(cp_warm_pool_pace_at(pool, now + 100), 2); /* at once after the last */
    assert_int_equal(cp_warm_pool_pace_at(pool, now + 200), 3);
    for (int i = 0; i < 20; i++)
        cp_warm_pool_pace_at(pool, now + 300 + i * 100);
    assert_int_equal(cp_warm_pool_pace_at(pool, now + 2400), CP_WARM_POOL_MAX);
    /* A minute later the close runs have left the window. */
    assert_int_equal(cp_warm_pool_pace_at(pool, now + 2400 + 61000), 1);
    /* A run a moment after that one is close again. */
    assert_int_equal(cp_warm_pool_pace_at(pool, now + 2400 + 61100), 2);
}

static void hand_over_only_to_a_maker_at_work(void **state)
{
    (void)state;
    const char *pool = "bbbbbbbbbbbbbbbb";
    /* No maker: the run keeps its box and starts its own work. */
    assert_int_equal(cp_warm_pool_hand_over(pool, ID('1'), "conch-1-2-3"), 0);
    int maker = cp_warm_pool_lock(pool, NULL);
    assert_true(maker >= 0);
    /* A second maker is refused while one is at work. */
    assert_true(cp_warm_pool_lock(pool, NULL) < 0);
    assert_int_equal(cp_warm_pool_hand_over(pool, ID('1'), "conch-1-2-3"), 1);
    assert_int_equal(cp_warm_pool_hand_over(pool, ID('2'), NULL), 1);
    /* Not of our shape: never written where the maker reads. */
    assert_int_equal(cp_warm_pool_hand_over(pool, "x y\nz", NULL), 0);
    struct cp_warm_used used[4];
    assert_int_equal(cp_warm_pool_take_used(pool, &maker, used, 4), 2);
    assert_string_equal(used[0].id, ID('1'));
    assert_string_equal(used[0].layer, "conch-1-2-3");
    assert_string_equal(used[1].id, ID('2'));
    assert_string_equal(used[1].layer, "");
    assert_true(maker >= 0); /* it read boxes: it looks once more before it leaves */
    assert_int_equal(cp_warm_pool_take_used(pool, &maker, used, 4), 0);
    assert_int_equal(maker, -1);
    /* Gone: the next run starts its own work again. */
    assert_int_equal(cp_warm_pool_hand_over(pool, ID('3'), NULL), 0);
}

static void names(void **state)
{
    (void)state;
    char *a = cp_warm_pool_name("/run/docker.sock", "key");
    char *b = cp_warm_pool_name("/run/podman/podman.sock", "key");
    assert_true(cp_warm_pool_name_ok(a));
    assert_string_not_equal(a, b);
    assert_false(cp_warm_pool_name_ok("../../etc/passwd"));
    assert_false(cp_warm_pool_name_ok("0123456789ABCDEF"));
    free(a);
    free(b);
}

int main(void)
{
    if (mkdtemp(home) == NULL)
        return 1;
    setenv("CONCH_HOME", home, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(records_counted_while_young),
        cmocka_unit_test(pace_sizes_the_pool),
        cmocka_unit_test(hand_over_only_to_a_maker_at_work),
        cmocka_unit_test(names),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    cleanup_free char *rm = xasprintf("rm -rf '%s'", home);
    FILE *p = popen(rm, "r");
    if (p == NULL || pclose(p) != 0)
        r = 1;
    return r;
}
