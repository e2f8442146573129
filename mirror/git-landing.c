/* The top .git through the gate, and each submodule's git folder under it as a git folder of
 * its own (mirror/git-modules.c finds them). Every file is reached without following a link, on
 * both sides (mirror/walk.c). Objects are checked here by code of our own (zlib and libcrypto's
 * digest: one loose object costs microseconds, a git process per object about a millisecond
 * and a half); a ref's object and a branch's ancestry are asked of git's own plumbing, run
 * here on this computer's repository with a clean environment (no global or system config,
 * no hooks, no fsmonitor), since only git knows a commit inside a pack. Nothing the box wrote
 * in a git folder's config ever lands, so the config git reads there is this computer's. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <json-c/json.h>

#include "mirror/git-landing.h"
#include "mirror/git-loose.h"
#include "mirror/git-modules.h"
#include "mirror/git-run.h"
#include "mirror/git-table.h"
#include "mirror/rules.h"
#include "mirror/walk.h"
#include "src/base/spawn.h"
#include "src/base/strvec.h"
#include "src/base/test-hold.h"
#include "src/base/util.h"
#include "src/base/report.h"

/* What the landings of the top .git and its submodules' git folders share. */
struct gl_run {
    json_object *refs, *refused;
    unsigned tmp_counter;
    bool held; /* test_hold's, once */
};

/* One git folder's landing: the top .git, or a submodule's (mirror/git-modules.c). */
struct gl {
    const struct cp_git_land_opts *o;
    struct gl_run *run;
    const char *where; /* the git folder from the work folder: ".git", ".git/modules/NAME" */
    int depth;         /* in submodules: 0 for the top .git */
    int hostfd;        /* the git folder here */
    int upfd;          /* and in the layer */
    uint64_t hostdev, updev;
    struct cp_strvec files, whiteouts; /* rel paths in the layer's git folder */
    bool modules;                      /* the layer holds its modules/ folder */
};

static void test_hold(struct gl *g, const char *stage);

static bool is_whiteout(const struct stat *st)
{
    return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[n] == '\0';
}

static void refuse(struct gl *g, const char *rel, const char *why)
{
    cleanup_free char *path = xasprintf("%s/%s", g->where, rel);
    g->o->refuse(g->o->ctx, path, why);
    if (g->o->dry_run)
        return;
    json_object *r = json_object_new_object();
    json_object_object_add(r, "path", json_object_new_string(path));
    json_object_object_add(r, "reason", json_object_new_string(why));
    json_object_array_add(g->run->refused, r);
}

static void tell(struct gl *g, const char *what, const char *rel)
{
    cleanup_free char *path = xasprintf("%s/%s", g->where, rel);
    g->o->tell(g->o->ctx, what, path, NULL);
    if (!g->o->dry_run)
        cp_run_report_file("back", path, NULL);
}

static void say_kept(struct gl *g, const char *rel, const char *box)
{
    cleanup_free char *path = xasprintf("%s/%s", g->where, rel);
    cleanup_free char *shown = cp_escape(path);
    if (g->o->rep != NULL)
        g->o->rep->conflicts++;
    cp_report(g->o->rep, "changed here during the run: kept this computer's %s%s%s", shown,
              box ? "; the box's value was " : "", box ? box : "");
}

/* Every entry under the layer's git folder, as files and whiteouts; anything else is refused.
 * Its modules/ folder is the submodules' walk's (mirror/git-modules.c). */
static void collect(struct gl *g, int fd, const char *rel)
{
    cleanup_strv char **v = cp_walk_names(fd);
    if (v == NULL) {
        refuse(g, rel[0] ? rel : ".", "unreadable folder");
        return;
    }
    for (size_t i = 0; v[i] != NULL; i++) {
        cleanup_free char *path = rel[0] ? xasprintf("%s/%s", rel, v[i]) : xstrdup(v[i]);
        struct stat st;
        if (fstatat(fd, v[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
            refuse(g, path, "unreadable");
        } else if (S_ISDIR(st.st_mode) && strcmp(path, "modules") == 0) {
            g->modules = true;
        } else if (S_ISDIR(st.st_mode)) {
            cleanup_close int sub =
                openat(fd, v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                refuse(g, path, "unreadable folder");
            else
                collect(g, sub, path);
        } else if (is_whiteout(&st)) {
            cp_strvec_push(&g->whiteouts, path);
        } else if (S_ISREG(st.st_mode)) {
            cp_strvec_push(&g->files, path);
        } else {
            refuse(g, path, "not a plain file in a git folder");
        }
    }
}

/* Opens rel in the layer (read) or its folder here (write), never through a link. */
static int open_up(struct gl *g, const char *rel)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->upfd, g->updev, rel, false, &dirfd, &base, &why) < 0)
        return -1;
    return openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

static void drop_up(struct gl *g, const char *rel)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->upfd, g->updev, rel, false, &dirfd, &base, &why) == 0)
        unlinkat(dirfd, base, 0);
}

