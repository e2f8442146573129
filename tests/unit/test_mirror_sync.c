/* The mirror end to end over the local transport (the far side is a folder run by /bin/sh):
 * listing, manifest, push, pull, deletions (abuse-cases.md Part B), the outbound cases of
 * Part C, and a round-trip property over random trees with awkward names. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mirror/far.h"
#include "mirror/landing.h"
#include "mirror/listing.h"
#include "mirror/manifest.h"
#include "mirror/sync.h"
#include "mirror/transport.h"
#include "src/base/paths.h"
#include "src/base/util.h"
#include "tests/mirror/scratch.h"
#include "tests/unit/wait.h"

static struct scratch S;
static char far[128], home[128], manifest[256];
/* One run: its push and its pull share what they learn of the copy. */
static struct cp_mirror_session SESS;
static char said[65536];

static void collect(void *ctx, const char *line)
{
    size_t used = strlen(said);
    snprintf(said + used, sizeof(said) - used, "%s\n", line);
}

/* A transport that runs the real scripts locally but lets a test swap one for its own, and
 * records the argv every command got. */
struct test_transport {
    struct cp_transport base;
    struct cp_transport *inner;
    const char *replace_pack; /* script run instead of the pack script, or NULL */
    char argv_seen[4096];
};
static struct cp_transport_ops test_ops;
static struct test_transport T;

static int wrapper_start(struct cp_transport *t, const char *script, const char *const *argv,
                         struct cp_far_proc **out, cp_error_t *err)
{
    struct test_transport *tt = (struct test_transport *)t;
    for (size_t i = 0; argv[i] != NULL; i++) {
        size_t used = strlen(tt->argv_seen);
        snprintf(tt->argv_seen + used, sizeof(tt->argv_seen) - used, "[%s]", argv[i]);
    }
    if (script == cp_far_pack_script && tt->replace_pack != NULL)
        script = tt->replace_pack;
    return tt->inner->ops->start(tt->inner, script, argv, out, err);
}

static void wrapper_free(struct cp_transport *t)
{
    (void)t;
}

static int setup(void **state)
{
    if (scratch_make(&S) < 0)
        return -1;
    snprintf(far, sizeof(far), "%s/far", S.top);
    snprintf(home, sizeof(home), "%s/home", S.top);
    mkdir(home, 0700);
    setenv("CONCH_HOME", home, 1);
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *m = NULL;
    if (cp_manifest_path("ssh:test", "chat 1/x", 1, &m, &err) < 0)
        return -1;
    snprintf(manifest, sizeof(manifest), "%s", m);
    said[0] = 0;
    memset(&T, 0, sizeof(T));
    test_ops = *(cp_transport_local_new(&T.inner, &err), T.inner->ops);
    test_ops.start = wrapper_start;
    test_ops.free = wrapper_free;
    T.base.ops = &test_ops;
    return 0;
}

static int teardown(void **state)
{
    cp_mirror_session_dispose(&SESS);
    cp_transport_free(T.inner);
    scratch_remove(&S);
    return 0;
}

static struct cp_mirror_opts opts(void)
{
    return (struct cp_mirror_opts){
        .rootfd = S.workfd, .far_root = far, .manifest_path = manifest, .session = &SESS};
}

/* A push starts a run: what the last run learned is forgotten. */
static int push(struct cp_mirror_report *rep)
{
    cp_mirror_session_dispose(&SESS);
    struct cp_mirror_opts o = opts();
    memset(rep, 0, sizeof(*rep));
    rep->say = collect;
    cleanup_error cp_error_t err = NULL;
    int rc = cp_mirror_push(&T.base, &o, rep, &err);
    if (err != NULL)
        collect(NULL, err->msg);
    return rc;
}

static int pull(struct cp_mirror_report *rep)
{
    struct cp_mirror_opts o = opts();
    memset(rep, 0, sizeof(*rep));
    rep->say = collect;
    cleanup_error cp_error_t err = NULL;
    int rc = cp_mirror_pull(&T.base, &o, rep, &err);
    if (err != NULL)
        collect(NULL, err->msg);
    return rc;
}

static void assert_canary(void)
{
    cleanup_free char *c = get_file(S.out, "canary");
    assert_non_null(c);
    assert_string_equal(c, CANARY_TEXT);
    assert_int_equal(count_tree(S.out), 1);
}

static void assert_said(const char *text)
{
    if (strstr(said, text) == NULL)
        fail_msg("expected '%s' in:\n%s", text, said);
}

/* Same carried files with the same bytes on both sides. */
static void assert_same_trees(void)
{
    cleanup_close int farfd = open(far, O_RDONLY | O_DIRECTORY);
    assert_true(farfd >= 0);
    cleanup_listing struct cp_listing a = {0};
    cleanup_listing struct cp_listing b = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_listing_local(S.workfd, NULL, NULL, &a, NULL, &err), 0);
    assert_int_equal(cp_listing_local(farfd, NULL, NULL, &b, NULL, &err), 0);
    /* The copy's id is the far side's own, never carried. */
    for (size_t i = 0; i < b.n; i++)
        if (strcmp(b.v[i].path, CP_MIRROR_ID_NAME) == 0) {
            free(b.v[i].path);
            memmove(&b.v[i], &b.v[i + 1], (b.n - i - 1) * sizeof(b.v[0]));
            b.n--;
            break;
        }
    for (size_t i = 0; i < a.n && i < b.n; i++) {
        cleanup_free char *x = get_file(S.work, a.v[i].path);
        cleanup_free char *y = get_file(far, b.v[i].path);
        assert_string_equal(a.v[i].path, b.v[i].path);
        assert_non_null(x);
        assert_non_null(y);
        assert_string_equal(x, y);
    }
    assert_int_equal(a.n, b.n);
}

