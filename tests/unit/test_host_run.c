/* The host-run rules (issue 35): the table's new entries at the depth their tools read them,
 * the matcher's top-only ("/name") and any-depth ("a/ ** /b") forms, Python's start-up files in
 * environments and their words, and what the folder's settings name (git's includes, hooks and
 * fsmonitor through them, in a linked worktree and a submodule; yarnPath). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mirror/event-lines.h"
#include "mirror/rules.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/util.h"
#include "src/base/protected.h"
#include "tests/unit/put-file.h"

static char top[64], work[96];

static int setup(void **state)
{
    (void)state;
    snprintf(top, sizeof(top), "/tmp/conch-host-run-XXXXXX");
    assert_non_null(mkdtemp(top));
    snprintf(work, sizeof(work), "%s/work", top);
    mkdir(work, 0755);
    /* The person's own git config stays out of it. */
    setenv("HOME", top, 1);
    setenv("XDG_CONFIG_HOME", top, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_tree(top);
    return 0;
}

static bool host_run(const char *path)
{
    return cp_rules_host_run(NULL, path);
}

static bool refused_back(const struct cp_rules *r, const char *path)
{
    const char *why = cp_rules_check_back(r, path);
    return why != NULL && strcmp(why, CP_RULES_HOST_RUN) == 0;
}

static bool has(char **v, const char *s)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static void test_host_run__new_entries__refused_at_any_depth(void **state)
{
    (void)state;
    static const char *const any[] = {
        ".pnpmfile.cjs",
        "pkg/.pnpmfile.cjs",
        ".cargo/config.toml",
        "crates/a/.cargo/config",
        "rust-toolchain",
        "sub/rust-toolchain.toml",
        "mise.toml",
        "a/.mise.toml",
        "mise.local.toml",
        "mise/config.toml",
        ".mise/tasks/x",
        "mise-tasks/build",
        "a/.tool-versions",
        ".config/mise/config.toml",
        ".codex/config.toml",
        ".gemini/settings.json",
        "a/.windsurf/workflows/x.md",
        ".continue/config.yaml",
        ".roo/mcp.json",
        ".kiro/hooks/x.kiro.hook",
        ".aider.conf.yml",
        "a/opencode.json",
        ".opencode/plugin/x.ts",
    };
    for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++) {
        if (!host_run(any[i]))
            fail_msg("%s is not host-run", any[i]);
    }
    assert_false(host_run("cargo/config.toml"));
    assert_false(host_run(".cargo/registry/x"));
    assert_false(host_run("src/mise.rs"));
}

static void test_host_run__top_only_entries__refused_only_at_the_top(void **state)
{
    (void)state;
    static const char *const at_top[] = {
        ".ripgreprc",      ".lefthook.yml",          "lefthook.yml",
        ".overcommit.yml", ".pre-commit-hooks.yaml", ".lefthook/pre-commit/x.sh",
        "LEFTHOOK.YML",
    };
    for (size_t i = 0; i < sizeof(at_top) / sizeof(at_top[0]); i++) {
        char deep[128];
        snprintf(deep, sizeof(deep), "vendor/x/%s", at_top[i]);
        if (!host_run(at_top[i]))
            fail_msg("%s is not host-run", at_top[i]);
        if (host_run(deep))
            fail_msg("%s is host-run below the top", deep);
    }
}

static void test_host_run__matcher_forms__as_documented(void **state)
{
    (void)state;
    const char *const pats[] = {"/top.yml", "a/**/*.pth", "**/z", "/b/**/c", NULL};
    assert_true(cp_protected_is(pats, "top.yml"));
    assert_false(cp_protected_is(pats, "x/top.yml"));
    assert_true(cp_protected_within(pats, "top.yml/under"));
    assert_true(cp_protected_is(pats, "a/x.pth"));
    assert_true(cp_protected_is(pats, "q/a/b/c/x.pth"));
    assert_false(cp_protected_is(pats, "x.pth"));
    assert_false(cp_protected_is(pats, "a/x.pthx"));
    assert_false(cp_protected_is(pats, "b/a"));
    assert_true(cp_protected_is(pats, "z"));
    assert_true(cp_protected_is(pats, "q/r/z"));
    assert_true(cp_protected_is(pats, "b/c"));
    assert_true(cp_protected_is(pats, "b/x/y/c"));
    assert_false(cp_protected_is(pats, "q/b/x/c"));
}

