/* The gate over a hand-made overlay upper folder: what lands, what is refused and why, what is
 * deleted, and a landing done twice (the second finishing a cut one) changing nothing more.
 * Whiteouts need mknod (root); without it those tests are skipped. */
#include "config.h"
#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mirror/layer.h"
#include "mirror/staging.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/util.h"
#include "tests/unit/wait.h"
#include "tests/unit/put-file.h"

static char top[64], work[96], up[96];
static char said[8192];

static char *get(const char *root, const char *rel)
{
    char path[512], buf[256];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return xstrdup(buf);
}

static bool exists(const char *root, const char *rel)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    return lstat(path, &st) == 0;
}

static bool whiteout(const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", up, rel);
    return mknod(path, S_IFCHR | 0, makedev(0, 0)) == 0;
}

static void say(void *ctx, const char *line)
{
    (void)ctx;
    size_t n = strlen(said);
    snprintf(said + n, sizeof(said) - n, "%s\n", line);
}

static void land(const struct cp_rules *rules, int64_t since)
{
    cleanup_close int rootfd = open(work, O_RDONLY | O_DIRECTORY);
    cleanup_close int upfd = open(up, O_RDONLY | O_DIRECTORY);
    struct cp_layer_opts o = {.rootfd = rootfd, .upperfd = upfd, .since_ns = since, .rules = rules};
    struct cp_mirror_report rep = {.say = say};
    cp_error_t err = NULL;
    assert_int_equal(cp_layer_land(&o, &rep, &err), 0);
    cp_report_host_run_said(&rep, "take them with --unsealed");
    cp_report_dispose(&rep);
}

/* Work folder files made "before the run": their ctime is before since, the file clock's
 * reading once it has moved on from everything made so far. */
static int64_t before_run(void)
{
    int64_t since = wait_fs_tick();
    assert_true(since > 0);
    return since;
}

static int setup(void **state)
{
    snprintf(top, sizeof(top), "/tmp/conch-layer-XXXXXX");
    assert_non_null(mkdtemp(top));
    snprintf(work, sizeof(work), "%s/work", top);
    snprintf(up, sizeof(up), "%s/up", top);
    mkdir(work, 0755);
    mkdir(up, 0755);
    said[0] = '\0';
    return 0;
}

static int teardown(void **state)
{
    remove_tree(top);
    return 0;
}

static const struct cp_rules layer_rules = {.deps_land = true};

static void test_layer__new_and_changed_files__land(void **state)
{
    put(work, "a", "old");
    int64_t since = before_run();
    put(up, "a", "new");
    put(up, "dir/deep/b", "b");
    put(up, "node_modules/x/index.js", "dep");
    land(&layer_rules, since);
    cleanup_free char *a = get(work, "a");
    cleanup_free char *b = get(work, "dir/deep/b");
    cleanup_free char *d = get(work, "node_modules/x/index.js");
    assert_string_equal(a, "new");
    assert_string_equal(b, "b");
    assert_string_equal(d, "dep");
    assert_false(exists(up, "a")); /* moved, not copied */
}

static void test_layer__host_run_files__refused_in_one_line(void **state)
{
    int64_t since = before_run();
    put(up, ".claude/settings.json", "{}");
    put(up, ".envrc", "evil");
    put(up, "sub/.vscode/tasks.json", "{}");
    put(up, "ok", "ok");
    land(&layer_rules, since);
    assert_false(exists(work, ".claude"));
    assert_false(exists(work, ".envrc"));
    assert_false(exists(work, "sub/.vscode"));
    assert_true(exists(work, "ok"));
    assert_non_null(strstr(said, "host-run"));
    assert_non_null(strstr(said, ".envrc"));
    assert_non_null(strstr(said, "--unsealed"));
    assert_null(strchr(strchr(said, '\n') + 1, '\n')); /* one line */
}

static void test_layer__hooks_path_folder__refused(void **state)
{
    int64_t since = before_run();
    put(up, "githooks/pre-commit", "evil");
    struct cp_rules r = {.deps_land = true, .hooks_path = "githooks"};
    land(&r, since);
    assert_false(exists(work, "githooks/pre-commit"));
}

static void test_layer__git_made_during_run__refused(void **state)
{
    int64_t since = before_run();
    put(up, "new/.git/HEAD", "ref: refs/heads/main");
    put(up, "new/.git/hooks/post-checkout", "evil");
    put(up, "lib/m/.git/modules/x/hooks/post-checkout", "evil");
    land(&layer_rules, since);
    assert_false(exists(work, "new/.git"));
    assert_false(exists(work, "lib/m/.git"));
    assert_non_null(strstr(said, "under a .git folder"));
}