/* Every awkward byte a name may hold and still be carried: no NUL, '/' or control byte. */
static const char *const awkward[] = {
    "plain.txt",        "with space.txt",   "-leading-dash",
    "--help",           "quote'single",     "quote\"double",
    "back\\slash",      "$(touch pwn)",     "`id`",
    "a;reboot #.c",     "glob*?[x]",        "latin1-\xe9\xff.bin",
    "utf8-caf\xc3\xa9", "dir with space/f", "-d/--/-x",
    "trailing space ",
};

static void test_sync__awkward_names__round_trip(void **state)
{
    struct cp_mirror_report rep;
    for (size_t i = 0; i < ARRAY_SIZE(awkward); i++)
        put_file(S.work, awkward[i], awkward[i]);
    put_file(S.work, "new\nline", "not carried");
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, ARRAY_SIZE(awkward));
    assert_said("not carried: new\\x0aline (control character in name)");
    assert_false(exists_nofollow(far, "new\nline"));
    assert_false(exists_nofollow(S.top, "pwn"));
    assert_false(exists_nofollow(far, "pwn"));
    assert_same_trees();
    /* Names travel in the streams only: the far root is the one argument, with the new
     * copy's id (32 hex digits) for the first unpack. The probe came first. */
    cleanup_free char *want = xasprintf("[%s][%s][", far, far);
    assert_memory_equal(T.argv_seen, want, strlen(want));
    assert_int_equal(strlen(T.argv_seen), strlen(want) + 32 + 1);
    assert_int_equal(strspn(T.argv_seen + strlen(want), "0123456789abcdef"), 32);
    /* Change each one there; all come back. */
    for (size_t i = 0; i < ARRAY_SIZE(awkward); i++)
        put_file(far, awkward[i], "changed there, longer than before");
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.landed, ARRAY_SIZE(awkward));
    assert_same_trees();
}

/* The far listing's two forms, with a name holding a newline and records that must not
 * be believed: a folder, a damaged line, a name without "./", a name listed twice. */
static void test_listing__far_forms__newlines_paired_damage_skipped(void **state)
{
    static const char v2[] = "conch-list 2\n"
                             "f 644 3 1700000000.5 1700000001.25 ./a\nb\0"
                             "d 755 4096 1 1 ./dir\0"
                             "f 644 x 1 1 ./damaged\0"
                             "f 644 1 1 1 plain\0"
                             "f 600 7 2 2 ./twice\0"
                             "f 600 7 2 2 ./twice\0"
                             "f 4755 9 3 4 ./c d\0";
    static const char v1[] = "conch-list 1\n"
                             "./a\nb\0./gone\0./c d\0\0"
                             "81a4 3 1700000000.5 1700000001.25 ./a\nb\n"
                             "81ed 9 3 4 ./c d\n";
    cleanup_error cp_error_t err = NULL;
    for (int form = 0; form < 2; form++) {
        cleanup_listing struct cp_listing l = {0};
        const char *data = form ? v1 : v2;
        size_t len = form ? sizeof(v1) - 1 : sizeof(v2) - 1;
        assert_int_equal(cp_listing_parse_far(data, len, 100, &l, &err), 0);
        assert_int_equal(l.n, 2);
        assert_string_equal(l.v[0].path, "a\nb");
        assert_int_equal(l.v[0].sig.size, 3);
        assert_int_equal(l.v[0].sig.mtime_ns, 1700000000500000000LL);
        assert_int_equal(l.v[0].sig.ctime_ns, 1700000001250000000LL);
        assert_int_equal(l.v[0].sig.mode, 0644);
        assert_string_equal(l.v[1].path, "c d");
        assert_int_equal(l.v[1].sig.mode, form ? 0755 : 04755);
    }
    cleanup_listing struct cp_listing l = {0};
    assert_true(cp_listing_parse_far(v2, sizeof(v2) - 1, 3, &l, &err) < 0);
}

/* The far side with only busybox's find, stat and xargs (no -printf): the POSIX form. */
static void test_sync__posix_far_tools__awkward_names_round_trip(void **state)
{
    if (access("/bin/busybox", X_OK) != 0 && access("/usr/bin/busybox", X_OK) != 0)
        skip();
    cleanup_free char *bin = xasprintf("%s/bin", S.top);
    mkdir(bin, 0755);
    static const char *const tools[] = {"find", "stat", "xargs"};
    for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
        cleanup_free char *shim = xasprintf("#!/bin/sh\nexec busybox %s \"$@\"\n", tools[i]);
        put_file(bin, tools[i], shim);
        cleanup_free char *path = xasprintf("%s/%s", bin, tools[i]);
        chmod(path, 0755);
    }
    cleanup_free char *old = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    cleanup_free char *path = xasprintf("%s:%s", bin, old);
    setenv("PATH", path, 1);
    test_sync__awkward_names__round_trip(state);
    put_file(far, "new\nline there", "not brought back");
    put_file(far, awkward[0], "and this one changed");
    struct cp_mirror_report rep;
    int rc = pull(&rep);
    setenv("PATH", old, 1);
    assert_int_equal(rc, 0);
    assert_int_equal(rep.landed, 1);
    assert_said("not brought back: new\\x0aline there (control character in name)");
    assert_false(exists_nofollow(S.work, "new\nline there"));
}

