/* A git folder's objects through the gate: each loose object checked against its name (zlib
 * and libcrypto's digest, microseconds each, where a git process per object costs about a
 * millisecond and a half) and added only; each pack with its index checked by git's own
 * index-pack --verify --strict here, then added only beside what is here. */
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
#include <unistd.h>
#include <zlib.h>

#include "mirror/git/git-landing-int.h"
#include "mirror/walk.h"
#include "src/base/util.h"

const char *cp_git_object_why(int fd, const char *hex)
{
    size_t len = strlen(hex);
    const EVP_MD *md = len == 40 ? EVP_sha1() : len == 64 ? EVP_sha256() : NULL;
    if (md == NULL || !cp_gl_is_hex(hex, len))
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

void cp_gl_land_object(struct gl *g, const char *rel)
{
    /* objects/xx/yyyy...: the name is the folder and the file together. */
    const char *p = rel + strlen("objects/");
    const char *slash = strchr(p, '/');
    if (slash == NULL || slash - p != 2 || strchr(slash + 1, '/') != NULL) {
        cp_gl_refuse(g, rel, "not on git's table");
        return;
    }
    char hex[72];
    snprintf(hex, sizeof(hex), "%.2s%s", p, slash + 1);
    cleanup_close int fd = cp_gl_open_up(g, rel);
    const char *why = fd < 0 ? "unreadable" : cp_git_object_why(fd, hex);
    if (why != NULL) {
        cp_gl_refuse(g, rel, why);
        return;
    }
    if (g->o->dry_run) {
        cp_gl_tell(g, "added", rel);
        return;
    }
    if (cp_gl_copy_in(g, rel, 0444, false) < 0 && errno != EEXIST) {
        cp_gl_refuse(g, rel, "cannot add it here");
        return;
    }
    cp_gl_drop_up(g, rel);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
    cp_gl_test_hold(g, "object");
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
    return cp_gl_is_hex(hex, n - 5);
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
        cp_gl_refuse(g, rel[0], "a pack lands only with its index (.idx)");
        return;
    }
    cleanup_close int packfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel[0], !g->o->dry_run, &packfd, &base, &why) < 0 &&
        !g->o->dry_run) {
        cp_gl_refuse(g, rel[0], "cannot add it here");
        return;
    }
    char name[4][80];
    for (size_t i = 0; i < 4; i++)
        snprintf(name[i], sizeof(name[i]), "pack-%s.%s", hex, exts[i]);
    if (packfd >= 0 && exists_at(packfd, name[2])) { /* here already: never replaced */
        for (size_t i = 0; i < 4 && !g->o->dry_run; i++)
            if (has[i])
                cp_gl_drop_up(g, rel[i]);
        return;
    }
    if (g->o->dry_run) {
        cp_gl_tell(g, "added", rel[0]);
        return;
    }
    sweep_packs(packfd);
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "tmp_pack_conch-%ld-%u", (long)getpid(), g->run->tmp_counter++);
    if (mkdirat(packfd, tmp, 0700) < 0) {
        cp_gl_refuse(g, rel[0], "cannot add it here");
        return;
    }
    cleanup_close int tmpfd = openat(packfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const char *fail = NULL;
    for (size_t i = 0; i < 3 && fail == NULL; i++)
        if (has[i] && (tmpfd < 0 || cp_gl_copy_to(g, rel[i], tmpfd, name[i], 0444) < 0))
            fail = "cannot add it here";
    cleanup_close int pfd = tmpfd >= 0 ? openat(tmpfd, name[0], O_RDONLY | O_CLOEXEC) : -1;
    if (fail == NULL && (pfd < 0 || !trailer_is(pfd, hex)))
        fail = "a pack whose name is not its checksum (its trailer)";
    if (fail == NULL) {
        int dirfd = fcntl(tmpfd, F_DUPFD, 10); /* git's GIT_DIR is another dup of .git */
        cleanup_free char *in = xasprintf("/proc/self/fd/%d/%s", dirfd, name[0]);
        if (dirfd < 0 ||
            cp_gl_git_here(g, (char *[]){"index-pack", "--verify", "--strict",
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
        cp_gl_refuse(g, rel[0], fail);
        return;
    }
    if (has[3] && cp_gl_copy_in(g, rel[3], 0444, false) < 0 && errno != EEXIST)
        cp_gl_refuse(g, rel[3], "cannot add it here");
    for (size_t i = 0; i < 4; i++)
        if (has[i])
            cp_gl_drop_up(g, rel[i]);
    cp_gl_tell(g, "added", rel[0]);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
    cp_gl_test_hold(g, "pack");
}

/* Everything the box put in objects/pack/: its packs, each with its index; the rest refused. */
void cp_gl_land_packs(struct gl *g)
{
    for (size_t i = 0; i < g->files.n; i++) {
        const char *rel = g->files.v[i], *ext = NULL, *why = NULL;
        char hex[72];
        if (cp_gl_kind(g, rel, &why) != CP_GIT_PACK)
            continue;
        if (!pack_name(rel, hex, &ext)) {
            cp_gl_refuse(g, rel, "not on git's table");
        } else if (strcmp(ext, "pack") == 0) {
            land_pack(g, hex);
        } else if (strcmp(ext, "idx") == 0 || strcmp(ext, "rev") == 0 || strcmp(ext, "keep") == 0) {
            cleanup_free char *pack = xasprintf("objects/pack/pack-%s.pack", hex);
            if (!cp_strvec_has(&g->files, pack))
                cp_gl_refuse(g, rel, "a pack's index or keep file lands only with its pack");
        } else {
            cp_gl_refuse(g, rel, pack_why(ext));
        }
    }
}
