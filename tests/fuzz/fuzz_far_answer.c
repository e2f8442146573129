/* Fuzz target: arbitrary bytes as a far side's answer to the lock or the probe: the copy's id
 * line, then the listing (mirror/mirror.h, cp_mirror_session_parse). A hostile far side may
 * send anything; the parse must refuse or keep only a well-formed id (32 hex digits) and
 * canonical names, never crash or read past the bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mirror/mirror.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so a read past the end is caught by the sanitizers. */
    char *copy = xmalloc(size ? size : 1);
    memcpy(copy, data, size);
    struct cp_mirror_session s = {0};
    cp_error_t err = NULL;
    if (cp_mirror_session_parse(&s, copy, size, 1000, &err) == 0) {
        if (s.far_id != NULL &&
            (strlen(s.far_id) != 32 || strspn(s.far_id, "0123456789abcdef") != 32))
            abort();
        for (size_t i = 0; i < s.before.n; i++)
            if (s.before.v[i].path[0] == '\0' || s.before.v[i].path[0] == '/')
                abort();
    }
    cp_error_free(&err);
    cp_mirror_session_dispose(&s);
    free(copy);
    return 0;
}
