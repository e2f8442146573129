/* Writes the landing fuzzer's seed corpus: one hostile tar per attack of abuse-cases.md
 * Part A, built by tarbuild (usage: gen-corpus DIR). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/base/paths.h"
#include "src/base/util.h"
#include "tests/mirror/tarbuild.h"

static void save(const char *dir, const char *name, struct tb *t)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, name);
    cleanup_error cp_error_t err = NULL;
    if (cp_write_file_atomic(path, (const char *)t->data, t->len, 0644, &err) < 0)
        cp_error_print(&err);
    tb_free(t);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    struct tb t;
    tb_init(&t), tb_file(&t, "a", "a"), tb_file(&t, "src/a.c", "x"), tb_end(&t);
    save(dir, "plain", &t);
    tb_init(&t), tb_file(&t, "../../x", "x"), tb_file(&t, "/tmp/x", "x"), tb_end(&t);
    save(dir, "dotdot-absolute", &t);
    tb_init(&t), tb_entry(&t, "link", '2', "..", NULL, 0), tb_file(&t, "link/x", "x");
    tb_end(&t);
    save(dir, "symlink-parent", &t);
    tb_init(&t), tb_entry(&t, "a", '1', "../outside/canary", "owned", 5), tb_end(&t);
    save(dir, "hardlink-body", &t);
    tb_init(&t), tb_pax(&t, 'x', "path", "d/e/f.txt", 9), tb_file(&t, "../x", "pax"), tb_end(&t);
    save(dir, "pax-path", &t);
    tb_init(&t), tb_gnu_longname(&t, "src/a.c", 7), tb_file(&t, "zz", "long"), tb_end(&t);
    save(dir, "gnu-longname", &t);
    tb_init(&t), tb_file(&t, "a", "1"), tb_file(&t, "a", "2"), tb_end(&t);
    save(dir, "duplicate", &t);
    tb_init(&t), tb_file(&t, "keep.txt", "far"), tb_file(&t, ".git/config", "x"), tb_end(&t);
    save(dir, "conflict-protected", &t);
    tb_init(&t), tb_entry(&t, "d/", '5', NULL, NULL, 0), tb_entry(&t, "d", '2', "/", NULL, 0);
    tb_file(&t, "d/e/f.txt", "x"), tb_end(&t);
    save(dir, "dir-then-link", &t);
    tb_init(&t), tb_entry(&t, "big", '0', NULL, NULL, 0), tb_end(&t);
    t.data[124] = 0x80; /* base-256 size */
    save(dir, "base256", &t);
    return 0;
}