static void test_layer__repository_shaped_folder__refused(void **state)
{
    int64_t since = before_run();
    put(up, "bare/HEAD", "ref: refs/heads/main");
    put(up, "bare/objects/x", "x");
    land(&layer_rules, since);
    assert_false(exists(work, "bare/HEAD") && exists(work, "bare/objects"));
}

static void link_at(const char *root, const char *rel, const char *target)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    assert_int_equal(symlink(target, path), 0);
}

static void test_layer__links__relative_inside_only(void **state)
{
    int64_t since = before_run();
    char path[256];
    snprintf(path, sizeof(path), "%s/bin", up);
    mkdir(path, 0755);
    link_at(up, "bin/ok", "../lib/x.js");
    link_at(up, "bin/abs", "/etc/passwd");
    link_at(up, "bin/out", "../../outside");
    link_at(up, "bin/intogit", "../.git/hooks");
    /* A chain: bin/up leads to the folder itself, so "bin/up/.." reads as inside and is out. */
    link_at(up, "bin/up", "..");
    link_at(up, "chain", "bin/up/..");
    link_at(up, "dotted", "bin/./ok"); /* resolved, not read: inside, it lands */
    land(&layer_rules, since);
    char target[64] = "";
    snprintf(path, sizeof(path), "%s/bin/ok", work);
    assert_int_equal(readlink(path, target, sizeof(target) - 1), (ssize_t)strlen("../lib/x.js"));
    assert_false(exists(work, "bin/abs"));
    assert_false(exists(work, "bin/out"));
    assert_false(exists(work, "bin/intogit"));
    snprintf(path, sizeof(path), "%s/bin/up", work);
    assert_int_equal(readlink(path, target, sizeof(target) - 1), 2); /* "..": the folder */
    assert_false(exists(work, "chain"));
    assert_true(exists(work, "dotted"));
}

/* Lays out pairs of name and text under root (NULL-terminated): a text "-> T" makes a link to
 * T, any other a file holding it. */
static void plant(const char *root, const char *const *v)
{
    for (size_t i = 0; v[i] != NULL; i += 2)
        if (strncmp(v[i + 1], "-> ", 3) == 0)
            link_at(root, v[i], v[i + 1] + 3);
        else
            put(root, v[i], v[i + 1]);
}

/* Each name of the space-separated list landed is here, each of refused is not. */
static void only_landed(const char *landed, const char *refused)
{
    const char *lists[] = {landed, refused};
    for (int i = 0; i < 2; i++) {
        cleanup_free char *copy = xstrdup(lists[i]);
        char *save = NULL;
        for (char *n = strtok_r(copy, " ", &save); n != NULL; n = strtok_r(NULL, " ", &save))
            if (exists(work, n) != (i == 0))
                fail_msg("%s %s", n, i == 0 ? "did not land" : "landed");
    }
}

/* Lands under the layer rules and checks what landed, what did not and the words said. */
static void land_judged(int64_t since, const char *landed, const char *refused, const char *words)
{
    land(&layer_rules, since);
    only_landed(landed, refused);
    assert_non_null(strstr(said, words));
}

/* The folder here, then the run's start, then the box's layer, each planted (plant), landed and
 * judged as land_judged does. */
static void plant_land_judged(const char *const *here, const char *const *box, const char *landed,
                              const char *refused, const char *words)
{
    plant(work, here);
    int64_t since = before_run();
    plant(up, box);
    land_judged(since, landed, refused, words);
}

/* The attack of issue 38: d -> ., u1 -> d/.., uN -> u(N-1)/.. up to u30, and config.json ->
 * u30/etc/passwd. Each link's text alone reads as inside; resolved, u1 already leads out. */
static void test_layer__link_chain_climbing_out__refused(void **state)
{
    int64_t since = before_run();
    char name[16], target[32];
    link_at(up, "d", ".");
    link_at(up, "u1", "d/..");
    for (int i = 2; i <= 30; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        snprintf(target, sizeof(target), "u%d/..", i - 1);
        link_at(up, name, target);
    }
    link_at(up, "config.json", "u30/etc/passwd");
    link_at(up, "inside", "d/d/d/x"); /* through the box's own link, staying in */
    land_judged(since, "d inside", "config.json u1 u30",
                "config.json (a link that leads out of the work folder)");
}

/* This computer's links are on the way too: up -> .. here makes the box's up/x lead out, and
 * keys -> .ssh here makes keys/id the protected .ssh/id. */