/* Reads a small file of the layer (a ref, HEAD, packed-refs) whole; NULL when it cannot. */
static char *read_up(struct gl *g, const char *rel, size_t max)
{
    cleanup_close int fd = open_up(g, rel);
    if (fd < 0)
        return NULL;
    char *buf = xmalloc(max + 1);
    size_t n = 0;
    for (ssize_t r; n < max && (r = read(fd, buf + n, max - n)) != 0;) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return NULL;
        }
        n += (size_t)r;
    }
    buf[n] = '\0';
    if (n == max || strlen(buf) != n) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *read_here(struct gl *g, const char *rel, struct stat *st)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, false, &dirfd, &base, &why) < 0)
        return NULL;
    cleanup_close int fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_size > (64 << 20))
        return NULL;
    char *buf = xmalloc((size_t)st->st_size + 1);
    ssize_t n = read(fd, buf, (size_t)st->st_size);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static bool changed_here(struct gl *g, const struct stat *st)
{
    return (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec >= g->o->since_ns;
}

/* A temporary name in a folder here: git's own tmp_obj_ prefix under objects/ (git fsck passes
 * it by and git prune removes it, should a kill leave one), else a dot name git never reads. */
static void tmp_name(struct gl *g, const char *rel, char tmp[64])
{
    snprintf(tmp, 64, "%s%ld-%u",
             strncmp(rel, "objects/", 8) == 0 ? "tmp_obj_conch-" : ".conch-git-", (long)getpid(),
             g->run->tmp_counter++);
}

/* Copies the layer's rel to a new file name in dirfd here, synced; -1 (nothing left) on failure. */
static int copy_to(struct gl *g, const char *rel, int dirfd, const char *name, mode_t mode)
{
    cleanup_close int in = open_up(g, rel);
    if (in < 0)
        return -1;
    cleanup_close int out =
        openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (out < 0)
        return -1;
    char buf[65536];
    for (ssize_t n;;) {
        n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            break;
        if (n < 0 || cp_write_all(out, buf, (size_t)n) < 0) {
            unlinkat(dirfd, name, 0);
            return -1;
        }
    }
    if (fsync(out) < 0) {
        unlinkat(dirfd, name, 0);
        return -1;
    }
    return 0;
}

/* Copies the layer's rel to rel here through a new name in its folder: replace, or added only
 * (an existing one is kept: EEXIST). */
static int copy_in(struct gl *g, const char *rel, mode_t mode, bool replace)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, true, &dirfd, &base, &why) < 0)
        return -1;
    char tmp[64];
    tmp_name(g, rel, tmp);
    if (copy_to(g, rel, dirfd, tmp, mode) < 0)
        return -1;
    if (renameat2(dirfd, tmp, dirfd, base, replace ? 0 : RENAME_NOREPLACE) < 0) {
        int saved = errno;
        unlinkat(dirfd, tmp, 0);
        errno = saved;
        return -1;
    }
    return 0;
}

