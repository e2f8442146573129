/* Fuzz target: the keyless copy of a project's .npmrc, .yarnrc.yml or pip.conf (a cloned
 * project's own, so anyone's bytes). The copy is never longer than the file, has no NUL, and
 * taking the keys out twice changes nothing more: a key the first pass left would show. The
 * box's copies of ~/.npmrc (registry lines only) and ~/.bunfig.toml hold the same. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/keyless.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A copy made by one of the home filters: no longer than the file, and keyless already. */
static void settled(char *copy, size_t size)
{
    size_t n = strlen(copy);
    if (n > size)
        abort();
    cleanup_free char *again = cp_keyless_text(copy, n);
    if (strcmp(copy, again) != 0)
        abort();
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cleanup_free char *once = cp_keyless_text((const char *)data, size);
    if (memchr(data, '\0', size) != NULL)
        return 0; /* a line stops at a NUL; the properties below are about text */
    size_t n = strlen(once);
    if (n > size)
        abort();
    cleanup_free char *twice = cp_keyless_text(once, n);
    if (strcmp(once, twice) != 0)
        abort();
    settled(cp_keyless_npmrc_registries((const char *)data, size), size);
    settled(cp_keyless_bunfig((const char *)data, size), size);
    return 0;
}
