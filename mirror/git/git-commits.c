/* The commits a held run's ref move brings, for the person deciding whether to land it. The
 * ref values are read as files (a loose ref, else its packed-refs line) opened without
 * following a link, on both sides; git runs here only through git-run.h, with the layer's
 * objects folder as an alternate for this one command, once it is a real folder there. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/git/git-commits.h"
#include "mirror/git/git-run.h"
#include "mirror/walk.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define PACKED_MAX (16 << 20)
#define SHOWN_MAX  "50"

/* The regular file at path under root, opened without following a link anywhere; -1 if none. */
static int open_under(const char *root, const char *path)
{
    cleanup_close int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (rootfd < 0 || fstat(rootfd, &st) < 0)
        return -1;
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(rootfd, (uint64_t)st.st_dev, path, false, &dirfd, &base, &why) < 0)
        return -1;
    int fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool is_id(const char *s, size_t n)
{
    return (n == 40 || n == 64) && strspn(s, "0123456789abcdef") >= n;
}

/* name in the git folder git under a root: "" is the root itself (a git folder outside the work
 * folder, whose layer holds that folder's own contents). */
static char *in_git(const char *git, const char *name)
{
    return git[0] != '\0' ? xasprintf("%s/%s", git, name) : xstrdup(name);
}

/* A loose ref's first line, or the packed-refs line naming ref, as an object id in out; git is
 * the git folder under root (".git", ".git/modules/NAME"). */
static bool ref_value_at(const char *root, const char *git, const char *ref, char out[65])
{
    cleanup_free char *loose = in_git(git, ref);
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_close int fd = open_under(root, loose);
    if (fd >= 0 && cp_read_fd(loose, fd, 4096, &text, &len, NULL) == 0) {
        size_t n = strcspn(text, "\n");
        if (!is_id(text, n))
            return false;
        memcpy(out, text, n);
        out[n] = '\0';
        return true;
    }
    cleanup_free char *packed = in_git(git, "packed-refs");
    cleanup_close int pfd = open_under(root, packed);
    if (pfd < 0 || cp_read_fd("packed-refs", pfd, PACKED_MAX, &text, &len, NULL) < 0)
        return false;
    for (char *line = text, *next; *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next)
            *next++ = '\0';
        char *sp = strchr(line, ' ');
        if (sp != NULL && strcmp(sp + 1, ref) == 0 && is_id(line, (size_t)(sp - line))) {
            memcpy(out, line, (size_t)(sp - line));
            out[sp - line] = '\0';
            return true;
        }
    }
    return false;
}

/* Whether the layer's objects folder of git is a folder reached through folders alone, no link
 * on the way (the walk opens each folder up to the one holding a name's last part). */
static bool real_folder(const char *up, const char *git)
{
    cleanup_close int rootfd = open(up, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (rootfd < 0 || fstat(rootfd, &st) < 0)
        return false;
    cleanup_free char *in_objects = in_git(git, "objects/x");
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    return cp_walk_parent(rootfd, (uint64_t)st.st_dev, in_objects, false, &dirfd, &base, &why) == 0;
}

void cp_git_show_commits(const char *workdir, const char *up, const char *git, const char *ref)
{
    char old[65] = "", new[65] = "";
    bool had = ref_value_at(workdir, git, ref, old);
    if (!ref_value_at(up, git, ref, new) || !real_folder(up, git))
        return;
    bool named = git[0] != '\0' && strcmp(git, ".git") != 0;
    printf("    %s%s%s: %.12s -> %.12s\n", named ? git : "", named ? " " : "", ref,
           had ? old : "(new)", new);
    cleanup_free char *gitdir = git[0] ? xasprintf("%s/%s", workdir, git) : xstrdup(workdir);
    cleanup_close int gitfd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (gitfd < 0)
        return;
    cleanup_free char *objects = in_git(git, "objects");
    cleanup_free char *alt = xasprintf("GIT_ALTERNATE_OBJECT_DIRECTORIES=%s/%s", up, objects);
    cleanup_free char *range = xasprintf("%s..%s", old, new);
    char *with_old[] = {"log", "--stat", "-n", SHOWN_MAX, range, "--", NULL};
    char *fresh[] = {"log", "--stat", "-n", SHOWN_MAX, new, "--not", "--all", "--", NULL};
    fflush(stdout);
    (void)cp_git_run_here(gitfd, had ? with_old : fresh, STDOUT_FILENO, alt);
}
