/* `clean`: remove boxes, sidecars and networks that a crash left behind, in every place. */
#include "config.h"

#include "places/place.h"
#include "src/command.h"
#include "src/base/settings.h"

static int clean_handler(const struct cp_parsed *args, cp_error_t *err)
{
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0; cp_places[i] != NULL; i++) {
        if (cp_places[i]->clean == NULL)
            continue;
        if (cp_places[i]->clean(&cfg, err) < 0)
            return cp_error_wrap(err, "cleaning %s", cp_places[i]->name);
    }
    return 0;
}

static const struct cp_option options[] = {{0}};

const struct cp_command cp_cmd_clean = {
    .name = "clean",
    .synopsis = "",
    .summary = "remove boxes, sidecars and networks that a crash left behind",
    .options = options,
    .handler = clean_handler,
    .failure_status = 1,
};
