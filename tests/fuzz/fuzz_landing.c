/* Fuzz target: arbitrary bytes as the archive a far side sends back. The landing runs in a
 * scratch work folder beside a canary; afterwards nothing outside may have changed and every
 * file inside must be an asked-for name (or its conflict copy) or what was there before. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mirror/archive-util.h"
#include "mirror/landing.h"
#include "src/base/util.h"
#include "tests/mirror/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const asked[] = {"a",        "src/a.c",     "d/e/f.txt",      "link/x",
                                    "keep.txt", ".git/config", "node_modules/x", "big"};

/* What may be in the work folder afterwards, besides folders. */
static bool allowed(const char *rel)
{
    static const char *const before[] = {"keep.txt", "link"};
    for (size_t i = 0; i < ARRAY_SIZE(before); i++)
        if (strcmp(rel, before[i]) == 0)
            return true;
    for (size_t i = 0; i < ARRAY_SIZE(asked); i++) {
        size_t n = strlen(asked[i]);
        if (strcmp(rel, asked[i]) == 0 ||
            (strncmp(rel, asked[i], n) == 0 && strncmp(rel + n, ".conch-far", 10) == 0))
            return true;
    }
    return false;
}

static void check_tree(int fd, const char *prefix)
{
    DIR *d = fdopendir(fd);
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        cleanup_free char *rel =
            prefix[0] ? xasprintf("%s/%s", prefix, de->d_name) : xstrdup(de->d_name);
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            abort();
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
            if (sub < 0)
                abort();
            check_tree(sub, rel);
        } else if (!allowed(rel) || (!S_ISREG(st.st_mode) && strcmp(rel, "link") != 0)) {
            fprintf(stderr, "fuzz_landing: unasked or non-plain file landed: %s\n", rel);
            abort();
        }
    }
    if (d != NULL)
        closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct scratch s;
    if (scratch_make(&s) < 0)
        abort();
    put_file(s.work, "keep.txt", "mine\n");
    cleanup_free char *link = xasprintf("%s/link", s.work);
    if (symlink(s.out, link) < 0)
        abort();
    struct cp_ask asks[ARRAY_SIZE(asked)] = {0};
    for (size_t i = 0; i < ARRAY_SIZE(asked); i++)
        asks[i].path = asked[i];
    {
        cleanup_error cp_error_t err = NULL;
        cleanup_landing struct cp_landing l = {.stagefd = -1};
        cleanup_archive_read struct archive *a = cp_archive_reader_new();
        if (cp_landing_begin(&l, s.workfd, asks, ARRAY_SIZE(asks), NULL, 1 << 20, NULL, &err) ==
                0 &&
            archive_read_open_memory(a, data, size) == ARCHIVE_OK &&
            cp_landing_read(&l, a, &err) == 0)
            cp_landing_commit(&l, &err);
    }
    for (size_t i = 0; i < ARRAY_SIZE(asks); i++)
        free(asks[i].beside);
    if (!outside_untouched(&s)) {
        fprintf(stderr, "fuzz_landing: something outside the work folder changed\n");
        abort();
    }
    check_tree(dup(s.workfd), "");
    cleanup_free char *keep = get_file(s.work, "keep.txt");
    if (keep == NULL || strcmp(keep, "mine\n") != 0)
        abort(); /* keep.txt was not known to the manifest: it must never be replaced */
    scratch_remove(&s);
    return 0;
}
