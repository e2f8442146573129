/* The top .git's table and its rules (issue 32): each row's kind and reason, ref names git
 * writes, a loose object checked against its name, and refs checked as they land (an object
 * that is not here, a tag moved, HEAD that is no branch, a branch forced backwards recorded);
 * the walk of modules/ and submodules' git folders landing by the same table. */
#include "config.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "mirror/git/git-landing.h"
#include "mirror/git/git-loose.h"
#include "mirror/git/git-modules.h"
#include "mirror/git/git-outside.h"
#include "mirror/git/git-table.h"
#include "src/base/spawn.h"
#include "src/base/util.h"
#include "tests/unit/put-file.h"

static const char *why_of(const char *rel, enum cp_git_kind want)
{
    const char *why = NULL;
    assert_int_equal(cp_git_table_kind(rel, &why), want);
    return why;
}

static void test_table_refuses(void **state)
{
    (void)state;
    assert_non_null(strstr(why_of("config", CP_GIT_REFUSED), "core.hooksPath"));
    assert_non_null(strstr(why_of("config.worktree", CP_GIT_REFUSED), "config"));
    assert_non_null(strstr(why_of("hooks/post-commit", CP_GIT_REFUSED), "runs them"));
    assert_non_null(strstr(why_of("info/attributes", CP_GIT_REFUSED), "filters"));
    assert_non_null(strstr(why_of("info/exclude", CP_GIT_REFUSED), "info/"));
    assert_non_null(strstr(why_of("modules/m/config", CP_GIT_REFUSED), "submodules"));
    assert_non_null(strstr(why_of("worktrees/w/HEAD", CP_GIT_REFUSED), "outside the work folder"));
    assert_non_null(strstr(why_of("commondir", CP_GIT_REFUSED), "another git folder"));
    assert_non_null(strstr(why_of("gitdir", CP_GIT_REFUSED), "another folder"));
    assert_non_null(strstr(why_of("objects/info/alternates", CP_GIT_REFUSED), "alternate"));
    assert_non_null(strstr(why_of("shallow", CP_GIT_REFUSED), "history"));
    assert_non_null(strstr(why_of("rebase-merge/git-rebase-todo", CP_GIT_REFUSED), "exec"));
    assert_non_null(strstr(why_of("refs/notes/commits", CP_GIT_REFUSED), "outside"));
    assert_non_null(strstr(why_of("refs/heads", CP_GIT_REFUSED), "outside"));
    assert_string_equal(why_of("description", CP_GIT_REFUSED), "not on git's table");
    assert_string_equal(why_of("index.lock", CP_GIT_REFUSED), "not on git's table");
}

static void test_table_lands(void **state)
{
    (void)state;
    why_of("objects/ab/cdef", CP_GIT_OBJECT);
    why_of("refs/heads/a/b", CP_GIT_REF);
    why_of("refs/remotes/origin/main", CP_GIT_REF);
    why_of("refs/stash", CP_GIT_REF);
    why_of("refs/tags/v1", CP_GIT_TAG);
    why_of("packed-refs", CP_GIT_PACKED_REFS);
    why_of("HEAD", CP_GIT_HEAD);
    why_of("index", CP_GIT_FILE);
    why_of("logs/refs/heads/main", CP_GIT_FILE);
    why_of("COMMIT_EDITMSG", CP_GIT_FILE);
    why_of("ORIG_HEAD", CP_GIT_FILE);
}

static void test_ref_names(void **state)
{
    (void)state;
    assert_true(cp_git_ref_name_ok("refs/heads/main"));
    assert_true(cp_git_ref_name_ok("refs/heads/a/b-c_d.e"));
    const char *bad[] = {"refs/heads/a..b", "refs/heads/x.lock", "refs/heads/a.lock/b",
                         "refs/heads/@{x}", "refs/heads/a b",    "refs/heads/.hidden",
                         "refs/heads/x/",   "refs/heads/a//b",   "refs/heads/a:b",
                         "refs/heads/a\\b", "/refs/heads/a",     ""};
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        assert_false(cp_git_ref_name_ok(bad[i]));
}

static char dir[64];

