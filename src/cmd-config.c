/* `config get|set KEY [VALUE]`: the saved preferences. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/command.h"
#include "src/base/settings.h"

static int config_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest < 2 || (strcmp(args->rest[0], "get") != 0 && strcmp(args->rest[0], "set") != 0))
        return cp_error_make(err, CP_ERR_USAGE, 0, "config needs 'get KEY' or 'set KEY VALUE'");
    const char *key = args->rest[1];
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    if (strcmp(args->rest[0], "get") == 0) {
        if (args->nrest != 2)
            return cp_error_make(err, CP_ERR_USAGE, 0, "config get takes one KEY");
        if (!cp_config_key_known(key))
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "'%s' is not a setting (known: place, "
                                 "image, engine, cloud.api_url, cloud.ca_file)",
                                 key);
        const char *v = cp_config_get(&cfg, key);
        if (v == NULL)
            return 1; /* unset: nothing printed, like git config */
        printf("%s\n", v);
        return 0;
    }
    if (args->nrest != 3)
        return cp_error_make(err, CP_ERR_USAGE, 0, "config set takes KEY and VALUE");
    return cp_config_set(&cfg, key, args->rest[2], err) < 0 ? cp_error_code(err) : 0;
}

static const struct cp_option options[] = {{0}};

const struct cp_command cp_cmd_config = {
    .name = "config",
    .synopsis = "get|set KEY [VALUE]",
    .summary = "read or save a preference: place, image, engine, cloud.api_url, cloud.ca_file",
    .options = options,
    .handler = config_handler,
    .failure_status = 1,
    .words = {"get set", "place image engine cloud.api_url cloud.ca_file"},
};