const char *cp_git_object_why(int fd, const char *hex)
{
    size_t len = strlen(hex);
    const EVP_MD *md = len == 40 ? EVP_sha1() : len == 64 ? EVP_sha256() : NULL;
    if (md == NULL || !is_hex(hex, len))
        return "not an object's name";
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    z_stream z = {0};
    if (ctx == NULL || EVP_DigestInit_ex(ctx, md, NULL) != 1 || inflateInit(&z) != Z_OK) {
        EVP_MD_CTX_free(ctx);
        return "cannot check it";
    }
    unsigned char in[16384], out[65536];
    int zr = Z_OK;
    while (zr != Z_STREAM_END) {
        ssize_t n = read(fd, in, sizeof(in));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        z.next_in = in;
        z.avail_in = (unsigned)n;
        while (z.avail_in > 0 && zr != Z_STREAM_END) {
            z.next_out = out;
            z.avail_out = sizeof(out);
            zr = inflate(&z, Z_NO_FLUSH);
            if (zr != Z_OK && zr != Z_STREAM_END)
                break;
            EVP_DigestUpdate(ctx, out, sizeof(out) - z.avail_out);
        }
        if (zr != Z_OK && zr != Z_STREAM_END)
            break;
    }
    inflateEnd(&z);
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned dl = 0;
    EVP_DigestFinal_ex(ctx, d, &dl);
    EVP_MD_CTX_free(ctx);
    if (zr != Z_STREAM_END)
        return "a loose object that does not inflate";
    char got[2 * EVP_MAX_MD_SIZE + 1];
    for (unsigned i = 0; i < dl; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    return strcmp(got, hex) == 0 ? NULL : "a loose object whose content does not match its name";
}

static void land_object(struct gl *g, const char *rel)
{
    /* objects/xx/yyyy...: the name is the folder and the file together. */
    const char *p = rel + strlen("objects/");
    const char *slash = strchr(p, '/');
    if (slash == NULL || slash - p != 2 || strchr(slash + 1, '/') != NULL) {
        refuse(g, rel, "not on git's table");
        return;
    }
    char hex[72];
    snprintf(hex, sizeof(hex), "%.2s%s", p, slash + 1);
    cleanup_close int fd = open_up(g, rel);
    const char *why = fd < 0 ? "unreadable" : cp_git_object_why(fd, hex);
    if (why != NULL) {
        refuse(g, rel, why);
        return;
    }
    if (g->o->dry_run) {
        tell(g, "added", rel);
        return;
    }
    if (copy_in(g, rel, 0444, false) < 0 && errno != EEXIST) {
        refuse(g, rel, "cannot add it here");
        return;
    }
    drop_up(g, rel);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
    test_hold(g, "object");
}

/* git here on this repository (git-run.h); its output into outfd (-1: none). */
static int git_run(struct gl *g, char *const *args, int outfd, const char *env1)
{
    return cp_git_run_here(g->hostfd, args, outfd, env1);
}

static int git_here(struct gl *g, char *const *args)
{
    return git_run(g, args, -1, NULL);
}

/* For the integration tests alone (as mirror/layer.c's CONCH_TEST_HOLD_LANDING): with
 * CONCH_TEST_HOLD_GIT naming a folder and CONCH_TEST_HOLD_GIT_AT naming the stage ("object",
 * "pack" or "ref"), the landing stops once the first of that stage is in place, makes
 * FOLDER/held and waits until the fifo FOLDER/go is written to and closed, so that a test's
 * kill -9 comes in the middle of a .git landing for certain. Read in conch-place's own
 * environment here, which nothing in a box can set. */
static void test_hold(struct gl *g, const char *stage)
{
    const char *at = getenv("CONCH_TEST_HOLD_GIT_AT");
    if (at == NULL || strcmp(at, stage) != 0 || g->run->held)
        return;
    g->run->held = true;
    cp_test_hold("CONCH_TEST_HOLD_GIT");
}

/* A loose object here answers without a git process (git-loose.h); else git's cat-file. */
static bool object_here(struct gl *g, const char *hex)
{
    if (cp_git_loose_here(g->hostfd, hex))
        return true;
    cleanup_free char *spec = xasprintf("%s^{object}", hex);
    return git_here(g, (char *[]){"cat-file", "-e", spec, NULL}) == 0;
}

/* A loose commit whose parent is old is a fast-forward from it; else git's merge-base. */
static bool ancestor_here(struct gl *g, const char *old, const char *new)
{
    if (cp_git_loose_parent_is(g->hostfd, new, old))
        return true;
    return git_here(g, (char *[]){"merge-base", "--is-ancestor", (char *)old, (char *)new, NULL}) ==
           0;
}

/* Packs (objects/pack/pack-HEX.EXT). A pack lands with its index, each copied first into a
 * folder of our own here (tmp_pack_conch-PID-N, which git's pack scan never reads into) and
 * checked there by git index-pack --verify --strict: the pack's trailer checksum, every
 * object inflated and hashed (deltas resolved), the index rebuilt and compared with the box's
 * byte for byte (its checksums too), a reverse index likewise, and each object's links and
 * shape by git's fsck rules. Then the pack, its reverse index and its index last are renamed
 * into place, never over a file here: git reads a pack only once its .idx is there. git's own
 * checker over code of ours: on a 67,000-object pack (6.5 MB) it took 5.6 s on this loaded
 * machine, verify-pack 8.4 s (it runs index-pack and more), a SHA-1 of the pack alone 0.3 s;
 * code of ours would have to resolve deltas as index-pack does to be worth anything. */
static const char *pack_why(const char *ext)
{
    if (strcmp(ext, "promisor") == 0)
        return "a .promisor never lands: it would let objects that pack names be missing here";
    if (strcmp(ext, "bitmap") == 0 || strcmp(ext, "mtimes") == 0)
        return "a pack's bitmap or mtimes never lands: git makes them again here (git repack)";
    return "not on git's table";
}

/* The pack's name hex and extension ("pack", "idx") of objects/pack/NAME; false when NAME is
 * not pack-HEX.EXT. */
static bool pack_name(const char *rel, char hex[72], const char **ext)
{
    const char *name = rel + strlen("objects/pack/");
    const char *dot = strrchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : 0;
    if (strncmp(name, "pack-", 5) != 0 || strchr(name, '/') != NULL || (n != 45 && n != 69))
        return false;
    snprintf(hex, 72, "%.*s", (int)(n - 5), name + 5);
    *ext = dot + 1;
    return is_hex(hex, n - 5);
}

static bool exists_at(int dirfd, const char *name)
{
    struct stat st;
    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Whether the open file ends in the checksum hex names. */
static bool trailer_is(int fd, const char *hex)
{
    size_t n = strlen(hex) / 2;
    unsigned char t[32];
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_size < (off_t)(12 + n) ||
        pread(fd, t, n, st.st_size - (off_t)n) != (ssize_t)n)
        return false;
    char got[65];
    for (size_t i = 0; i < n; i++)
        snprintf(got + 2 * i, 3, "%02x", t[i]);
    return strcmp(got, hex) == 0;
}

static void remove_folder(int dirfd, const char *name)
{
    cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_dir DIR *d = NULL;
    int dfd = fd >= 0 ? dup(fd) : -1;
    if (dfd >= 0 && (d = fdopendir(dfd)) == NULL)
        close(dfd);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            unlinkat(fd, e->d_name, 0);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Our folders a kill cut short (their process gone) go before we make one. */
static void sweep_packs(int packfd)
{
    int dfd = dup(packfd);
    cleanup_dir DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    struct cp_strvec gone = {0};
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        long pid = 0;
        if (sscanf(e->d_name, "tmp_pack_conch-%ld-", &pid) == 1 && pid > 0 &&
            kill((pid_t)pid, 0) < 0 && errno == ESRCH)
            cp_strvec_push(&gone, e->d_name);
    }
    for (size_t i = 0; i < gone.n; i++)
        remove_folder(packfd, gone.v[i]);
    cp_strvec_dispose(&gone);
}

/* Renames tmpfd/from to packfd/to, never over a file: one that is there already must hold the
 * same bytes (a landing cut short after it). */
static int place_pack_file(int tmpfd, const char *from, int packfd, const char *to)
{
    if (renameat2(tmpfd, from, packfd, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    cleanup_close int a = openat(tmpfd, from, O_RDONLY | O_CLOEXEC);
    cleanup_close int b = openat(packfd, to, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sa, sb;
    if (a < 0 || b < 0 || fstat(a, &sa) < 0 || fstat(b, &sb) < 0 || sa.st_size != sb.st_size)
        return -1;
    char x[16384], y[16384];
    for (ssize_t n; (n = read(a, x, sizeof(x))) != 0;)
        if (n < 0 || read(b, y, (size_t)n) != n || memcmp(x, y, (size_t)n) != 0)
            return -1;
    return 0;
}

static void land_pack(struct gl *g, const char *hex)
{
    static const char *const exts[] = {"pack", "rev", "idx", "keep"}; /* the order they land */
    char rel[4][128];
    bool has[4];
    for (size_t i = 0; i < 4; i++) {
        snprintf(rel[i], sizeof(rel[i]), "objects/pack/pack-%s.%s", hex, exts[i]);
        has[i] = cp_strvec_has(&g->files, rel[i]);
    }
    if (!has[2]) {
        refuse(g, rel[0], "a pack lands only with its index (.idx)");
        return;
    }
    cleanup_close int packfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel[0], !g->o->dry_run, &packfd, &base, &why) < 0 &&
        !g->o->dry_run) {
        refuse(g, rel[0], "cannot add it here");
        return;
    }
    char name[4][80];
    for (size_t i = 0; i < 4; i++)
        snprintf(name[i], sizeof(name[i]), "pack-%s.%s", hex, exts[i]);
    if (packfd >= 0 && exists_at(packfd, name[2])) { /* here already: never replaced */
        for (size_t i = 0; i < 4 && !g->o->dry_run; i++)
            if (has[i])
                drop_up(g, rel[i]);
        return;
    }
    if (g->o->dry_run) {
        tell(g, "added", rel[0]);
        return;
    }
    sweep_packs(packfd);
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "tmp_pack_conch-%ld-%u", (long)getpid(), g->run->tmp_counter++);
    if (mkdirat(packfd, tmp, 0700) < 0) {
        refuse(g, rel[0], "cannot add it here");
        return;
    }
    cleanup_close int tmpfd = openat(packfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const char *fail = NULL;
    for (size_t i = 0; i < 3 && fail == NULL; i++)
        if (has[i] && (tmpfd < 0 || copy_to(g, rel[i], tmpfd, name[i], 0444) < 0))
            fail = "cannot add it here";
    cleanup_close int pfd = tmpfd >= 0 ? openat(tmpfd, name[0], O_RDONLY | O_CLOEXEC) : -1;
    if (fail == NULL && (pfd < 0 || !trailer_is(pfd, hex)))
        fail = "a pack whose name is not its checksum (its trailer)";
    if (fail == NULL) {
        int dirfd = fcntl(tmpfd, F_DUPFD, 10); /* git's GIT_DIR is another dup of .git */
        cleanup_free char *in = xasprintf("/proc/self/fd/%d/%s", dirfd, name[0]);
        if (dirfd < 0 ||
            git_here(g, (char *[]){"index-pack", "--verify", "--strict",
                                   has[1] ? "--rev-index" : "--no-rev-index", in, NULL}) != 0)
            fail = "a pack whose index does not match it, or with a broken or missing object "
                   "(git index-pack --verify --strict here)";
        if (dirfd >= 0)
            close(dirfd);
    }
    for (size_t i = 0; i < 3 && fail == NULL; i++)
        if (has[i] && place_pack_file(tmpfd, name[i], packfd, name[i]) < 0)
            fail = "cannot add it here";
    remove_folder(packfd, tmp);
    if (fail != NULL) {
        refuse(g, rel[0], fail);
        return;
    }
    if (has[3] && copy_in(g, rel[3], 0444, false) < 0 && errno != EEXIST)
        refuse(g, rel[3], "cannot add it here");
    for (size_t i = 0; i < 4; i++)
        if (has[i])
            drop_up(g, rel[i]);
    tell(g, "added", rel[0]);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
    test_hold(g, "pack");
}

/* Everything the box put in objects/pack/: its packs, each with its index; the rest refused. */
static void land_packs(struct gl *g)
{
    for (size_t i = 0; i < g->files.n; i++) {
        const char *rel = g->files.v[i], *ext = NULL, *why = NULL;
        char hex[72];
        if (cp_git_table_kind(rel, &why) != CP_GIT_PACK)
            continue;
        if (!pack_name(rel, hex, &ext)) {
            refuse(g, rel, "not on git's table");
        } else if (strcmp(ext, "pack") == 0) {
            land_pack(g, hex);
        } else if (strcmp(ext, "idx") == 0 || strcmp(ext, "rev") == 0 || strcmp(ext, "keep") == 0) {
            cleanup_free char *pack = xasprintf("objects/pack/pack-%s.pack", hex);
            if (!cp_strvec_has(&g->files, pack))
                refuse(g, rel, "a pack's index or keep file lands only with its pack");
        } else {
            refuse(g, rel, pack_why(ext));
        }
    }
}

/* A ref value: hex and one newline; NULL when it is not one. */
static char *ref_value(char *text)
{
    if (text == NULL)
        return NULL;
    size_t n = strcspn(text, "\n");
    if ((text[n] == '\n' && text[n + 1] != '\0') || (n != 40 && n != 64))
        return NULL;
    text[n] = '\0';
    return is_hex(text, n) ? text : NULL;
}

/* This computer's value of the ref, loose or packed, into val (empty: none); its file's stat
 * in st (the loose file, else packed-refs). */
static void ref_here(struct gl *g, const char *name, char val[72], struct stat *st)
{
    val[0] = '\0';
    memset(st, 0, sizeof(*st));
    cleanup_free char *loose = read_here(g, name, st);
    if (loose != NULL) {
        const char *v = ref_value(loose);
        snprintf(val, 72, "%s", v ? v : "?");
        return;
    }
    memset(st, 0, sizeof(*st));
    cleanup_free char *packed = read_here(g, "packed-refs", st);
    size_t nl = strlen(name);
    for (char *line = packed, *next; line != NULL && *line; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *sp = strchr(line, ' ');
        if (line[0] != '#' && line[0] != '^' && sp != NULL && strncmp(sp + 1, name, nl) == 0 &&
            sp[1 + nl] == '\0' && (sp - line == 40 || sp - line == 64)) {
            snprintf(val, 72, "%.*s", (int)(sp - line), line);
            return;
        }
    }
}

static void add_reflog(struct gl *g, const char *name, const char *old, const char *new)
{
    cleanup_free char *rel = xasprintf("logs/%s", name);
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, true, &dirfd, &base, &why) < 0)
        return;
    cleanup_close int fd =
        openat(dirfd, base, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    cleanup_free char *line =
        xasprintf("%s %s conch-place <conch-place@localhost> %lld +0000\tconch-place: a sealed "
                  "box moved it, not as a fast-forward (it was %s)\n",
                  old, new, (long long)time(NULL), old);
    (void)cp_write_all(fd, line, strlen(line));
}

static void note_ref(struct gl *g, const char *name, const char *old, const char *new,
                     const char *how)
{
    json_object *r = json_object_new_object();
    json_object_object_add(r, "ref", json_object_new_string(name));
    json_object_object_add(r, "old", old[0] ? json_object_new_string(old) : NULL);
    json_object_object_add(r, "new", json_object_new_string(new));
    json_object_object_add(r, "how", json_object_new_string(how));
    if (g->depth > 0)
        json_object_object_add(r, "git_dir", json_object_new_string(g->where));
    json_object_array_add(g->run->refs, r);
}

/* Writes name = val here as a loose ref (a packed one is overridden by it, as git does). */
static int write_ref(struct gl *g, const char *name, const char *val)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, name, true, &dirfd, &base, &why) < 0)
        return -1;
    char tmp[64];
    snprintf(tmp, sizeof(tmp), ".conch-git-%ld-%u", (long)getpid(), g->run->tmp_counter++);
    cleanup_close int fd =
        openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    cleanup_free char *line = xasprintf("%s\n", val);
    if (fd < 0 || cp_write_all(fd, line, strlen(line)) < 0 || fsync(fd) < 0 ||
        renameat(dirfd, tmp, dirfd, base) < 0) {
        if (fd >= 0)
            unlinkat(dirfd, tmp, 0);
        return -1;
    }
    return 0;
}