static void test_host_run__python_start_up__refused_and_the_rest_lands(void **state)
{
    (void)state;
    static const char *const start[] = {
        ".venv/lib/python3.12/site-packages/evil.pth",
        "env/lib/python3.11/site-packages/sitecustomize.py",
        "venv/lib/python3.11/site-packages/usercustomize.py",
        "x/lib/python3/dist-packages/a.pth",
        ".venv/bin/activate",
        ".venv/bin/activate.fish",
        "myenv/bin/Activate.ps1",
        ".venv/Scripts/activate.bat",
        ".venv/pyvenv.cfg",
        ".venv/x.pth",
    };
    for (size_t i = 0; i < sizeof(start) / sizeof(start[0]); i++) {
        if (!host_run(start[i]) || !cp_rules_python_start(start[i]))
            fail_msg("%s is not Python's start-up", start[i]);
    }
    assert_false(host_run(".venv/lib/python3.12/site-packages/requests/__init__.py"));
    assert_false(host_run(".venv/bin/pip"));
    assert_false(host_run("docs/a.pth"));
    assert_false(host_run("src/sitecustomize.py"));
    assert_false(cp_rules_python_start(".envrc"));
}

/* tests/integration/host-run-files is what every place's gate test plants: each of its files is
 * host-run, and each entry of the tables has a file there (a top-only one at the top), so an
 * entry dropped from the table fails here and there. */
static void test_host_run__planted_list__covers_every_entry(void **state)
{
    (void)state;
    FILE *f = fopen(HOST_RUN_FILES, "r");
    assert_non_null(f);
    char line[512], *files[256];
    size_t n = 0;
    while (n < 256 && fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '#' && line[0] != '\0')
            files[n++] = xstrdup(line);
    }
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (!host_run(files[i]))
            fail_msg("%s (planted) is not host-run", files[i]);
    const char *const *tables[] = {cp_host_run_default, cp_host_run_python};
    size_t missing = 0;
    for (size_t t = 0; t < 2; t++) {
        for (size_t e = 0; tables[t][e] != NULL; e++) {
            const char *one[] = {tables[t][e], NULL};
            bool planted = false;
            for (size_t i = 0; i < n && !planted; i++)
                planted = cp_protected_within(one, files[i]);
            if (!planted && ++missing)
                print_error("%s has no file in host-run-files\n", tables[t][e]);
        }
    }
    /* Each entry of the tables taken out in turn (as by hand): some planted file then lands. */
    for (size_t t = 0; t < 2; t++) {
        size_t len = 0;
        while (tables[t][len] != NULL)
            len++;
        const char **without = xcalloc(len + 1, sizeof(char *));
        for (size_t e = 0; e < len; e++) {
            for (size_t k = 0, j = 0; k < len; k++)
                if (k != e)
                    without[j++] = tables[t][k];
            without[len - 1] = NULL;
            const char *const *other = tables[1 - t];
            bool seen = false;
            for (size_t i = 0; i < n && !seen; i++)
                seen = !cp_protected_within(without, files[i]) &&
                       !cp_protected_within(other, files[i]);
            if (!seen && ++missing)
                print_error("without %s every planted file is still refused\n", tables[t][e]);
        }
        free(without);
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    assert_int_equal(missing, 0);
}

static char said[4096];
static void say(void *ctx, const char *line)
{
    (void)ctx;
    snprintf(said, sizeof(said), "%s", line);
}

static void test_host_run__python_start_up__the_words_say_so(void **state)
{
    (void)state;
    struct cp_mirror_report rep = {.say = say};
    cp_report_host_run(&rep, ".envrc");
    cp_report_host_run_said(&rep, "to take them, run again with --unsealed");
    assert_null(strstr(said, "Python"));
    cp_report_host_run(&rep, ".venv/lib/python3.12/site-packages/evil.pth");
    cp_report_host_run_said(&rep, "to take them, run again with --unsealed");
    assert_non_null(strstr(said, "evil.pth"));
    assert_non_null(strstr(said, "Python here runs an environment's .pth files"));
    assert_non_null(strstr(said, "the rest of the environment lands"));
    assert_non_null(strstr(said, "--unsealed"));
    cp_report_dispose(&rep);
}

