/* Fuzz target: the readers of .npmrc, .yarnrc.yml and .cargo/config.toml and the rule over
 * them (mirror/run-keys.h), on a box's bytes and this computer's alike. The first byte picks
 * the format, the second where this computer's text ends and the box's begins. A file read
 * twice gives the same keys; a file the reader understands, set against itself, changes no key
 * and lands; whatever is refused says host-run. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mirror/keys.h"
#include "mirror/run-keys.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_as(enum cp_keyed kind, const char *text, size_t len, struct cp_keys *out)
{
    return kind == CP_KEYED_NPMRC    ? cp_keys_read_npmrc(text, len, out)
           : kind == CP_KEYED_YARNRC ? cp_keys_read_yarnrc(text, len, out)
                                     : cp_keys_read_toml(text, len, out);
}

/* Read twice, the same keys; every name is non-empty text. Whether it was understood. */
static bool steady(enum cp_keyed kind, const char *text, size_t len)
{
    struct cp_keys a, b;
    int ra = read_as(kind, text, len, &a), rb = read_as(kind, text, len, &b);
    if (ra != rb || a.n != b.n || (ra < 0 && a.n != 0))
        abort();
    for (size_t i = 0; i < a.n; i++)
        if (a.v[i].name[0] == '\0' || strcmp(a.v[i].name, b.v[i].name) != 0 ||
            strcmp(a.v[i].value, b.v[i].value) != 0)
            abort();
    cp_keys_dispose(&a);
    cp_keys_dispose(&b);
    return ra == 0;
}

static void refused_as_host_run(const char *why)
{
    if (why != NULL && strncmp(why, CP_RULES_HOST_RUN, strlen(CP_RULES_HOST_RUN)) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const enum cp_keyed kinds[] = {CP_KEYED_NPMRC, CP_KEYED_YARNRC, CP_KEYED_CARGO};
    enum cp_keyed kind = kinds[data[0] % 3];
    const char *text = (const char *)data + 2;
    size_t len = size - 2, split = len * data[1] / 256;
    bool here_ok = steady(kind, text, split);
    steady(kind, text + split, len - split);
    cleanup_free char *self = cp_run_keys_judge(kind, "f", text, split, text, split);
    if (here_ok != (self == NULL))
        abort();
    cleanup_free char *why = cp_run_keys_judge(kind, "f", text, split, text + split, len - split);
    refused_as_host_run(why);
    refused_as_host_run(self);
    return 0;
}
