/* Fuzz target: ~/.ssh/config and the files it Includes, all in memory (no real file is read).
 * The input holds several files separated by "\n@@\n": the first is /home/u/.ssh/config, the
 * next /home/u/.ssh/f1, f2, ... Each resolution's dump must parse again to the same dump. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "places/ssh/config-host.h"
#include "src/base/util.h"
#include "tests/ssh/memfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_files(struct memfs *m, const char *data, size_t size)
{
    static const char sep[] = "\n@@\n";
    size_t start = 0, index = 0;
    while (start <= size) {
        const char *hit = memmem(data + start, size - start, sep, sizeof(sep) - 1);
        size_t end = hit != NULL ? (size_t)(hit - data) : size;
        cleanup_free char *path =
            index == 0 ? xstrdup("/home/u/.ssh/config") : xasprintf("/home/u/.ssh/f%zu", index);
        memfs_add(m, path, data + start, end - start);
        index++;
        if (hit == NULL)
            break;
        start = end + sizeof(sep) - 1;
    }
}

static void check_round_trip(const char *alias, const char *dump)
{
    struct memfs m;
    struct cp_ssh_fs fs;
    memfs_init(&m, &fs);
    memfs_add_str(&m, "/home/u/.ssh/config", dump);
    cleanup_ssh_host struct cp_ssh_host again = {0};
    cleanup_error cp_error_t err = NULL;
    if (cp_ssh_config_resolve(&fs, "/home/u/.ssh/config", alias, &again, &err) < 0)
        abort(); /* a dump that does not parse */
    cleanup_free char *dump2 = cp_ssh_host_dump(&again);
    if (strcmp(dump, dump2) != 0)
        abort(); /* a dump that parses to something else */
    memfs_dispose(&m);
}

static void resolve_one(const struct cp_ssh_fs *fs, const char *alias)
{
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    if (cp_ssh_config_resolve(fs, "/home/u/.ssh/config", alias, &h, &err) < 0)
        return;
    cleanup_free char *dump = cp_ssh_host_dump(&h);
    check_round_trip(alias, dump);
    cleanup_free char *cmd = NULL;
    cleanup_error cp_error_t perr = NULL;
    cp_ssh_proxy_command(&h, &cmd, &perr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct memfs m;
    struct cp_ssh_fs fs;
    memfs_init(&m, &fs);
    load_files(&m, (const char *)data, size);
    resolve_one(&fs, "box");
    resolve_one(&fs, "a.example");
    cleanup_strv char **names = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_ssh_config_hosts(&fs, "/home/u/.ssh/config", &names, &err) == 0)
        for (size_t i = 0; names[i] != NULL && i < 4; i++)
            resolve_one(&fs, names[i]);
    memfs_dispose(&m);
    return 0;
}