/* Attack: .git/config includes ../.gitconfig (here: the work folder's .gitconfig) and the box
 * rewrites it with core.fsmonitor. */
static void test_host_run__git_include__names_the_file_and_what_it_sets(void **state)
{
    (void)state;
    put(work, ".git/HEAD", "ref: refs/heads/main\n");
    put(work, ".git/config",
        "[core]\n\tbare = false\n[include]\n\tpath = ../.gitconfig\n"
        "[includeIf \"gitdir:~/x/\"]\n\tpath = \"../conf/extra\" ; a comment\n"
        "[core \"sub\"]\n\thooksPath = not-this\n");
    put(work, ".gitconfig",
        "[core]\n\thooksPath = tools/hooks\n\tfsmonitor = ./tools/fsmon.sh\n"
        "[include]\n\tpath = nested.inc\n");
    put(work, "nested.inc", "[core] fsmonitor = \"sh scripts/watch\\\n.sh\"\n");
    put(work, "conf/extra", "[core]\n\tfsmonitor = true\n");
    cleanup_strv char **named = cp_host_run_named(work);
    assert_true(has(named, ".gitconfig"));
    assert_true(has(named, "conf/extra"));
    assert_true(has(named, "nested.inc"));
    assert_true(has(named, "tools/hooks"));
    assert_true(has(named, "tools/fsmon.sh"));
    assert_true(has(named, "scripts/watch.sh"));
    assert_false(has(named, "not-this"));
    assert_false(has(named, "true"));
    struct cp_rules r = {.named = (const char *const *)named};
    assert_true(refused_back(&r, ".gitconfig"));
    assert_true(refused_back(&r, "tools/hooks/pre-commit"));
    assert_true(refused_back(&r, "TOOLS/FSMON.SH"));
    assert_false(refused_back(&r, "tools/other"));
    assert_null(cp_rules_check_back(&r, "plain"));
}

/* The commands git runs from its config, read through an include and in the repository's own
 * config: what each names inside the folder is host-run (an argument too: it may be a script
 * the program runs); a program in PATH and a word of a key that runs nothing are not. */
static void test_host_run__git_program_keys__name_what_they_run(void **state)
{
    (void)state;
    put(work, "shared.inc",
        "[diff]\n\texternal = tools/ext\n[diff \"pdf\"]\n\ttextconv = tools/pdf2txt\n"
        "\tcommand = tools/pdfdiff\n[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n"
        "\tsmudge = tools/smudge\n\tprocess = tools/proc\n"
        "[credential]\n\thelper = !tools/cred\n"
        "[credential \"https://x.example\"]\n\thelper = /abs/outside\n"
        "[gpg]\n\tprogram = tools/gpg\n[gpg \"ssh\"]\n\tprogram = tools/ssh-keygen\n"
        "[sequence]\n\teditor = tools/seq\n[pager]\n\tlog = tools/logpager\n\tdiff = false\n"
        "[mergetool \"t\"]\n\tpath = tools/mt\n[init]\n\ttemplateDir = tools/tmpl\n"
        "[color]\n\tui = tools/not-a-command\n");
    put(work, ".git/config",
        "[core]\n\tsshCommand = tools/ssh.sh -v\n\tpager = less -R\n"
        "\teditor = sh ed.sh\n\taskPass = ./ask\n[include]\n\tpath = ../shared.inc\n"
        "[alias]\n\tst = status\n\tx = \"!sh -c 'tools/alias-run' ; bin/after\"\n"
        "[merge \"m\"]\n\tdriver = tools/merge %O %A %B\n"
        "[submodule \"s\"]\n\tupdate = !tools/update\n");
    put(work, ".git/HEAD", "ref: refs/heads/main\n");
    cleanup_strv char **named = cp_host_run_named(work);
    static const char *const want[] = {"tools/ssh.sh",    "ed.sh",          "ask",
                                       "tools/alias-run", "bin/after",      "tools/merge",
                                       "tools/update",    "tools/ext",      "tools/pdf2txt",
                                       "tools/pdfdiff",   "tools/smudge",   "tools/proc",
                                       "tools/cred",      "tools/gpg",      "tools/ssh-keygen",
                                       "tools/seq",       "tools/logpager", "tools/mt",
                                       "tools/tmpl",      "shared.inc",     NULL};
    for (size_t i = 0; want[i] != NULL; i++)
        if (!has(named, want[i]))
            fail_msg("%s is not named", want[i]);
    static const char *const not_named[] = {
        "less", "status", "git-lfs", "false", "tools/not-a-command", "sh", NULL};
    for (size_t i = 0; not_named[i] != NULL; i++)
        if (has(named, not_named[i]))
            fail_msg("%s is named", not_named[i]);
    /* Under a named folder, any case; a file beside them lands. */
    const struct cp_rules r = {.named = (const char *const *)named};
    const char *const paths[] = {"tools/tmpl/hooks/pre-commit", "Tools/Smudge", "tools/readme"};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(refused_back(&r, paths[i]), i < 2);
}