/* A submodule's ref is named with its git folder, and so is git's command to see its reflog. */
static void say_forced(struct gl *g, const char *name, const char *old, const char *new)
{
    add_reflog(g, name, old, new);
    cleanup_free char *s = cp_escape(name);
    cleanup_free char *w = cp_escape(g->where);
    cleanup_free char *in = g->depth > 0 ? xasprintf(" in %s", w) : xstrdup("");
    cleanup_free char *dir = g->depth > 0 ? xasprintf("--git-dir=%s ", w) : xstrdup("");
    cp_report(g->o->rep,
              "%s%s moved not as a fast-forward (from %.12s to %.12s): its old value is in "
              "its reflog (git %sreflog %s)",
              s, in, old, new, dir, s);
}

/* One ref the box set: the rules, then it lands. shown: where it came from (rel). true when it
 * is done with (landed, or already so). */
static bool land_ref(struct gl *g, const char *name, const char *val, enum cp_git_kind kind,
                     const char *shown)
{
    if (!cp_git_ref_name_ok(name)) {
        refuse(g, shown, "not a ref name git writes");
        return false;
    }
    char old[72];
    struct stat st;
    ref_here(g, name, old, &st);
    if (strcmp(old, val) == 0)
        return true;
    if (g->o->dry_run) {
        tell(g, old[0] ? "changed" : "added", name);
        return false;
    }
    if (old[0] && changed_here(g, &st)) {
        say_kept(g, name, val);
        return false;
    }
    if (kind == CP_GIT_TAG && old[0]) {
        refuse(g, shown, "a tag here is never moved (only new tags land)");
        return false;
    }
    if (!object_here(g, val)) {
        refuse(g, shown, "a ref naming an object that is not here");
        return false;
    }
    bool forced = old[0] && (strcmp(old, "?") == 0 || !ancestor_here(g, old, val));
    if (write_ref(g, name, val) < 0) {
        refuse(g, shown, "cannot write it here");
        return false;
    }
    if (forced)
        say_forced(g, name, old, val);
    note_ref(g, name, old, val, !old[0] ? "added" : forced ? "forced" : "fast-forward");
    tell(g, old[0] ? "changed" : "added", name);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
    test_hold(g, "ref");
    return true;
}

