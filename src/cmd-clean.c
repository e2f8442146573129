/* `clean [--place PLACE]`: remove boxes, sidecars and networks that a crash left behind, in
 * every place or in one. */
#include "config.h"

#include "places/place.h"
#include "src/command.h"
#include "src/base/settings/settings.h"

extern const struct cp_command cp_cmd_clean;

static int clean_handler(const struct cp_parsed *args, cp_error_t *err)
{
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    const char *place = cp_arg(args, &cp_cmd_clean, "place");
    if (place != NULL) {
        const struct cp_place_ops *ops = cp_place_find(place, err);
        if (ops == NULL)
            return cp_error_code(err);
        if (ops->clean != NULL && ops->clean(&cfg, err) < 0)
            return cp_error_wrap(err, "cleaning %s", ops->name);
        return 0;
    }
    for (size_t i = 0; cp_places[i] != NULL; i++) {
        if (cp_places[i]->clean == NULL)
            continue;
        if (cp_places[i]->clean(&cfg, err) < 0)
            return cp_error_wrap(err, "cleaning %s", cp_places[i]->name);
    }
    return 0;
}

static const struct cp_option options[] = {
    {"place", 0, "PLACE", "container | ssh:HOST | cloud: that place only (default: every place)"},
    {0},
};

const struct cp_command cp_cmd_clean = {
    .name = "clean",
    .synopsis = "[--place PLACE]",
    .summary = "remove boxes, sidecars and networks that a crash left behind, and package "
               "caches unused for 7 days",
    .options = options,
    .handler = clean_handler,
    .failure_status = 1,
};