static void test_layer__link_through_a_link_here__judged_where_it_leads(void **state)
{
    /* Pairs of name and text, here then in the box's layer; via goes through the box's hop to a
     * protected place. */
    const char *here[] = {".ssh/id", "key", "up", "-> ..", "keys", "-> .ssh", NULL};
    const char *box[] = {"out", "-> up/outside", "key",  "-> keys/id", "via", "-> hop",
                         "hop", "-> .git/hooks", "fine", "-> keys2/x", NULL};
    plant_land_judged(here, box, "fine", "out key via",
                      "key (a link through or to a place that never lands)");
}

/* A bounded depth: 45 links in a row are refused with words, 30 land. */
static void test_layer__links_past_the_bound__refused_with_words(void **state)
{
    int64_t since = before_run();
    char name[16], target[16];
    for (int i = 1; i <= 45; i++) {
        snprintf(name, sizeof(name), "l%d", i);
        snprintf(target, sizeof(target), "l%d", i + 1);
        link_at(up, name, target);
    }
    land_judged(since, "l30", "l1", "l1 (a link whose way takes more than 40 links)");
}

/* .claude -> shared-ai here: the box wrote through it in its own view, so its layer holds
 * shared-ai/settings.json, which is .claude/settings.json here and must not land; nor may the
 * box's .vscode -> cfg make its cfg/tasks.json this computer's .vscode/tasks.json. */
static void test_layer__host_run_folder_that_is_a_link_here__refused(void **state)
{
    const char *here[] = {"shared-ai/notes", "mine", ".claude", "-> shared-ai", NULL};
    const char *box[] = {"shared-ai/settings.json",
                         "{\"hooks\":{}}",
                         "cfg/tasks.json",
                         "{}",
                         ".vscode",
                         "-> cfg",
                         "plain",
                         "lands",
                         NULL};
    plant_land_judged(here, box, "plain shared-ai/notes", "shared-ai/settings.json cfg/tasks.json",
                      "cfg/tasks.json");
}

/* A landing cut by kill -9 left its staging folder in the work folder: the next landing removes
 * it (its owner is gone), and leaves one whose owner lives. */
static void test_layer__staging_of_a_killed_run__removed(void **state)
{
    int64_t since = before_run();
    put(work, ".conch-staging-2147483646-l0/half", "never landed");
    char mine[64];
    snprintf(mine, sizeof(mine), ".conch-staging-%ld-l9/x", (long)getppid());
    put(work, mine, "alive");
    put(up, "n", "new");
    land(&layer_rules, since);
    assert_true(exists(work, "n"));
    assert_false(exists(work, ".conch-staging-2147483646-l0"));
    assert_true(exists(work, mine));
}

/* A staging folder inside the work folder holds a .gitignore of "*" from the start: git shows
 * nothing of it even when a kill -9 leaves it; the sweep removes it, .gitignore and all. */
static void test_layer__staging_folder__ignored_by_git_and_swept(void **state)
{
    cleanup_close int rootfd = open(work, O_RDONLY | O_DIRECTORY);
    int fd = cp_staging_make(rootfd, ".conch-staging-2147483646-l1");
    assert_true(fd >= 0);
    close(fd);
    cleanup_free char *gi = get(work, ".conch-staging-2147483646-l1/.gitignore");
    assert_non_null(gi);
    assert_string_equal(gi, "*\n");
    put(work, ".conch-staging-2147483646-l1/e12", "half");
    cp_staging_sweep(rootfd);
    assert_false(exists(work, ".conch-staging-2147483646-l1"));
}

static void test_layer__changed_here_during_run__kept_box_beside(void **state)
{
    put(work, "f", "old");
    int64_t since = before_run();
    put(up, "f", "box");
    put(work, "f", "mine"); /* the person, during the run */
    land(&layer_rules, since);
    cleanup_free char *f = get(work, "f");
    cleanup_free char *b = get(work, "f.conch-far");
    assert_string_equal(f, "mine");
    assert_string_equal(b, "box");
    assert_non_null(strstr(said, "changed here during the run"));
}

static void test_layer__whiteouts__delete_what_the_command_deleted(void **state)
{
    put(work, "gone", "x");
    put(work, "tree/a", "a");
    put(work, "tree/b/c", "c");
    put(work, ".envrc", "the relay's hook");
    int64_t since = before_run();
    if (!whiteout("gone"))
        skip();
    assert_true(whiteout("tree"));
    assert_true(whiteout(".envrc"));
    land(&layer_rules, since);
    assert_false(exists(work, "gone"));
    assert_false(exists(work, "tree"));
    assert_true(exists(work, ".envrc")); /* a host-run file is not deleted either */
    assert_false(exists(up, "gone"));    /* done with: a later landing will not repeat it */
}