/* packed-refs: each entry under the ref rules, as a loose ref here; never the file. */
static void land_packed(struct gl *g)
{
    cleanup_free char *text = read_up(g, "packed-refs", 64 << 20);
    if (text == NULL) {
        refuse(g, "packed-refs", "unreadable");
        return;
    }
    bool all = true;
    for (char *line = text, *next; *line; line = next) {
        next = strchr(line, '\n');
        if (next == NULL)
            next = line + strlen(line);
        else
            *next++ = '\0';
        if (line[0] == '#' || line[0] == '^' || line[0] == '\0')
            continue;
        char *sp = strchr(line, ' ');
        if (sp == NULL) {
            refuse(g, "packed-refs", "a line that is not a ref");
            all = false;
            continue;
        }
        *sp = '\0';
        const char *name = sp + 1, *why = NULL;
        enum cp_git_kind k = cp_git_table_kind(name, &why);
        char *val = ref_value(line);
        if (cp_strvec_has(&g->files, name)) /* the loose one is the ref */
            continue;
        if (k != CP_GIT_REF && k != CP_GIT_TAG) {
            cleanup_free char *r = xasprintf("packed-refs: %s", name);
            refuse(g, r, k == CP_GIT_REFUSED ? why : "not a ref");
            all = false;
        } else if (val == NULL) {
            refuse(g, "packed-refs", "a line that is not a ref");
            all = false;
        } else if (!land_ref(g, name, val, k, "packed-refs")) {
            all = false;
        }
    }
    if (all && !g->o->dry_run)
        drop_up(g, "packed-refs");
}

