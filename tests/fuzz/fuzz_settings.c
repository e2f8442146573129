/* Fuzz target: config.json as the person (or anything) may have written it. */
#include "config.h"

#include <stdint.h>

#include "src/base/json.h"
#include "src/base/settings/settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cleanup_json json_object *root = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_json_parse((const char *)data, size, "config.json", &root, &err) < 0)
        return 0;
    cleanup_error cp_error_t verr = NULL;
    cp_config_validate(root, "config.json", &verr);
    return 0;
}
