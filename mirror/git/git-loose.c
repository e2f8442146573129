/* Loose objects read here for the gate's fast answers (git-loose.h). A commit's header comes
 * first in the object ("commit N\0tree T\nparent P\n..."), so inflating its first few KB
 * answers a one-commit move, the common case of a commit in the box; a merge or a rebase goes
 * to git's merge-base. */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "mirror/git/git-loose.h"
#include "src/base/util.h"

#define HEAD_MAX 4096

static int open_loose(int gitfd, const char *hex)
{
    size_t n = strlen(hex);
    if ((n != 40 && n != 64) || strspn(hex, "0123456789abcdef") != n)
        return -1;
    char rel[96];
    snprintf(rel, sizeof(rel), "objects/%.2s/%s", hex, hex + 2);
    int fd = openat(gitfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return -1;
    }
    return fd;
}

bool cp_git_loose_here(int gitfd, const char *hex)
{
    cleanup_close int fd = open_loose(gitfd, hex);
    return fd >= 0;
}

/* The object's first bytes inflated into out (NUL-ended); their count, or -1. */
static ssize_t inflate_head(int fd, char *out, size_t cap)
{
    unsigned char in[HEAD_MAX];
    ssize_t got = read(fd, in, sizeof(in));
    if (got <= 0)
        return -1;
    z_stream z = {.next_in = in,
                  .avail_in = (uInt)got,
                  .next_out = (Bytef *)out,
                  .avail_out = (uInt)(cap - 1)};
    if (inflateInit(&z) != Z_OK)
        return -1;
    int zr = inflate(&z, Z_SYNC_FLUSH);
    size_t n = cap - 1 - z.avail_out;
    inflateEnd(&z);
    if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
        return -1;
    out[n] = '\0';
    return (ssize_t)n;
}

bool cp_git_loose_parent_is(int gitfd, const char *hex, const char *parent)
{
    cleanup_close int fd = open_loose(gitfd, hex);
    char head[HEAD_MAX + 1];
    ssize_t n = fd < 0 ? -1 : inflate_head(fd, head, sizeof(head));
    if (n < 0 || strncmp(head, "commit ", 7) != 0)
        return false;
    size_t hdr = strlen(head); /* "commit N" */
    if ((ssize_t)hdr >= n)
        return false;
    const char *line = head + hdr + 1, *end = head + n;
    size_t plen = strlen(parent);
    /* "tree T" first, then "parent P" lines; the header's first other line ends the search. */
    if (strncmp(line, "tree ", 5) != 0)
        return false;
    for (line = memchr(line, '\n', (size_t)(end - line)); line != NULL && line + 1 < end;
         line = memchr(line, '\n', (size_t)(end - line))) {
        line++;
        if ((size_t)(end - line) < 7 + plen + 1 || strncmp(line, "parent ", 7) != 0)
            return false;
        if (strncmp(line + 7, parent, plen) == 0 && line[7 + plen] == '\n')
            return true;
    }
    return false;
}