/* A scratch folder, with git here kept from the person's config; removed by the test. */
static void scratch(void)
{
    snprintf(dir, sizeof(dir), "/tmp/conch-git-gate-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("HOME", dir, 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
}

/* sh -c script; its exit status. */
static int shell(const char *script)
{
    struct cp_child c = CP_CHILD_INIT;
    cp_error_t err = NULL;
    int status = -1;
    if (cp_spawn((char *[]){"sh", "-c", (char *)script, NULL},
                 &(struct cp_spawn_opts){.path_search = true}, &c, &err) < 0 ||
        cp_child_wait(&c, &status, &err) < 0) {
        cp_error_free(&err);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The object file for bytes, compressed, into dir/obj; its SHA-1 in hex. */
static int object_file(const char *bytes, size_t n, char hex[41])
{
    unsigned char z[256];
    uLongf zn = sizeof(z);
    assert_int_equal(compress(z, &zn, (const unsigned char *)bytes, n), Z_OK);
    unsigned char d[20];
    unsigned dl = 0;
    EVP_Digest(bytes, n, d, &dl, EVP_sha1(), NULL);
    for (int i = 0; i < 20; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    cleanup_free char *p = xasprintf("%s/obj", dir);
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, z, zn), (ssize_t)zn);
    lseek(fd, 0, SEEK_SET);
    return fd;
}

static void test_object(void **state)
{
    (void)state;
    scratch();
    char hex[41];
    const char blob[] = "blob 6\0hello\n";
    int fd = object_file(blob, sizeof(blob) - 1, hex);
    assert_null(cp_git_object_why(fd, hex));
    lseek(fd, 0, SEEK_SET);
    char other[41];
    memcpy(other, hex, sizeof(other));
    other[0] = other[0] == 'f' ? 'e' : 'f';
    assert_string_equal(cp_git_object_why(fd, other),
                        "a loose object whose content does not match its name");
    lseek(fd, 0, SEEK_SET);
    assert_string_equal(cp_git_object_why(fd, "abc"), "not an object's name");
    close(fd);
    cleanup_free char *p = xasprintf("%s/junk", dir);
    put(dir, "junk", "not zlib at all");
    fd = open(p, O_RDONLY);
    assert_string_equal(cp_git_object_why(fd, hex), "a loose object that does not inflate");
    close(fd);
    remove_tree(dir);
}

struct seen {
    char said[8192];
};

static void on_refuse(void *ctx, const char *path, const char *why)
{
    struct seen *s = ctx;
    size_t n = strlen(s->said);
    snprintf(s->said + n, sizeof(s->said) - n, "refused %s: %s\n", path, why);
}

static void on_tell(void *ctx, const char *what, const char *path, const char *why)
{
    struct seen *s = ctx;
    size_t n = strlen(s->said);
    snprintf(s->said + n, sizeof(s->said) - n, "%s %s\n", what, path);
}

static char *git_out(const char *cmd)
{
    cleanup_free char *full =
        xasprintf("cd %s/work && git -c user.name=t -c user.email=t@e %s", dir, cmd);
    FILE *f = popen(full, "r");
    assert_non_null(f);
    char buf[128] = "";
    if (fgets(buf, sizeof(buf), f) == NULL)
        buf[0] = '\0';
    pclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return xstrdup(buf);
}

static void say_line(void *ctx, const char *line)
{
    on_tell(ctx, "said", line, NULL);
}

/* The gate's fast answers from loose objects here (git-loose.c): an object is here when its
 * loose file is, and a commit is a fast-forward from a parent it names, its second parent too;
 * nothing else passes for one (a root commit, itself, a tree, a shortened id). */
static void test_loose(void **state)
{
    (void)state;
    scratch();
    cleanup_free char *mk =
        xasprintf("cd %s && git init -q work && cd work && g() { git -c user.name=t -c "
                  "user.email=t@e \"$@\"; }"
                  " && echo a >f && g add f && g commit -qm a && echo b >>f && g commit -qam b"
                  " && g checkout -qb side HEAD~1 && echo c >c && g add c && g commit -qm c"
                  " && g checkout -q - && g merge -q --no-edit side",
                  dir);
    assert_int_equal(shell(mk), 0);
    cleanup_free char *m = git_out("rev-parse HEAD"), *b = git_out("rev-parse HEAD^1"),
                      *c = git_out("rev-parse HEAD^2"), *a = git_out("rev-parse HEAD~2"),
                      *tree = git_out("rev-parse HEAD^{tree}");
    cleanup_free char *gd = xasprintf("%s/work/.git", dir);
    int gitfd = open(gd, O_RDONLY | O_DIRECTORY);
    assert_true(gitfd >= 0);
    assert_true(cp_git_loose_here(gitfd, b));
    assert_false(cp_git_loose_here(gitfd, "0123456789012345678901234567890123456789"));
    assert_false(cp_git_loose_here(gitfd, "../../etc"));
    assert_true(cp_git_loose_parent_is(gitfd, b, a));
    assert_true(cp_git_loose_parent_is(gitfd, m, b));
    assert_true(cp_git_loose_parent_is(gitfd, m, c));
    assert_false(cp_git_loose_parent_is(gitfd, m, a));
    assert_false(cp_git_loose_parent_is(gitfd, a, b));
    assert_false(cp_git_loose_parent_is(gitfd, b, b));
    assert_false(cp_git_loose_parent_is(gitfd, tree, a));
    char shortened[40];
    snprintf(shortened, sizeof(shortened), "%.39s", a);
    assert_false(cp_git_loose_parent_is(gitfd, b, shortened));
    close(gitfd);
    remove_tree(dir);
}

static void test_refs(void **state)
{
    (void)state;
    scratch();
    cleanup_free char *init =
        xasprintf("mkdir -p %s/work %s/up/.git && cd %s/work && git init -q -b main && "
                  "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m a && "
                  "git tag v1 && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m b",
                  dir, dir, dir);
    assert_int_equal(shell(init), 0);
    cleanup_free char *a = git_out("rev-parse HEAD~1");
    cleanup_free char *b = git_out("rev-parse HEAD");
    cleanup_free char *up = xasprintf("%s/up/.git", dir);
    cleanup_free char *va = xasprintf("%s\n", a);
    cleanup_free char *vb = xasprintf("%s\n", b);
    put(up, "refs/heads/ghost", "0123456789012345678901234567890123456789\n");
    put(up, "refs/heads/new", vb);
    put(up, "refs/heads/main", va); /* backwards */
    put(up, "refs/tags/v1", vb);    /* a tag moved */
    put(up, "refs/heads/sym", "ref: refs/heads/main\n");
    put(up, "HEAD", "ref: refs/heads/../config\n");
    cleanup_free char *work = xasprintf("%s/work", dir);
    struct seen s = {{0}};
    struct cp_mirror_report rep = {.say = say_line, .ctx = &s};
    int rootfd = open(work, O_RDONLY | O_DIRECTORY);
    int upfd = open(up, O_RDONLY | O_DIRECTORY);
    cp_git_land(&(struct cp_git_land_opts){.rootfd = rootfd,
                                           .upfd = upfd,
                                           .since_ns = INT64_MAX,
                                           .rep = &rep,
                                           .refuse = on_refuse,
                                           .tell = on_tell,
                                           .ctx = &s});
    close(rootfd);
    close(upfd);
    assert_non_null(
        strstr(s.said, "refused .git/refs/heads/ghost: a ref naming an object that is not here"));
    assert_non_null(strstr(s.said, "refused .git/refs/tags/v1: a tag here is never moved"));
    assert_non_null(strstr(s.said, "refused .git/refs/heads/sym: a ref that is not an object id"));
    assert_non_null(
        strstr(s.said, "refused .git/HEAD: HEAD lands only as a branch or a commit id"));
    assert_non_null(strstr(s.said, "added .git/refs/heads/new"));
    assert_non_null(strstr(s.said, "refs/heads/main moved not as a fast-forward"));
    cleanup_free char *nw = git_out("rev-parse new");
    assert_string_equal(nw, b);
    cleanup_free char *mn = git_out("rev-parse main");
    assert_string_equal(mn, a);
    cleanup_free char *log = git_out("reflog -1 --format=%gs main");
    assert_non_null(strstr(log, b));
    cleanup_free char *tag = git_out("rev-parse v1");
    assert_string_equal(tag, a);
    cp_report_dispose(&rep);
    remove_tree(dir);
}

/* Lands dir/up/.git into dir/work; what was said. */
static void land_up(struct seen *s)
{
    cleanup_free char *work = xasprintf("%s/work", dir);
    cleanup_free char *up = xasprintf("%s/up/.git", dir);
    struct cp_mirror_report rep = {.say = say_line, .ctx = s};
    int rootfd = open(work, O_RDONLY | O_DIRECTORY);
    int upfd = open(up, O_RDONLY | O_DIRECTORY);
    cp_git_land(&(struct cp_git_land_opts){.rootfd = rootfd,
                                           .upfd = upfd,
                                           .since_ns = INT64_MAX,
                                           .rep = &rep,
                                           .refuse = on_refuse,
                                           .tell = on_tell,
                                           .ctx = s});
    close(rootfd);
    close(upfd);
    cp_report_dispose(&rep);
}

/* The box's packs: a good one (with its reverse index and a .keep) lands and git here reads its
 * commit; one whose index lies (a byte of an offset changed, the index's own checksum made
 * again) is refused, and so is one whose name is not its checksum, an index without its pack,
 * a bitmap and a .promisor. */
static void test_packs(void **state)
{
    (void)state;
    scratch();
    cleanup_free char *init = xasprintf(
        "set -e; cd %s; mkdir -p up/.git/objects/pack; git init -q -b main work; git init -q -b "
        "main "
        "src; cd src; for i in 1 2 3; do echo $i >f$i; git add f$i; git -c user.name=t "
        "-c user.email=t@e commit -qm c$i; done; git -c pack.writeReverseIndex=true repack -adq; "
        "cp .git/objects/pack/pack-* ../up/.git/objects/pack/; cd ../up/.git/objects/pack; "
        "for f in pack-*.idx; do touch ${f%%.idx}.keep ${f%%.idx}.bitmap ${f%%.idx}.promisor; done",
        dir);
    assert_int_equal(shell(init), 0);
    cleanup_free char *tip = xasprintf("cd %s/src && git rev-parse HEAD", dir);
    FILE *f = popen(tip, "r");
    char head[64] = "";
    assert_non_null(fgets(head, sizeof(head), f));
    pclose(f);
    head[strcspn(head, "\n")] = '\0';
    struct seen s = {{0}};
    land_up(&s);
    assert_non_null(strstr(s.said, "added .git/objects/pack/pack-"));
    assert_non_null(strstr(s.said, ".bitmap: a pack's bitmap or mtimes never lands"));
    assert_non_null(strstr(s.said, ".promisor: a .promisor never lands"));
    cleanup_free char *read = xasprintf(
        "cd %s/work && git cat-file -e %s && git fsck --no-dangling >/dev/null 2>&1 && ls "
        ".git/objects/pack/*.keep >/dev/null "
        ".git/objects/pack/*.rev >/dev/null && ! ls -d .git/objects/pack/tmp_* 2>/dev/null",
        dir, head);
    assert_int_equal(shell(read), 0);

    /* A lying index: its first offset moved by one, its trailer made to match again. */
    cleanup_free char *lie = xasprintf(
        "set -e; cd %s; rm -rf work up; mkdir -p up/.git/objects/pack; git init -q -b main work; "
        "cp src/.git/objects/pack/pack-*.pack src/.git/objects/pack/pack-*.idx "
        "up/.git/objects/pack/; "
        "python3 -c \"import glob,hashlib; p=glob.glob('up/.git/objects/pack/*.idx')[0]; "
        "b=bytearray(open(p,'rb').read()); n=b[1028]<<24|b[1029]<<16|b[1030]<<8|b[1031]; "
        "o=8+1024+n*24; b[o+3]^=1; b[-20:]=hashlib.sha1(b[:-20]).digest(); "
        "open(p,'wb').write(b)\"; "
        "mkdir -p up/.git/objects/pack/x; cd up/.git/objects/pack; p=$(ls pack-*.pack); "
        "cp $p pack-0123456789012345678901234567890123456789.pack; "
        "cp ${p%%.pack}.idx pack-0123456789012345678901234567890123456789.idx; "
        "cp ${p%%.pack}.idx pack-1111111111111111111111111111111111111111.idx",
        dir);
    assert_int_equal(shell(lie), 0);
    memset(&s, 0, sizeof(s));
    land_up(&s);
    assert_non_null(strstr(s.said, ".pack: a pack whose index does not match it"));
    assert_non_null(strstr(s.said, "pack-0123456789012345678901234567890123456789.pack: a pack "
                                   "whose name is not its checksum"));
    assert_non_null(strstr(s.said, "pack-1111111111111111111111111111111111111111.idx: a pack's "
                                   "index or keep file lands only with its pack"));
    cleanup_free char *none =
        xasprintf("cd %s/work && ! ls .git/objects/pack/pack-* 2>/dev/null && "
                  "! git cat-file -e %s 2>/dev/null && "
                  "! ls -d .git/objects/pack/tmp_* 2>/dev/null",
                  dir, head);
    assert_int_equal(shell(none), 0);
    remove_tree(dir);
}

static void walk_land(void *ctx, int herefd, int upfd, const char *rel)
{
    assert_true(herefd >= 0 && upfd >= 0);
    on_tell(ctx, "land", rel, NULL);
}

/* The walk of a layer's modules/: a git folder here (a HEAD file), its NAME holding '/', goes
 * to be landed and is not walked into; one with a HEAD in the layer alone is new and refused
 * whole, as is one behind a link here; a file on no git folder's way is refused, and so is a
 * deletion. */
static void test_modules_walk(void **state)
{
    (void)state;
    scratch();
    cleanup_free char *here = xasprintf("%s/here", dir), *up = xasprintf("%s/up", dir);
    assert_int_equal(mkdir(here, 0755) | mkdir(up, 0755), 0);
    put(here, "modules/a/b/HEAD", "ref: refs/heads/main\n");
    put(here, "modules/c/HEAD", "ref: refs/heads/main\n");
    put(up, "modules/a/b/refs/heads/main", "x\n");
    put(up, "modules/c/modules/n/HEAD", "ref: refs/heads/main\n");
    put(up, "modules/d/e/f", "x\n");
    put(up, "modules/new/HEAD", "ref: refs/heads/main\n");
    put(up, "modules/new/config", "[core]\n");
    put(up, "modules/stray", "x\n");
    put(up, "modules/lnk/HEAD", "ref: refs/heads/main\n");
    cleanup_free char *link = xasprintf("ln -s c %s/modules/lnk", here);
    assert_int_equal(shell(link), 0);
    /* A deleted submodule's git folder is a whiteout in the layer (made where mknod may be). */
    cleanup_free char *gone = xasprintf("%s/modules/gone", up);
    bool whiteout = mknod(gone, S_IFCHR, makedev(0, 0)) == 0;
    struct seen s = {{0}};
    int herefd = open(here, O_RDONLY | O_DIRECTORY), upfd = open(up, O_RDONLY | O_DIRECTORY);
    cp_git_modules_walk(&(struct cp_git_modules){
        .herefd = herefd, .upfd = upfd, .land = walk_land, .refuse = on_refuse, .ctx = &s});
    close(herefd);
    close(upfd);
    cleanup_free char *want =
        xasprintf("land modules/a/b\nland modules/c\n"
                  "refused modules/d/e/f: in no submodule's git folder here: not on git's table\n%s"
                  "refused modules/lnk: %s\nrefused modules/new: %s\n"
                  "refused modules/stray: in no submodule's git folder here: not on git's table\n",
                  whiteout ? "refused modules/gone: nothing under modules/ is deleted here\n" : "",
                  cp_git_module_new_why, cp_git_module_new_why);
    assert_string_equal(s.said, want);
    remove_tree(dir);
}

/* sh -c script in dir, which must succeed. */
static void in_dir(const char *script)
{
    cleanup_free char *full =
        xasprintf("set -e; cd %s; G() { git -c user.name=t -c "
                  "user.email=t@e -c protocol.file.allow=always \"$@\"; }; %s",
                  dir, script);
    assert_int_equal(shell(full), 0);
}

/* A repository here with a submodule holding one of its own, copied to a box that commits in
 * both submodules and the top (moving the gitlinks), forces a submodule's branch backwards and
 * writes its config, a hook and info/attributes, and makes a new submodule's git folder; the
 * layer is what the box changed in .git. Each submodule's commit lands in its git folder here
 * with the top's, git fsck is clean in each, the forced branch's old value is in its reflog,
 * and the rest is refused with its reason, as the top .git's is. */
static void test_modules_land(void **state)
{
    (void)state;
    scratch();
    in_dir("for r in inner src; do git init -q -b main $r; echo $r >$r/f; G -C $r add f;"
           "  G -C $r commit -qm $r-1; done;"
           "G -C src submodule add -q ../inner inner; G -C src commit -qm with-inner;"
           "git init -q -b main work; G -C work submodule add -q ../src sub;"
           "G -C work submodule update -q --init --recursive; G -C work commit -qm add-sub;"
           "G -C work/sub branch keep; cp -a work box; cd box;"
           "echo 2 >>sub/inner/f; G -C sub/inner commit -qam inner-2;"
           "G -C sub add inner; G -C sub commit -qm sub-2; G -C sub branch -f keep HEAD~2;"
           "G add sub; G commit -qm top-2;"
           "G -C sub config core.hooksPath /tmp/h; echo x >.git/modules/sub/hooks/post-checkout;"
           "mkdir -p .git/modules/sub/info; echo '* filter=x' >.git/modules/sub/info/attributes;"
           "mkdir -p .git/modules/new/objects; echo 'ref: refs/heads/main' >.git/modules/new/HEAD;"
           "cd .git; find . -type f | while read -r f; do cmp -s \"$f\" \"../../work/.git/$f\" ||"
           "  { mkdir -p \"../../up/.git/${f%/*}\"; cp -p \"$f\" \"../../up/.git/$f\"; }; done");
    struct seen s = {{0}};
    land_up(&s);
    in_dir("cd work; [ \"$(git log -1 --format=%s)\" = top-2 ];"
           "[ \"$(git -C sub log -1 --format=%s)\" = sub-2 ];"
           "[ \"$(git -C sub/inner log -1 --format=%s)\" = inner-2 ];"
           "[ \"$(git rev-parse HEAD:sub)\" = \"$(git -C sub rev-parse HEAD)\" ];"
           "for r in . sub sub/inner; do [ -z \"$(git -C $r fsck --no-dangling 2>&1)\" ]; done;"
           "git -C sub reflog keep | grep -q 'not as a fast-forward';"
           "! grep -q hooksPath .git/modules/sub/config;"
           "[ ! -e .git/modules/sub/hooks/post-checkout ] && [ ! -e "
           ".git/modules/sub/info/attributes ] &&"
           "[ ! -e .git/modules/new ]");
    assert_non_null(strstr(s.said, "changed .git/modules/sub/modules/inner/HEAD"));
    assert_non_null(strstr(s.said, "changed .git/modules/sub/refs/heads/main"));
    assert_non_null(strstr(s.said, "refused .git/modules/sub/config: git's config never lands"));
    assert_non_null(
        strstr(s.said, "refused .git/modules/sub/hooks/post-checkout: git's hooks never land"));
    assert_non_null(strstr(s.said, "refused .git/modules/sub/info/attributes: info/ never lands"));
    cleanup_free char *new_said = xasprintf("refused .git/modules/new: %s", cp_git_module_new_why);
    assert_non_null(strstr(s.said, new_said));
    assert_non_null(strstr(s.said, "said refs/heads/keep in .git/modules/sub moved not as a "
                                   "fast-forward"));
    assert_non_null(strstr(s.said, "(git --git-dir=.git/modules/sub reflog refs/heads/keep)"));
    remove_tree(dir);
}

/* A linked worktree's two halves: the common folder refuses the main worktree's own HEAD, index
 * and state and lands the rest as a whole one does; the worktree's own folder lands its own
 * state alone. */
static void test_table_parts(void **state)
{
    (void)state;
    const char *why = NULL;
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "HEAD", &why), CP_GIT_REFUSED);
    assert_non_null(strstr(why, "main worktree's own"));
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "index", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "logs/HEAD", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "FETCH_HEAD", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "refs/heads/x", &why), CP_GIT_REF);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "objects/ab/cd", &why), CP_GIT_OBJECT);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "logs/refs/heads/x", &why), CP_GIT_FILE);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_COMMON, "config", &why), CP_GIT_REFUSED);
    assert_non_null(strstr(why, "config never lands"));
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "HEAD", &why), CP_GIT_HEAD);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "index", &why), CP_GIT_FILE);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "logs/HEAD", &why), CP_GIT_FILE);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "ORIG_HEAD", &why), CP_GIT_FILE);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "refs/heads/x", &why), CP_GIT_REFUSED);
    assert_non_null(strstr(why, "own folder holds"));
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "objects/ab/cd", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "packed-refs", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "gitdir", &why), CP_GIT_REFUSED);
    assert_non_null(strstr(why, "another folder"));
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "commondir", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_OWN, "config.worktree", &why), CP_GIT_REFUSED);
    assert_int_equal(cp_git_table_kind_in(CP_GIT_WHOLE, "HEAD", &why), CP_GIT_HEAD);
}