/* The work folder is the person's home: the ~/.gitconfig git reads is in it, and a key a box
 * added there would run here, so the file is named whether it exists yet or not. */
static void test_host_run__person_config_in_the_folder__named(void **state)
{
    (void)state;
    const char *was = getenv("HOME");
    cleanup_free char *saved = was ? xstrdup(was) : NULL;
    setenv("HOME", work, 1);
    unsetenv("XDG_CONFIG_HOME");
    put(work, ".gitconfig", "[core]\n\tpager = bin/pager\n");
    cleanup_strv char **named = cp_host_run_named(work);
    setenv("XDG_CONFIG_HOME", top, 1);
    if (saved)
        setenv("HOME", saved, 1);
    else
        unsetenv("HOME");
    assert_true(has(named, ".gitconfig"));
    assert_true(has(named, ".config/git/config"));
    assert_true(has(named, "bin/pager"));
}

/* A linked worktree: .git is a file naming its git folder, whose commondir holds the config. */
static void test_host_run__linked_worktree__reads_the_common_config(void **state)
{
    (void)state;
    char main_git[160];
    snprintf(main_git, sizeof(main_git), "%s/main/.git", top);
    put(top, "main/.git/HEAD", "ref: refs/heads/main\n");
    put(top, "main/.git/config", "[include]\n\tpath = ../../work/.shared-config\n");
    put(top, "main/.git/worktrees/w/commondir", "../..\n");
    put(top, "main/.git/worktrees/w/config.worktree", "[core]\n\thooksPath = wt-hooks\n");
    put(top, "work/.shared-config", "[core]\n\tfsmonitor = bin/mon\n");
    char gitfile[256];
    snprintf(gitfile, sizeof(gitfile), "gitdir: %s/worktrees/w\n", main_git);
    put(work, ".git", gitfile);
    cleanup_strv char **named = cp_host_run_named(work);
    assert_true(has(named, ".shared-config"));
    assert_true(has(named, "bin/mon"));
    assert_true(has(named, "wt-hooks"));
}

/* A submodule: its config is under the superproject's .git/modules/NAME, its top core.worktree. */
static void test_host_run__submodule__reads_its_config_from_its_top(void **state)
{
    (void)state;
    put(work, ".git/HEAD", "ref: refs/heads/main\n");
    put(work, ".git/config", "[core]\n\tbare = false\n");
    put(work, ".git/modules/lib/m/HEAD", "ref: refs/heads/main\n");
    put(work, ".git/modules/lib/m/config",
        "[core]\n\tworktree = ../../../../lib/m\n\thooksPath = .hooks\n"
        "[include]\n\tpath = ../../../../lib/m/.modconfig\n");
    put(work, "lib/m/.git", "gitdir: ../../.git/modules/lib/m\n");
    put(work, "lib/m/.modconfig", "[core]\n\tfsmonitor = ./mon\n");
    cleanup_strv char **named = cp_host_run_named(work);
    assert_true(has(named, "lib/m/.hooks"));
    assert_true(has(named, "lib/m/.modconfig"));
    assert_true(has(named, "lib/m/mon"));
    /* The work folder being the submodule: its .git file leads to the same config. */
    char sub[160];
    snprintf(sub, sizeof(sub), "%s/lib/m", work);
    cleanup_strv char **from_sub = cp_host_run_named(sub);
    assert_true(has(from_sub, ".hooks"));
    assert_true(has(from_sub, "mon"));
}