static void land_head(struct gl *g)
{
    cleanup_free char *text = read_up(g, "HEAD", 4096);
    size_t n = text ? strcspn(text, "\n") : 0;
    if (text == NULL || (text[n] == '\n' && text[n + 1] != '\0')) {
        refuse(g, "HEAD", "HEAD lands only as a branch or a commit id");
        return;
    }
    text[n] = '\0';
    bool branch = strncmp(text, "ref: refs/heads/", 16) == 0 && cp_git_ref_name_ok(text + 5);
    if (!branch && (!is_hex(text, n) || (n != 40 && n != 64))) {
        refuse(g, "HEAD", "HEAD lands only as a branch or a commit id");
        return;
    }
    struct stat st;
    cleanup_free char *here = read_here(g, "HEAD", &st);
    if (here != NULL && strcspn(here, "\n") == n && strncmp(here, text, n) == 0) {
        drop_up(g, "HEAD");
        return;
    }
    if (g->o->dry_run) {
        tell(g, "changed", "HEAD");
        return;
    }
    if (here != NULL && changed_here(g, &st)) {
        say_kept(g, "HEAD", text);
        return;
    }
    if (!branch && !object_here(g, text)) {
        refuse(g, "HEAD", "a commit id that is not here");
        return;
    }
    if (copy_in(g, "HEAD", 0644, true) < 0) {
        refuse(g, "HEAD", "cannot write it here");
        return;
    }
    drop_up(g, "HEAD");
    tell(g, "changed", "HEAD");
    if (g->o->rep != NULL)
        g->o->rep->landed++;
}