/* found: 1, 0 or -1; then the git folder, worktree and owner it must name (NULL: none), or a
 * piece of why not. */
static void outside_is(const char *work, int found, const char *gitdir, const char *worktree,
                       const char *owner_or_why)
{
    cleanup_free char *w = xasprintf("%s/%s", dir, work);
    struct cp_git_outside g;
    cleanup_free char *why = NULL;
    assert_int_equal(cp_git_outside_find(w, &g, &why), found);
    if (found < 0)
        assert_non_null(strstr(why, owner_or_why));
    if (found > 0) {
        cleanup_free char *want_dir = xasprintf("%s/%s", dir, gitdir);
        cleanup_free char *want_owner = xasprintf("%s/%s", dir, owner_or_why);
        assert_string_equal(g.dir, want_dir);
        assert_string_equal(g.owner, want_owner);
        if (worktree == NULL)
            assert_null(g.worktree);
        else
            assert_string_equal(g.worktree, worktree);
    }
    cp_git_outside_dispose(&g);
}

/* Which git folder outside a work folder is followed: a linked worktree's (by an absolute or a
 * relative gitdir), a submodule's run on its own, a separate git folder; and which is not: a
 * worktree whose git folder names another folder back, a .git link, a .git file naming nothing,
 * a git folder inside the work folder. A .git folder is no git folder outside. */