/* A far script killed by SIGKILL leaves its scratch folder: the next script removes ours older
 * than a day, and keeps a young one (a transfer under way), another name and its own clean. */
static void test_scratch__killed_scripts_leftovers__swept_after_a_day(void **state)
{
    cleanup_free char *tmp = xasprintf("%s/tmp", S.top);
    mkdir(tmp, 0700);
    static const char *const names[] = {"conch-mirror.old", "conch-mirror.young", "other.old"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        cleanup_free char *dir = xasprintf("%s/%s", tmp, names[i]);
        mkdir(dir, 0700);
        put_file(dir, "left", "by a killed script");
        if (strstr(names[i], "old") != NULL) {
            struct timespec two_days[2] = {{.tv_sec = time(NULL) - 2 * 86400},
                                           {.tv_sec = time(NULL) - 2 * 86400}};
            assert_int_equal(utimensat(AT_FDCWD, dir, two_days, 0), 0);
        }
    }
    cleanup_free char *old_tmpdir = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", tmp, 1);
    put_file(S.work, "a", "one file");
    struct cp_mirror_report rep;
    int rc = push(&rep);
    if (old_tmpdir != NULL)
        setenv("TMPDIR", old_tmpdir, 1);
    else
        unsetenv("TMPDIR");
    assert_int_equal(rc, 0);
    assert_int_equal(rep.sent, 1); /* the scripts ran */
    assert_false(exists_nofollow(tmp, "conch-mirror.old"));
    assert_true(exists_nofollow(tmp, "conch-mirror.young"));
    assert_true(exists_nofollow(tmp, "other.old"));
    /* Each script removed its own: only the young one is left of ours. */
    cleanup_free char *count = xasprintf("ls -d '%s'/conch-mirror.* | wc -l", tmp);
    FILE *p = popen(count, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    assert_int_equal(n, 1);
}

static void test_sync__changes_there__come_back_with_deletions(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    put_file(S.work, "src/b.c", "b");
    put_file(S.work, "gone.txt", "g");
    assert_int_equal(push(&rep), 0);
    put_file(far, "src/b.c", "b changed there");
    put_file(far, "new/deep/c.txt", "new there");
    cleanup_free char *gone = xasprintf("%s/gone.txt", far);
    unlink(gone);
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.landed, 2);
    assert_int_equal(rep.deleted_here, 1);
    assert_same_trees();
    /* Nothing changed: a second pull lands nothing. */
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.landed, 0);
    /* A local change and a local deletion go there. */
    put_file(S.work, "a.txt", "a changed here");
    cleanup_free char *b = xasprintf("%s/src/b.c", S.work);
    unlink(b);
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 1);
    assert_same_trees();
}

static void test_sync__changed_both_sides__local_kept_far_beside(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "notes.md", "H1");
    assert_int_equal(push(&rep), 0);
    put_file(far, "notes.md", "H3 there");
    put_file(S.work, "notes.md", "H2 here");
    assert_int_equal(pull(&rep), 0);
    cleanup_free char *mine = get_file(S.work, "notes.md");
    cleanup_free char *theirs = get_file(S.work, "notes.md.conch-far");
    assert_string_equal(mine, "H2 here");
    assert_string_equal(theirs, "H3 there");
    assert_said("changed on both sides");
    /* The next push makes the far side agree with yours. */
    assert_int_equal(push(&rep), 0);
    cleanup_free char *there = get_file(far, "notes.md");
    assert_string_equal(there, "H2 here");
}

/* Part B 46 */
static void test_delete__changed_here_meanwhile__kept(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "notes.md", "H1");
    assert_int_equal(push(&rep), 0);
    cleanup_free char *there = xasprintf("%s/notes.md", far);
    unlink(there);
    assert_true(wait_fs_tick() > 0); /* the edit's times are not H1's either */
    put_file(S.work, "notes.md", "H2 edited here");
    assert_int_equal(pull(&rep), 0);
    cleanup_free char *mine = get_file(S.work, "notes.md");
    assert_string_equal(mine, "H2 edited here");
    assert_said("changed here since the last sync");
}

/* Part B 47 */
static void test_delete__failed_pull__no_deletion_applied(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    put_file(S.work, "b.txt", "b");
    assert_int_equal(push(&rep), 0);
    cleanup_free char *b = xasprintf("%s/b.txt", far);
    unlink(b);
    put_file(far, "a.txt", "a changed");
    T.replace_pack = "cat >/dev/null; printf 'truncated'; exit 1";
    assert_int_not_equal(pull(&rep), 0);
    assert_true(exists_nofollow(S.work, "b.txt"));
    cleanup_free char *a = get_file(S.work, "a.txt");
    assert_string_equal(a, "a");
    assert_int_equal(rep.deleted_here, 0);
}