static void test_host_run__hooks_path_at_the_top__only_hook_names(void **state)
{
    (void)state;
    put(work, ".git/HEAD", "ref: refs/heads/main\n");
    put(work, ".git/config", "[core]\n\thooksPath = .\n");
    cleanup_strv char **named = cp_host_run_named(work);
    assert_true(has(named, "."));
    struct cp_rules r = {.named = (const char *const *)named};
    assert_true(refused_back(&r, "pre-commit"));
    assert_false(refused_back(&r, "src/pre-commit"));
    assert_null(cp_rules_check_back(&r, "README"));
}

/* Attack: yarnPath names .yarn/releases/yarn-*.cjs, which the next `yarn` here runs; an
 * .npmrc's pnpmfile, which the next pnpm install runs (--ignore-scripts too). */
static void test_host_run__yarn_path__names_the_release(void **state)
{
    (void)state;
    put(work, ".yarnrc.yml",
        "nodeLinker: node-modules\nyarnPath: \".yarn/releases/yarn-4.1.0.cjs\"\n");
    put(work, "old/.yarnrc", "yarn-path \"./bin/yarn.js\"\n");
    put(work, ".npmrc", "registry=https://r.example/\npnpmfile = \"tools/hooks.cjs\"\n");
    put(work, "old/.npmrc", "global-pnpmfile=local.cjs\n");
    char *v = cp_yarnrc_yarn_path("a: 1\nyarnPath: x.cjs\n", 20);
    assert_string_equal(v, "x.cjs");
    free(v);
    assert_null(cp_yarnrc_yarn_path("[unclosed", 9));
    cleanup_strv char **named = cp_host_run_named(work);
    assert_true(has(named, ".yarn/releases/yarn-4.1.0.cjs"));
    struct cp_rules r = {.named = (const char *const *)named};
    assert_true(refused_back(&r, ".yarn/releases/yarn-4.1.0.cjs"));
    assert_false(refused_back(&r, ".yarn/releases/other.cjs"));
    char old[160];
    snprintf(old, sizeof(old), "%s/old", work);
    cleanup_strv char **from_old = cp_host_run_named(old);
    assert_true(has(from_old, "bin/yarn.js"));
    assert_true(has(from_old, "local.cjs"));
    assert_true(has(named, "tools/hooks.cjs"));
    assert_false(has(named, "https://r.example/"));
}

/* A file that includes itself many times is read a bounded number of times (git stops at depth
 * ten; ten includes a file at each depth would be ten to the tenth reads). */
static void test_host_run__include_loop__bounded(void **state)
{
    (void)state;
    put(work, ".git/HEAD", "ref: refs/heads/main\n");
    put(work, ".git/config", "[include]\n\tpath = ../loop\n");
    char text[512] = "[include]\n";
    size_t n = strlen(text);
    for (int i = 0; i < 10; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "\tpath = loop\n");
    put(work, "loop", text);
    cleanup_strv char **named = cp_host_run_named(work);
    assert_true(has(named, "loop"));
}

static void test_host_run__names_outside_the_folder__none(void **state)
{
    (void)state;
    put(work, ".git/HEAD", "ref: refs/heads/main\n");
    put(work, ".git/config",
        "[include]\n\tpath = /etc/elsewhere\n[core]\n\thooksPath = /usr/h\n"
        "\tfsmonitor = ../../outside\n");
    cleanup_strv char **named = cp_host_run_named(work);
    /* Only the config files themselves, which the gate refuses under .git anyway. */
    for (size_t i = 0; named[i] != NULL; i++)
        assert_true(strncmp(named[i], ".git/", 5) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_run__new_entries__refused_at_any_depth),
        cmocka_unit_test(test_host_run__top_only_entries__refused_only_at_the_top),
        cmocka_unit_test(test_host_run__matcher_forms__as_documented),
        cmocka_unit_test(test_host_run__planted_list__covers_every_entry),
        cmocka_unit_test(test_host_run__python_start_up__refused_and_the_rest_lands),
        cmocka_unit_test(test_host_run__python_start_up__the_words_say_so),
        cmocka_unit_test_setup_teardown(test_host_run__git_include__names_the_file_and_what_it_sets,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_run__git_program_keys__name_what_they_run, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_host_run__person_config_in_the_folder__named, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_host_run__linked_worktree__reads_the_common_config,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_run__submodule__reads_its_config_from_its_top,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_run__hooks_path_at_the_top__only_hook_names,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_run__yarn_path__names_the_release, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_host_run__include_loop__bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_run__names_outside_the_folder__none, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