static void land_file(struct gl *g, const char *rel)
{
    struct stat st;
    cleanup_free char *here = read_here(g, rel, &st);
    if (g->o->dry_run) {
        tell(g, here ? "changed" : "added", rel);
        return;
    }
    if (here != NULL && changed_here(g, &st)) {
        say_kept(g, rel, NULL);
        return;
    }
    if (copy_in(g, rel, 0644, true) < 0) {
        refuse(g, rel, "cannot write it here");
        return;
    }
    drop_up(g, rel);
    tell(g, here ? "changed" : "added", rel);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
}

/* Something the box deleted in .git: only git's state files go (when not changed here). */
static void land_whiteout(struct gl *g, const char *rel)
{
    const char *why = NULL;
    enum cp_git_kind k = cp_git_table_kind(rel, &why);
    bool state = k == CP_GIT_FILE && strncmp(rel, "logs/", 5) != 0 && strcmp(rel, "index") != 0;
    if (k == CP_GIT_OBJECT || k == CP_GIT_PACK)
        why = "nothing under objects/ is deleted here";
    else if (k == CP_GIT_REF || k == CP_GIT_TAG || k == CP_GIT_PACKED_REFS)
        why = "a deleted ref is kept here (delete it here: git branch -D, git tag -d)";
    else if (k == CP_GIT_FILE && !state)
        why = "the index and reflogs are never deleted here";
    else if (k == CP_GIT_HEAD)
        why = "HEAD is never deleted here";
    if (!state) {
        refuse(g, rel, why);
        return;
    }
    cleanup_close int dirfd = -1;
    const char *base = NULL;
    struct stat st;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, false, &dirfd, &base, &why) < 0 ||
        fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return;
    if (g->o->dry_run) {
        tell(g, "deleted", rel);
        return;
    }
    if (changed_here(g, &st)) {
        say_kept(g, rel, NULL);
        return;
    }
    if (S_ISREG(st.st_mode) && unlinkat(dirfd, base, 0) == 0)
        tell(g, "deleted", rel);
}