/* Issue 20: the far pack sends a whole, well-formed archive of what was asked, then exits
 * non-zero (a tar that warned, a disk error after the last block): its status is the word on
 * whether the archive can be trusted, so nothing lands and nothing is deleted. */
static void test_pull__whole_archive_then_far_failure__nothing_lands(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    put_file(S.work, "b.txt", "b");
    assert_int_equal(push(&rep), 0);
    cleanup_free char *b = xasprintf("%s/b.txt", far);
    unlink(b);
    put_file(far, "a.txt", "a changed");
    put_file(far, "new.txt", "new there");
    cleanup_free char *script = xasprintf("(\n%s\n) || exit 9\nexit 3\n", cp_far_pack_script);
    T.replace_pack = script;
    assert_int_not_equal(pull(&rep), 0);
    assert_said("status 3");
    cleanup_free char *a = get_file(S.work, "a.txt");
    assert_string_equal(a, "a");
    assert_false(exists_nofollow(S.work, "new.txt"));
    assert_true(exists_nofollow(S.work, "b.txt"));
    assert_int_equal(rep.landed, 0);
    assert_int_equal(rep.deleted_here, 0);
    /* The same wrapped pack with a zero status lands it all: the archive itself was whole. */
    cleanup_free char *fine = xasprintf("(\n%s\n) || exit 9\nexit 0\n", cp_far_pack_script);
    T.replace_pack = fine;
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.landed, 2);
    cleanup_free char *a2 = get_file(S.work, "a.txt");
    assert_string_equal(a2, "a changed");
}

/* Part B 44 (the "everything" list) */
static void test_delete__far_deleted_everything__nothing_deleted_here(void **state)
{
    struct cp_mirror_report rep;
    for (int i = 0; i < 12; i++) {
        char name[16];
        snprintf(name, sizeof(name), "f%d", i);
        put_file(S.work, name, "x");
    }
    assert_int_equal(push(&rep), 0);
    for (int i = 0; i < 12; i++) {
        cleanup_free char *f = xasprintf("%s/f%d", far, i);
        unlink(f);
    }
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.deleted_here, 0);
    assert_int_equal(count_tree(S.work), 12);
    assert_said("deleted all 12 files");
}

/* Part B 45 */
static void test_delete__never_mirrored_file__not_deleted(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    assert_int_equal(push(&rep), 0);
    put_file(S.work, "never-mirrored.txt", "mine");
    assert_int_equal(pull(&rep), 0);
    assert_true(exists_nofollow(S.work, "never-mirrored.txt"));
}

/* Part B 41-45 on the deletion itself. */
static void test_delete__through_symlinked_folder__refused(void **state)
{
    put_file(S.out, "old.txt", "outside");
    cleanup_free char *link = xasprintf("%s/cache", S.work);
    assert_int_equal(symlink(S.out, link), 0);
    /* The file's real signature, so that only the walk that follows no link can refuse. */
    struct stat st;
    cleanup_free char *old = xasprintf("%s/old.txt", S.out);
    assert_int_equal(lstat(old, &st), 0);
    struct cp_sig real;
    cp_sig_from_stat(&st, &real);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_landing_delete(S.workfd, NULL, "cache/old.txt", &real, NULL, &err), 0);
    assert_true(exists_nofollow(S.out, "old.txt"));
}

static void test_delete__link_folder_and_fifo__refused(void **state)
{
    cleanup_free char *canary = xasprintf("%s/canary", S.out);
    cleanup_free char *link = xasprintf("%s/link", S.work);
    cleanup_free char *fifo = xasprintf("%s/fifo", S.work);
    cleanup_free char *dir = xasprintf("%s/src", S.work);
    assert_int_equal(symlink(canary, link), 0);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    const char *names[] = {"link", "fifo", "src"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        struct stat st;
        struct cp_sig sig = {0};
        cleanup_error cp_error_t err = NULL;
        cleanup_free char *p = xasprintf("%s/%s", S.work, names[i]);
        assert_int_equal(lstat(p, &st), 0);
        cp_sig_from_stat(&st, &sig);
        assert_int_equal(cp_landing_delete(S.workfd, NULL, names[i], &sig, NULL, &err), 0);
        assert_true(exists_nofollow(S.work, names[i]));
    }
    assert_canary();
}

static void test_delete__multiply_linked_file__refused(void **state)
{
    put_file(S.out, "store", "shared");
    cleanup_free char *store = xasprintf("%s/store", S.out);
    cleanup_free char *lib = xasprintf("%s/x.js", S.work);
    assert_int_equal(link(store, lib), 0);
    struct stat st;
    struct cp_sig sig;
    assert_int_equal(lstat(lib, &st), 0);
    cp_sig_from_stat(&st, &sig);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_landing_delete(S.workfd, NULL, "x.js", &sig, NULL, &err), 0);
    assert_true(exists_nofollow(S.work, "x.js"));
}

static void test_delete__root_dot_dotdot_absolute__refused(void **state)
{
    const char *names[] = {"", ".", "./", "..", "src/..", "/etc/passwd", "../outside/canary"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        struct cp_sig sig = {0};
        cleanup_error cp_error_t err = NULL;
        assert_int_equal(cp_landing_delete(S.workfd, NULL, names[i], &sig, NULL, &err), 0);
    }
    assert_canary();
}

