/* Replays a fuzz target's corpus as an ordinary test: every file under CORPUS_DIR, once. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/base/paths.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : CORPUS_DIR;
    cleanup_dir DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open corpus %s\n", dir);
        return 1;
    }
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        cleanup_free char *path = xasprintf("%s/%s", dir, de->d_name);
        cleanup_free char *data = NULL;
        size_t len = 0;
        cleanup_error cp_error_t err = NULL;
        if (cp_read_file(path, 64 * 1024 * 1024, &data, &len, &err) < 0) {
            cp_error_print(&err);
            return 1;
        }
        LLVMFuzzerTestOneInput((const uint8_t *)data, len);
        count++;
    }
    if (count == 0) {
        fprintf(stderr, "replay: corpus %s is empty\n", dir);
        return 1;
    }
    printf("replayed %d inputs from %s\n", count, dir);
    return 0;
}