static void test_outside_find(void **state)
{
    (void)state;
    scratch();
    static const char *const git_folder[] = {"HEAD", "objects/.keep", "refs/.keep", NULL};
    for (size_t i = 0; git_folder[i] != NULL; i++) {
        cleanup_free char *m = xasprintf("m/.git/%s", git_folder[i]);
        cleanup_free char *sub = xasprintf("m/.git/modules/s/%s", git_folder[i]);
        cleanup_free char *sep = xasprintf("sep.git/%s", git_folder[i]);
        cleanup_free char *in = xasprintf("inner/g/%s", git_folder[i]);
        put(dir, m, "ref: refs/heads/main\n");
        put(dir, sub, "ref: refs/heads/main\n");
        put(dir, sep, "ref: refs/heads/main\n");
        put(dir, in, "ref: refs/heads/main\n");
    }
    cleanup_free char *back = xasprintf("%s/wt/.git\n", dir);
    cleanup_free char *to_wt = xasprintf("gitdir: %s/m/.git/worktrees/wt\n", dir);
    put(dir, "m/.git/worktrees/wt/commondir", "../..\n");
    put(dir, "m/.git/worktrees/wt/gitdir", back);
    put(dir, "m/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n");
    put(dir, "wt/.git", to_wt);
    outside_is("wt", 1, "m/.git", "wt", "m");
    put(dir, "wt2/.git", "gitdir: ../m/.git/worktrees/wt\n"); /* names wt's: not its own */
    outside_is("wt2", -1, NULL, NULL, "names another folder");
    put(dir, "s/.git", "gitdir: ../m/.git/modules/s\n");
    outside_is("s", 1, "m/.git/modules/s", NULL, "m");
    put(dir, "sep/.git", "gitdir: ../sep.git\n");
    outside_is("sep", 1, "sep.git", NULL, "sep.git");
    put(dir, "none/.git", "gitdir: ../nowhere\n");
    outside_is("none", -1, NULL, NULL, "names no git folder");
    put(dir, "inner/.git", "gitdir: g\n");
    outside_is("inner", -1, NULL, NULL, "hold one another");
    cleanup_free char *link = xasprintf("%s/linked", dir);
    cleanup_free char *link_git = xasprintf("%s/linked/.git", dir);
    cleanup_free char *m_git = xasprintf("%s/m/.git", dir);
    assert_int_equal(mkdir(link, 0755), 0);
    assert_int_equal(symlink(m_git, link_git), 0);
    outside_is("linked", -1, NULL, NULL, "a link");
    outside_is("m", 0, NULL, NULL, NULL);
    remove_tree(dir);
}