static void test_delete__protected_and_dependency__refused(void **state)
{
    const char *names[] = {".git/config", ".git", "node_modules/react/index.js", ".env"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (strcmp(names[i], ".git") != 0)
            put_file(S.work, names[i], "x");
        struct stat st;
        struct cp_sig sig = {0};
        cleanup_free char *p = xasprintf("%s/%s", S.work, names[i]);
        if (lstat(p, &st) == 0)
            cp_sig_from_stat(&st, &sig);
        cleanup_error cp_error_t err = NULL;
        assert_int_equal(cp_landing_delete(S.workfd, NULL, names[i], &sig, NULL, &err), 0);
    }
    assert_true(exists_nofollow(S.work, ".git/config"));
    assert_true(exists_nofollow(S.work, "node_modules/react/index.js"));
    assert_true(exists_nofollow(S.work, ".env"));
}

/* Part C 48 */
static void test_push__symlink_to_secret__never_followed(void **state)
{
    struct cp_mirror_report rep;
    cleanup_free char *canary = xasprintf("%s/canary", S.out);
    cleanup_free char *creds = xasprintf("%s/creds", S.work);
    cleanup_free char *keys = xasprintf("%s/keys", S.work);
    assert_int_equal(symlink(canary, creds), 0);
    assert_int_equal(symlink(S.out, keys), 0);
    put_file(S.work, "a.txt", "a");
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.links, 2);
    assert_false(exists_nofollow(far, "creds"));
    assert_false(exists_nofollow(far, "keys"));
    assert_int_equal(count_tree(far), 2); /* a.txt and the copy's id */
    assert_true(exists_nofollow(far, CP_MIRROR_ID_NAME));
}

static void test_listing__left_out_places__counted_not_followed(void **state)
{
    struct cp_mirror_report rep = {.say = collect};
    put_file(S.work, "node_modules/x/index.js", "x");
    put_file(S.work, "sub/.venv/bin/python", "x");
    put_file(S.work, ".env", "SECRET=1");
    put_file(S.work, ".ssh/id_ed25519", "key");
    put_file(S.work, ".git/hooks/pre-commit", "x");
    put_file(S.work, ".git/HEAD", "ref: refs/heads/main\n");
    put_file(S.work, "src/main.c", "int main;");
    cleanup_free char *l = xasprintf("%s/loop", S.work);
    assert_int_equal(symlink(".", l), 0);
    cleanup_listing struct cp_listing out = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_listing_local(S.workfd, NULL, NULL, &out, &rep, &err), 0);
    assert_int_equal(out.n, 2);
    assert_string_equal(out.v[0].path, ".git/HEAD");
    assert_string_equal(out.v[1].path, "src/main.c");
    assert_int_equal(rep.links, 1);
    assert_int_equal(rep.dep_folders, 2);
    assert_int_equal(rep.protected_places, 2);
}

static void test_listing__over_limits__refused_with_container_advice(void **state)
{
    for (int i = 0; i < 11; i++) {
        char name[16];
        snprintf(name, sizeof(name), "f%d", i);
        put_file(S.work, name, "x");
    }
    struct cp_limits lim = {10, 1 << 20};
    cleanup_listing struct cp_listing out = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_listing_local(S.workfd, NULL, &lim, &out, NULL, &err), CP_ERR_TOO_BIG);
    assert_non_null(strstr(err->hint, "container"));
}

static void test_manifest__damaged__refused_with_hint(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    assert_int_equal(push(&rep), 0);
    cleanup_manifest struct cp_manifest m = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_manifest_load(manifest, &m, &err), 0);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.v[0].path, "a.txt");
    FILE *f = fopen(manifest, "a");
    fputs("junk", f);
    fclose(f);
    cleanup_manifest struct cp_manifest m2 = {0};
    cleanup_error cp_error_t err2 = NULL;
    assert_int_not_equal(cp_manifest_load(manifest, &m2, &err2), 0);
    assert_non_null(strstr(err2->hint, "Delete it"));
}

/* Round trips over random trees: push, change the far side at random, pull, compare. */
static void random_name(unsigned *seed, char *out, size_t cap)
{
    static const char alphabet[] = "ab -'\"\\$`;*?[]{}()&|<>!#%~=+,.:@^\xe9\xff\xc3\xa9";
    size_t n = 1 + (size_t)(rand_r(seed) % 12);
    for (size_t i = 0; i < n && i + 1 < cap; i++)
        out[i] = alphabet[rand_r(seed) % (sizeof(alphabet) - 1)];
    out[n < cap ? n : cap - 1] = 0;
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
        out[0] = 'x';
}

static void random_tree(unsigned *seed, const char *root, int files)
{
    for (int i = 0; i < files; i++) {
        char a[16], b[16];
        random_name(seed, a, sizeof(a));
        random_name(seed, b, sizeof(b));
        cleanup_free char *rel = rand_r(seed) % 2 ? xasprintf("%s/%s", a, b) : xstrdup(a);
        cleanup_free char *text = xasprintf("%d %s", rand_r(seed), rel);
        struct stat st;
        cleanup_free char *dir = xasprintf("%s/%s", root, a);
        if (lstat(dir, &st) == 0 && S_ISREG(st.st_mode) && strchr(rel, '/'))
            continue;
        cleanup_free char *full = xasprintf("%s/%s", root, rel);
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
            continue;
        if (cp_rules_check(NULL, rel) == NULL)
            put_file(root, rel, text);
    }
}