static void test_layer__whiteout_of_a_file_changed_here__kept(void **state)
{
    int64_t since = before_run();
    put(work, "late", "made here during the run");
    if (!whiteout("late"))
        skip();
    land(&layer_rules, since);
    assert_true(exists(work, "late"));
}

static void test_layer__opaque_folder__replaces_the_one_here(void **state)
{
    put(work, "nm/old.js", "old");
    put(work, "nm/keep/deep.js", "old");
    int64_t since = before_run();
    put(up, "nm/new.js", "new");
    char path[256];
    snprintf(path, sizeof(path), "%s/nm", up);
    if (setxattr(path, "user.overlay.opaque", "y", 1, 0) < 0)
        skip(); /* a file system without user attributes */
    land(&layer_rules, since);
    assert_false(exists(work, "nm/old.js"));
    assert_false(exists(work, "nm/keep"));
    assert_true(exists(work, "nm/new.js"));
}

static void test_layer__protected_places__refused(void **state)
{
    int64_t since = before_run();
    put(up, ".env", "SECRET=1");
    put(up, "k/server.pem", "x");
    land(&layer_rules, since);
    assert_false(exists(work, ".env"));
    assert_false(exists(work, "k/server.pem"));
}

static void test_layer__landing_twice__changes_nothing_more(void **state)
{
    put(work, "a", "old");
    int64_t since = before_run();
    put(up, "a", "new");
    put(up, ".mcp.json", "{}");
    land(&layer_rules, since);
    said[0] = '\0';
    land(&layer_rules, since); /* a cut landing finished: what landed is not landed again */
    cleanup_free char *a = get(work, "a");
    assert_string_equal(a, "new");
    assert_false(exists(work, "a.conch-far"));
    assert_false(exists(work, ".mcp.json"));
}

/* The layer moved to another file system than the folder (/dev/shm), its path in up until
 * far_layer_done; false (the test skips) when there is none. */
static char far_layer[64], near_layer[96];
static bool far_layer_made(void)
{
    struct stat a, b;
    snprintf(far_layer, sizeof(far_layer), "/dev/shm/conch-layer-XXXXXX");
    if (stat("/dev/shm", &a) < 0 || stat(top, &b) < 0 || a.st_dev == b.st_dev ||
        mkdtemp(far_layer) == NULL)
        return false;
    snprintf(near_layer, sizeof(near_layer), "%s", up);
    snprintf(up, sizeof(up), "%s", far_layer);
    return true;
}

static void far_layer_done(void)
{
    remove_tree(far_layer);
    snprintf(up, sizeof(up), "%s", near_layer);
}

/* The layer on another file system than the folder: each entry is copied beside its place, then
 * renamed in, with its mode bits and time. */
static void test_layer__another_file_system__copied_then_renamed(void **state)
{
    struct stat a;
    if (!far_layer_made())
        skip();
    int64_t since = before_run();
    put(up, "tool.sh", "#!/bin/sh\n");
    char path[256];
    snprintf(path, sizeof(path), "%s/tool.sh", up);
    chmod(path, 04777);
    snprintf(path, sizeof(path), "%s/ln", up);
    assert_int_equal(symlink("tool.sh", path), 0);
    land(&layer_rules, since);
    cleanup_free char *t = get(work, "tool.sh");
    assert_string_equal(t, "#!/bin/sh\n");
    snprintf(path, sizeof(path), "%s/tool.sh", work);
    assert_int_equal(stat(path, &a), 0);
    assert_int_equal(a.st_mode & 07777, 0755); /* rwx only, nobody else's write */
    snprintf(path, sizeof(path), "%s/ln", work);
    assert_int_equal(lstat(path, &a), 0);
    assert_true(S_ISLNK(a.st_mode));
    assert_false(exists(up, "tool.sh"));
    assert_false(exists(work, ".conch-staging-x")); /* and no staging folder left: */
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -q conch-staging", work);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_int_not_equal(pclose(p), 0);
    far_layer_done();
}

/* Whether a staging folder is in dir. */
static bool staging_in(const char *dir)
{
    DIR *d = opendir(dir);
    bool found = false;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        found = found || strncmp(e->d_name, ".conch-staging-", 15) == 0;
    if (d != NULL)
        closedir(d);
    return found;
}

static bool file_is(void *path)
{
    return access(path, F_OK) == 0;
}

/* The person saves f here while the landing from another file system holds its staged copy
 * (CONCH_TEST_HOLD_STAGED): the check made at the rename keeps the save, the box's lands
 * beside. The staging folder is outside the work folder ($TMPDIR, on its file system). */
