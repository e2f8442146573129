/* Fuzz target: every JSON answer the Daytona client reads (sandbox objects, both list shapes,
 * error bodies), the Retry-After headers beside them, and the stream sizes a far script's
 * execute answers with. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "places/cloud/daytona.h"
#include "places/cloud/sandbox.h"
#include "places/cloud/transport-daytona.h"
#include "src/base/json.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    free(cp_daytona_message((const char *)data, size));
    cleanup_free char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    (void)cp_daytona_retry_after_ms(text);
    long long out = 0, errs = 0;
    cp_daytona_stream_sizes(text, &out, &errs);
    if ((out < 0) != (errs < 0) || out < -1 || errs < -1)
        abort(); /* both sizes or neither, never a negative one but "unknown" */
    cleanup_json json_object *root = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_json_parse((const char *)data, size, "fuzz", &root, &err) < 0)
        return 0;
    struct cp_sandbox sb;
    cleanup_error cp_error_t serr = NULL;
    if (cp_sandbox_from_json(root, &sb, &serr) == 0 && strlen(sb.id) > 64)
        abort(); /* an id that passed must be one the URL can carry */
    cleanup_free struct cp_sandbox *items = NULL;
    cleanup_free char *next = NULL;
    size_t n = 0;
    cleanup_error cp_error_t lerr = NULL;
    if (cp_sandbox_list_parse(root, &items, &n, &next, &lerr) == 0)
        for (size_t i = 0; i < n; i++)
            if (strspn(items[i].id,
                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") !=
                strlen(items[i].id))
                abort();
    return 0;
}