static void land_folder(struct gl *g);

static void land_module(void *ctx, int herefd, int upfd, const char *rel)
{
    struct gl *parent = ctx;
    cleanup_free char *where = xasprintf("%s/%s", parent->where, rel);
    struct gl sub = {.o = parent->o,
                     .run = parent->run,
                     .where = where,
                     .depth = parent->depth + 1,
                     .hostfd = herefd,
                     .upfd = upfd};
    land_folder(&sub);
}

static void refuse_module(void *ctx, const char *rel, const char *why)
{
    refuse(ctx, rel, why);
}

/* Each git folder's stages: its submodules' folders, whole, before its own objects; then its
 * objects, packs, files, refs, packed-refs, HEAD, and what the box deleted. */
static void land_stages(struct gl *g)
{
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        if (cp_git_table_kind(g->files.v[i], &why) == CP_GIT_OBJECT)
            land_object(g, g->files.v[i]);
    }
    land_packs(g);
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        enum cp_git_kind k = cp_git_table_kind(g->files.v[i], &why);
        if (k == CP_GIT_FILE)
            land_file(g, g->files.v[i]);
        else if (k == CP_GIT_REFUSED)
            refuse(g, g->files.v[i], why);
    }
    for (size_t i = 0; i < g->files.n; i++) {
        const char *why = NULL;
        const char *rel = g->files.v[i];
        enum cp_git_kind k = cp_git_table_kind(rel, &why);
        if (k != CP_GIT_REF && k != CP_GIT_TAG)
            continue;
        cleanup_free char *text = read_up(g, rel, 4096);
        char *val = ref_value(text);
        if (val == NULL)
            refuse(g, rel, "a ref that is not an object id (a symbolic ref never lands)");
        else if (land_ref(g, rel, val, k, rel) && !g->o->dry_run)
            drop_up(g, rel);
    }
    if (cp_strvec_has(&g->files, "packed-refs"))
        land_packed(g);
    if (cp_strvec_has(&g->files, "HEAD"))
        land_head(g);
    for (size_t i = 0; i < g->whiteouts.n; i++)
        land_whiteout(g, g->whiteouts.v[i]);
}

static void land_folder(struct gl *g)
{
    struct stat st;
    collect(g, g->upfd, "");
    if (fstat(g->upfd, &st) == 0)
        g->updev = (uint64_t)st.st_dev;
    if (g->modules)
        cp_git_modules_walk(&(struct cp_git_modules){.herefd = g->hostfd,
                                                     .upfd = g->upfd,
                                                     .depth = g->depth,
                                                     .land = land_module,
                                                     .refuse = refuse_module,
                                                     .ctx = g});
    if (g->hostfd >= 0 && fstat(g->hostfd, &st) == 0) {
        g->hostdev = (uint64_t)st.st_dev;
        land_stages(g);
    } else {
        for (size_t i = 0; i < g->files.n; i++)
            refuse(g, g->files.v[i], "under a .git folder (none is here)");
    }
    cp_strvec_dispose(&g->files);
    cp_strvec_dispose(&g->whiteouts);
}

void cp_git_land(const struct cp_git_land_opts *o)
{
    struct gl_run run = {.refs = json_object_new_array(), .refused = json_object_new_array()};
    cleanup_close int hostfd =
        openat(o->rootfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct gl g = {.o = o, .run = &run, .where = ".git", .hostfd = hostfd, .upfd = o->upfd};
    land_folder(&g);
    if (!o->dry_run && cp_run_report_on() &&
        (json_object_array_length(run.refs) > 0 || json_object_array_length(run.refused) > 0)) {
        json_object *git = json_object_new_object();
        json_object_object_add(git, "refs", json_object_get(run.refs));
        json_object_object_add(git, "refused", json_object_get(run.refused));
        cp_run_report_take("git", git);
    }
    json_object_put(run.refs);
    json_object_put(run.refused);
}