static void change_far(unsigned *seed)
{
    cleanup_close int farfd = open(far, O_RDONLY | O_DIRECTORY);
    cleanup_listing struct cp_listing l = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_listing_local(farfd, NULL, NULL, &l, NULL, &err), 0);
    for (size_t i = 0; i < l.n; i++) {
        if (strcmp(l.v[i].path, CP_MIRROR_ID_NAME) == 0)
            continue;
        int dice = rand_r(seed) % 4;
        cleanup_free char *p = xasprintf("%s/%s", far, l.v[i].path);
        if (dice == 0)
            unlink(p);
        else if (dice == 1)
            put_file(far, l.v[i].path, "changed on the far side, a different length");
    }
    random_tree(seed, far, 5);
}

static void test_sync__random_trees__round_trip_property(void **state)
{
    for (unsigned round = 0; round < 4; round++) {
        unsigned seed = 1234 + round;
        rm_tree(far);
        unlink(manifest);
        close(S.workfd);
        rm_tree(S.work);
        mkdir(S.work, 0755);
        S.workfd = open(S.work, O_RDONLY | O_DIRECTORY);
        random_tree(&seed, S.work, 40);
        struct cp_mirror_report rep;
        said[0] = 0;
        assert_int_equal(push(&rep), 0);
        assert_same_trees();
        change_far(&seed);
        assert_int_equal(pull(&rep), 0);
        if (rep.refused != 0 || rep.conflicts != 0)
            fail_msg("round %u: unexpected refusals:\n%s", round, said);
        assert_same_trees();
    }
}

/* ---- issue 9: a far copy that proves itself, deletions only of what the command removed,
 * a pull killed at any moment ---- */

static void two_files_synced(void)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    put_file(S.work, "sub/b.txt", "b");
    assert_int_equal(push(&rep), 0);
    assert_int_equal(pull(&rep), 0);
}

static void test_identity__copy_removed_there__all_sent_nothing_deleted(void **state)
{
    struct cp_mirror_report rep;
    two_files_synced();
    rm_tree(far); /* a wiped disk, a re-imaged machine */
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 2);
    cleanup_free char *a = get_file(far, "a.txt");
    cleanup_free char *b = get_file(far, "sub/b.txt");
    assert_string_equal(a, "a");
    assert_string_equal(b, "b");
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.deleted_here, 0);
    assert_true(exists_nofollow(S.work, "a.txt"));
    assert_true(exists_nofollow(S.work, "sub/b.txt"));
}

static void test_identity__copy_replaced_between_push_and_pull__nothing_deleted(void **state)
{
    struct cp_mirror_report rep;
    two_files_synced();
    assert_int_equal(push(&rep), 0);
    rm_tree(far); /* a new sandbox while the command ran */
    mkdir(far, 0755);
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.deleted_here, 0);
    assert_int_equal(count_tree(S.work), 3); /* a.txt, sub, sub/b.txt */
}

static void test_identity__another_copy_id__treated_as_empty(void **state)
{
    struct cp_mirror_report rep;
    two_files_synced();
    put_file(far, CP_MIRROR_ID_NAME, "00000000000000000000000000000000\n");
    cleanup_free char *b = xasprintf("%s/sub/b.txt", far);
    unlink(b);
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 2);
    cleanup_free char *id = get_file(far, CP_MIRROR_ID_NAME);
    assert_string_not_equal(id, "00000000000000000000000000000000\n");
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.deleted_here, 0);
    assert_true(exists_nofollow(far, "sub/b.txt"));
}

static void test_identity__another_place__treated_as_empty(void **state)
{
    struct cp_mirror_report rep;
    struct cp_mirror_opts o = opts();
    o.place_id = "ssh SHA256:one root .conch-place/copies/c/w";
    cleanup_error cp_error_t err = NULL;
    put_file(S.work, "a.txt", "a");
    assert_int_equal(cp_mirror_push(&T.base, &o, NULL, &err), 0);
    cp_mirror_session_dispose(&SESS);
    assert_int_equal(cp_mirror_push(&T.base, &o, &rep, &err), 0);
    assert_false(SESS.fresh);
    cp_mirror_session_dispose(&SESS);
    o.place_id = "ssh SHA256:two root .conch-place/copies/c/w"; /* a host key changed hands */
    assert_int_equal(cp_mirror_push(&T.base, &o, &rep, &err), 0);
    assert_true(SESS.fresh);
}

static void test_delete__removed_there_behind_our_back__sent_again(void **state)
{
    struct cp_mirror_report rep;
    two_files_synced();
    cleanup_free char *b = xasprintf("%s/sub/b.txt", far);
    unlink(b); /* someone else, between two runs */
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 1);
    cleanup_free char *back = get_file(far, "sub/b.txt");
    assert_string_equal(back, "b");
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.deleted_here, 0);
    cleanup_free char *mine = get_file(S.work, "sub/b.txt");
    assert_string_equal(mine, "b");
}