/* A box in a linked worktree (its .git copied, changed, and the changes as its layer): its
 * commit, the worktree's index and a new branch land; the main worktree's HEAD, the config,
 * another worktree's folder, the worktree's gitdir and an object under its own folder are
 * refused with their reasons; git fsck here is clean. */
static void test_worktree_land(void **state)
{
    (void)state;
    scratch();
    in_dir("git init -q -b main work; echo 1 >work/f; G -C work add f; G -C work commit -qm one;"
           "G -C work worktree add -q ../wt -b wtb; cp -a work/.git box-git; cp -a wt box-wt;"
           "echo 2 >>box-wt/f;"
           "GIT_DIR=$PWD/box-git/worktrees/wt GIT_WORK_TREE=$PWD/box-wt G commit -qam wt-2;"
           "G --git-dir=box-git branch side wtb; echo 'ref: refs/heads/side' >box-git/HEAD;"
           "G --git-dir=box-git config core.hooksPath /tmp/h; echo /x >box-git/worktrees/wt/gitdir;"
           "mkdir -p box-git/worktrees/other box-git/worktrees/wt/objects/ab;"
           "echo 'ref: refs/heads/main' >box-git/worktrees/other/HEAD;"
           "echo x >box-git/worktrees/wt/objects/ab/cd;"
           "G --git-dir=box-git update-ref refs/heads/main $(G --git-dir=box-git rev-parse wtb);"
           "echo 'ref: refs/heads/main' >box-git/worktrees/wt/HEAD;"
           "cd box-git; find . -type f | while read -r f; do cmp -s \"$f\" \"../work/.git/$f\" ||"
           "  { mkdir -p \"../up/${f%/*}\"; cp -p \"$f\" \"../up/$f\"; }; done");
    struct seen s = {{0}};
    cleanup_free char *git = xasprintf("%s/work/.git", dir);
    cleanup_free char *up = xasprintf("%s/up", dir);
    struct cp_mirror_report rep = {.say = say_line, .ctx = &s};
    int herefd = open(git, O_RDONLY | O_DIRECTORY), upfd = open(up, O_RDONLY | O_DIRECTORY);
    cp_git_land(&(struct cp_git_land_opts){.rootfd = -1,
                                           .upfd = upfd,
                                           .where = git,
                                           .herefd = herefd,
                                           .worktree = "wt",
                                           .since_ns = INT64_MAX,
                                           .rep = &rep,
                                           .refuse = on_refuse,
                                           .tell = on_tell,
                                           .ctx = &s});
    close(herefd);
    close(upfd);
    cp_report_dispose(&rep);
    in_dir("[ \"$(git -C wt log -1 --format=%s)\" = wt-2 ]; git -C wt diff --cached --quiet HEAD;"
           "git -C work rev-parse -q --verify side >/dev/null;"
           "grep -qx 'ref: refs/heads/main' work/.git/HEAD; ! grep -q hooksPath work/.git/config;"
           "[ ! -e work/.git/worktrees/other ]; grep -q /wt/.git work/.git/worktrees/wt/gitdir;"
           "[ ! -e work/.git/worktrees/wt/objects ]; [ -z \"$(git -C work fsck --no-dangling "
           "2>&1)\" ]; [ \"$(git -C work log -1 --format=%s main)\" = one ]");
    cleanup_free char *said = xasprintf(
        "refused %s/HEAD: the main worktree's own|refused %s/config: git's config never lands|"
        "refused %s/worktrees/other/HEAD: a linked worktree's git folder never lands|"
        "refused %s/worktrees/wt/gitdir: gitdir names another folder|"
        "refused %s/worktrees/wt/objects/ab/cd: a linked worktree's own folder holds|"
        "changed %s/worktrees/wt/index|changed %s/refs/heads/wtb|"
        "refused %s/refs/heads/main: a branch checked out in another worktree|"
        "refused %s/worktrees/wt/HEAD: HEAD never lands as a branch checked out",
        git, git, git, git, git, git, git, git, git);
    for (char *one = said, *bar; one != NULL; one = bar ? bar + 1 : NULL) {
        bar = strchr(one, '|');
        if (bar != NULL)
            *bar = '\0';
        if (strstr(s.said, one) == NULL)
            fail_msg("not said: %s\nsaid:\n%s", one, s.said);
    }
    remove_tree(dir);
}

