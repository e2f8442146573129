/* Fuzz target: what the git gate reads from a box's .git (mirror/git/git-landing.c,
 * mirror/git/git-table.c): a loose object's bytes through the inflate, header and hash check, under
 * a SHA-1 and a SHA-256 name; and the same bytes as a path through the table and as a ref name
 * through git's ref-name rules. */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mirror/git/git-landing.h"
#include "mirror/git/git-table.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void object(const uint8_t *data, size_t size, const char *hex)
{
    int fd = memfd_create("object", MFD_CLOEXEC);
    if (fd < 0)
        return;
    if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0)
        (void)cp_git_object_why(fd, hex);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    object(data, size, "95d09f2b10159347eece71399a7e2e907ea3df4f");
    object(data, size, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    char *text = strndup((const char *)data, size < 4096 ? size : 4096);
    if (text != NULL) {
        const char *why = NULL;
        (void)cp_git_table_kind(text, &why);
        (void)cp_git_ref_name_ok(text);
        free(text);
    }
    return 0;
}