static void test_delete__pull_without_push__deletes_nothing(void **state)
{
    struct cp_mirror_report rep;
    two_files_synced();
    cp_mirror_session_dispose(&SESS); /* a pull that does not know what its push left */
    cleanup_free char *b = xasprintf("%s/sub/b.txt", far);
    unlink(b);
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.deleted_here, 0);
    assert_true(exists_nofollow(S.work, "sub/b.txt"));
}

static void test_manifest__version_1__read_as_no_copy_known(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    cleanup_error cp_error_t err = NULL;
    const char v1[] = "conch-mirror-manifest 1\na.txt\0"
                      "1 0 0 0 644 1 0 0 0 644\n";
    assert_int_equal(cp_write_file_atomic(manifest, v1, sizeof(v1) - 1, 0600, &err), 0);
    struct cp_manifest m = {0};
    assert_int_equal(cp_manifest_load(manifest, &m, &err), 0);
    assert_int_equal(m.n, 1);
    assert_null(m.copy_id);
    cp_manifest_dispose(&m);
    assert_int_equal(push(&rep), 0);
    assert_true(SESS.fresh);
    assert_int_equal(rep.sent, 1);
    assert_int_equal(cp_manifest_load(manifest, &m, &err), 0);
    assert_non_null(m.copy_id);
    assert_int_equal(strlen(m.copy_id), 32);
    cp_manifest_dispose(&m);
}

/* kill -9 at many moments of a pull of many files: each file here is the old or the new one,
 * whole, never missing; the next run brings the rest and sweeps the staging folder. */
static void test_pull__killed_at_any_moment__old_or_new_then_next_run_finishes(void **state)
{
    enum { FILES = 300 };
    struct cp_mirror_report rep;
    char name[32], text[64];
    for (int i = 0; i < FILES; i++) {
        snprintf(name, sizeof(name), "d%d/f%d", i % 7, i);
        snprintf(text, sizeof(text), "old %d", i);
        put_file(S.work, name, text);
    }
    assert_int_equal(push(&rep), 0);
    assert_int_equal(pull(&rep), 0);
    for (int delay_us = 0, round = 0; round < 6; round++, delay_us += 7000) {
        for (int i = 0; i < FILES; i++) {
            snprintf(name, sizeof(name), "d%d/f%d", i % 7, i);
            snprintf(text, sizeof(text), "new %d round %d", i, round);
            put_file(far, name, text);
        }
        assert_int_equal(push(&rep), 0);
        pid_t pid = fork();
        if (pid == 0) {
            cleanup_error cp_error_t err = NULL;
            struct cp_mirror_opts o = opts();
            _exit(cp_mirror_pull(&T.base, &o, NULL, &err) == 0 ? 0 : 1);
        }
        /* The delays only spread the kills over the pull: whatever moment each lands on, the
         * checks below hold, so a busy machine moves the moments and fails nothing. */
        usleep((useconds_t)delay_us);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        for (int i = 0; i < FILES; i++) {
            snprintf(name, sizeof(name), "d%d/f%d", i % 7, i);
            cleanup_free char *got = get_file(S.work, name);
            if (got == NULL)
                fail_msg("round %d: %s missing after kill -9", round, name);
            char want_new[64], want_old[64];
            snprintf(want_new, sizeof(want_new), "new %d round %d", i, round);
            if (round == 0)
                snprintf(want_old, sizeof(want_old), "old %d", i);
            else
                snprintf(want_old, sizeof(want_old), "new %d round %d", i, round - 1);
            if (strcmp(got, want_new) != 0 && strcmp(got, want_old) != 0)
                fail_msg("round %d: %s holds '%s'", round, name, got);
        }
        /* The next run: push (nothing of the far side's new work is lost), then pull. */
        assert_int_equal(push(&rep), 0);
        assert_int_equal(pull(&rep), 0);
        for (int i = 0; i < FILES; i++) {
            snprintf(name, sizeof(name), "d%d/f%d", i % 7, i);
            snprintf(text, sizeof(text), "new %d round %d", i, round);
            cleanup_free char *got = get_file(S.work, name);
            assert_non_null(got);
            if (strcmp(got, text) != 0)
                fail_msg("round %d: %s is '%s' after the next run", round, name, got);
        }
        assert_int_equal(count_tree(S.work), FILES + 7); /* and the 7 folders: no staging left */
    }
}

/* Issue 20, item 8: a project's registry settings reach the far copy as the sealed box sees
 * them, keyless, and what the far side does to them never replaces the ones here. */
static const char NPMRC[] = "registry=https://r.example/\n//r.example/:_authToken=SEKRIT-NPM\n";
static const char YARNRC[] =
    "npmRegistryServer: \"https://y.example\"\nnpmAuthToken: SEKRIT-YARN\n";
static const char PIPCONF[] = "[global]\nindex-url = https://u:SEKRIT-PIP@pypi.example/simple\n";