/* A box in the main folder: its own branch moves, a branch checked out in a linked worktree
 * never does (that worktree's files would stay behind), with its reason. */
static void test_checked_out_elsewhere(void **state)
{
    (void)state;
    scratch();
    in_dir("git init -q -b main work; echo 1 >work/f; G -C work add f; G -C work commit -qm one;"
           "G -C work worktree add -q ../wt -b wtb; cp -a work/.git box-git;"
           "c=$(G --git-dir=box-git commit-tree -p main -m two main^{tree});"
           "G --git-dir=box-git update-ref refs/heads/main $c;"
           "G --git-dir=box-git update-ref refs/heads/wtb $c;"
           "echo 'ref: refs/heads/wtb' >box-git/HEAD;"
           "cd box-git; find . -type f | while read -r f; do cmp -s \"$f\" \"../work/.git/$f\" ||"
           "  { mkdir -p \"../up/.git/${f%/*}\"; cp -p \"$f\" \"../up/.git/$f\"; }; done");
    struct seen s = {{0}};
    land_up(&s);
    in_dir("[ \"$(git -C work log -1 --format=%s main)\" = two ];"
           "[ \"$(git -C work log -1 --format=%s wtb)\" = one ];"
           "grep -qx 'ref: refs/heads/main' work/.git/HEAD;"
           "grep -qx 'ref: refs/heads/wtb' work/.git/worktrees/wt/HEAD");
    assert_non_null(strstr(s.said, "refused .git/HEAD: HEAD never lands as a branch checked out"));
    assert_non_null(strstr(s.said, "changed .git/refs/heads/main"));
    assert_non_null(strstr(s.said, "refused .git/refs/heads/wtb: a branch checked out in another "
                                   "worktree here never moves from this box"));
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_refuses),
        cmocka_unit_test(test_table_lands),
        cmocka_unit_test(test_ref_names),
        cmocka_unit_test(test_object),
        cmocka_unit_test(test_loose),
        cmocka_unit_test(test_refs),
        cmocka_unit_test(test_packs),
        cmocka_unit_test(test_modules_walk),
        cmocka_unit_test(test_modules_land),
        cmocka_unit_test(test_table_parts),
        cmocka_unit_test(test_outside_find),
        cmocka_unit_test(test_worktree_land),
        cmocka_unit_test(test_checked_out_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
