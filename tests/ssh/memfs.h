/* An in-memory file system for the ssh_config reader: tests and the fuzzer read nothing real. */
#ifndef CONCH_TESTS_SSH_MEMFS_H
#define CONCH_TESTS_SSH_MEMFS_H

#include <stddef.h>

#include "places/ssh/config-host.h"

struct memfs_file {
    char *path;
    char *data;
    size_t len;
};

struct memfs {
    struct memfs_file files[64];
    size_t n;
    size_t reads; /* how many reads were asked for, found or not */
};

/* Home "/home/u", user "u"; the fs reads from m. */
void memfs_init(struct memfs *m, struct cp_ssh_fs *fs);
void memfs_add(struct memfs *m, const char *path, const char *data, size_t len);
void memfs_add_str(struct memfs *m, const char *path, const char *text);
void memfs_dispose(struct memfs *m);

#endif