static void assert_far_keyless(void)
{
    cleanup_free char *npmrc = get_file(far, ".npmrc");
    cleanup_free char *yarnrc = get_file(far, "sub/.yarnrc.yml");
    cleanup_free char *pip = get_file(far, "pip.conf");
    assert_non_null(npmrc);
    assert_non_null(yarnrc);
    assert_non_null(pip);
    assert_null(strstr(npmrc, "SEKRIT"));
    assert_null(strstr(yarnrc, "SEKRIT"));
    assert_null(strstr(pip, "SEKRIT"));
    assert_non_null(strstr(npmrc, "registry=https://r.example/"));
    assert_non_null(strstr(yarnrc, "npmRegistryServer: \"https://y.example\""));
    assert_non_null(strstr(pip, "index-url = https://pypi.example/simple"));
}

static void assert_here_untouched(void)
{
    cleanup_free char *npmrc = get_file(S.work, ".npmrc");
    cleanup_free char *yarnrc = get_file(S.work, "sub/.yarnrc.yml");
    cleanup_free char *pip = get_file(S.work, "pip.conf");
    assert_non_null(npmrc);
    assert_non_null(yarnrc);
    assert_non_null(pip);
    assert_string_equal(npmrc, NPMRC);
    assert_string_equal(yarnrc, YARNRC);
    assert_string_equal(pip, PIPCONF);
}

static void test_keyless__settings_files__sent_without_keys_kept_here(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, ".npmrc", NPMRC);
    put_file(S.work, "sub/.yarnrc.yml", YARNRC);
    put_file(S.work, "pip.conf", PIPCONF);
    put_file(S.work, "a.txt", "a");
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 4);
    assert_far_keyless();
    /* Nothing changed there: nothing comes back, and the keyless copies are agreed as sent. */
    assert_int_equal(pull(&rep), 0);
    assert_int_equal(rep.landed, 0);
    assert_null(strstr(said, "not brought back"));
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 0);
    /* The command rewrites one and removes another: neither reaches the ones here. */
    put_file(far, ".npmrc", "registry=https://elsewhere.example/\n");
    cleanup_free char *pip = xasprintf("%s/pip.conf", far);
    assert_int_equal(unlink(pip), 0);
    assert_int_equal(pull(&rep), 0);
    assert_here_untouched();
    assert_said("not brought back: .npmrc (it went there without its keys");
    assert_said("not deleted here: pip.conf (it went there without its keys");
    assert_int_equal(rep.deleted_here, 0);
    /* The next push puts the keyless copies back there. */
    assert_int_equal(push(&rep), 0);
    assert_far_keyless();
    cleanup_free char *npmrc = get_file(far, ".npmrc");
    assert_null(strstr(npmrc, "elsewhere"));
}

static void test_keyless__settings_over_1mb__not_sent(void **state)
{
    struct cp_mirror_report rep;
    size_t big = 1024 * 1024 + 1;
    cleanup_free char *text = xmalloc(big + 1);
    memset(text, '#', big);
    memcpy(text, "//r.example/:_authToken=SEKRIT\n", 31);
    text[big] = '\0';
    put_file(S.work, ".npmrc", text);
    put_file(S.work, "a.txt", "a");
    assert_int_equal(push(&rep), 0);
    assert_int_equal(rep.sent, 1);
    assert_false(exists_nofollow(far, ".npmrc"));
    assert_said("not sent: .npmrc (a settings file over 1 MB or unreadable");
}

/* A registry setting made there never lands: it says where the person's npm sends their
 * tokens (and which registry the sidecar signs in to), so it is host-run. */
static void test_keyless__made_there_none_here__refused(void **state)
{
    struct cp_mirror_report rep;
    put_file(S.work, "a.txt", "a");
    assert_int_equal(push(&rep), 0);
    put_file(far, ".npmrc", "registry=https://new.example/\n");
    assert_int_equal(pull(&rep), 0);
    assert_false(exists_nofollow(S.work, ".npmrc"));
    cp_report_dispose(&rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sync__awkward_names__round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listing__far_forms__newlines_paired_damage_skipped,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync__posix_far_tools__awkward_names_round_trip, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_scratch__killed_scripts_leftovers__swept_after_a_day,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync__changes_there__come_back_with_deletions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sync__changed_both_sides__local_kept_far_beside, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__changed_here_meanwhile__kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pull__whole_archive_then_far_failure__nothing_lands,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete__failed_pull__no_deletion_applied, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__far_deleted_everything__nothing_deleted_here,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete__never_mirrored_file__not_deleted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__through_symlinked_folder__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__link_folder_and_fifo__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__multiply_linked_file__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__root_dot_dotdot_absolute__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__protected_and_dependency__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_push__symlink_to_secret__never_followed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_listing__left_out_places__counted_not_followed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_listing__over_limits__refused_with_container_advice,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest__damaged__refused_with_hint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identity__copy_removed_there__all_sent_nothing_deleted,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_identity__copy_replaced_between_push_and_pull__nothing_deleted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identity__another_copy_id__treated_as_empty, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_identity__another_place__treated_as_empty, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete__removed_there_behind_our_back__sent_again,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete__pull_without_push__deletes_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_manifest__version_1__read_as_no_copy_known, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_pull__killed_at_any_moment__old_or_new_then_next_run_finishes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync__random_trees__round_trip_property, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_keyless__settings_files__sent_without_keys_kept_here,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyless__settings_over_1mb__not_sent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyless__made_there_none_here__refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