static void test_layer__save_during_a_cross_disk_landing__kept(void **state)
{
    if (!far_layer_made())
        skip();
    char hold[128], held[160], go[160];
    snprintf(hold, sizeof(hold), "%s/hold", top);
    snprintf(held, sizeof(held), "%s/held", hold);
    snprintf(go, sizeof(go), "%s/go", hold);
    mkdir(hold, 0700);
    assert_int_equal(mkfifo(go, 0600), 0);
    put(work, "f", "old");
    int64_t since = before_run();
    put(up, "f", "box");
    setenv("CONCH_TEST_HOLD_STAGED", hold, 1);
    setenv("TMPDIR", top, 1);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* the person: saves during the hold, then lets it go */
        if (!wait_until(WAIT_SECONDS, file_is, held))
            _exit(2);
        bool inside = staging_in(work);
        put(work, "f", "mine");
        int g = open(go, O_WRONLY);
        close(g);
        _exit(inside ? 3 : 0);
    }
    land(&layer_rules, since);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    unsetenv("CONCH_TEST_HOLD_STAGED");
    unsetenv("TMPDIR");
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0); /* held, and no staging in the work folder */
    cleanup_free char *f = get(work, "f");
    cleanup_free char *beside = get(work, "f.conch-far");
    assert_string_equal(f, "mine");
    assert_non_null(beside);
    assert_string_equal(beside, "box");
    assert_non_null(strstr(said, "changed here during the run"));
    far_layer_done();
}

static void test_layer__dry_run__lands_nothing(void **state)
{
    put(work, "a", "old");
    int64_t since = before_run();
    put(up, "a", "new");
    put(up, "b", "b");
    cleanup_close int rootfd = open(work, O_RDONLY | O_DIRECTORY);
    cleanup_close int upfd = open(up, O_RDONLY | O_DIRECTORY);
    struct cp_layer_opts o = {.rootfd = rootfd,
                              .upperfd = upfd,
                              .since_ns = since,
                              .rules = &layer_rules,
                              .dry_run = true};
    cp_error_t err = NULL;
    assert_int_equal(cp_layer_land(&o, NULL, &err), 0);
    cleanup_free char *a = get(work, "a");
    assert_string_equal(a, "old");
    assert_false(exists(work, "b"));
}

static void test_git_hooks__value__last_core_one_wins(void **state)
{
    const char *text =
        "[core]\n\thooksPath = \"./first\" ; comment\n[core \"sub\"]\n"
        "\thookspath = /not-this\n[CORE]\nHOOKSPATH=last # c\n[other]\nhookspath=x\n";
    cleanup_free char *v = cp_git_hooks_value(text, strlen(text));
    assert_string_equal(v, "last");
    assert_null(cp_git_hooks_value("[core]\nbare=1\n", 14));
}

static void test_git_hooks__path__inside_the_folder_only(void **state)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/.git", work);
    mkdir(path, 0755);
    put(work, ".git/config", "[core]\n\thooksPath = ./tools/../.husky\n");
    setenv("HOME", top, 1); /* no global config of the person's */
    cleanup_free char *h = cp_git_hooks_path(work);
    assert_string_equal(h, ".husky");
    put(work, ".git/config", "[core]\n\thooksPath = /usr/share/hooks\n");
    assert_null(cp_git_hooks_path(work));
    snprintf(path, sizeof(path), "%s/sub", work);
    mkdir(path, 0755);
    put(work, ".git/config", "[core]\n\thooksPath = sub/h\n");
    cleanup_free char *h2 = cp_git_hooks_path(path); /* the work folder inside the repository */
    assert_string_equal(h2, "h");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layer__new_and_changed_files__land, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__host_run_files__refused_in_one_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__hooks_path_folder__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__git_made_during_run__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__repository_shaped_folder__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__links__relative_inside_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__link_chain_climbing_out__refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__link_through_a_link_here__judged_where_it_leads,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__links_past_the_bound__refused_with_words, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__host_run_folder_that_is_a_link_here__refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__staging_folder__ignored_by_git_and_swept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__staging_of_a_killed_run__removed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__changed_here_during_run__kept_box_beside, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__whiteouts__delete_what_the_command_deleted,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__whiteout_of_a_file_changed_here__kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__opaque_folder__replaces_the_one_here, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__protected_places__refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layer__landing_twice__changes_nothing_more, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__another_file_system__copied_then_renamed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__save_during_a_cross_disk_landing__kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layer__dry_run__lands_nothing, setup, teardown),
        cmocka_unit_test(test_git_hooks__value__last_core_one_wins),
        cmocka_unit_test_setup_teardown(test_git_hooks__path__inside_the_folder_only, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
