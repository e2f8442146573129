/* `doctor [--place PLACE]`: check a place end to end; each failure with one action. */
#include "config.h"

#include <stdio.h>

#include "places/place.h"
#include "src/command.h"
#include "src/base/settings/settings.h"

extern const struct cp_command cp_cmd_doctor;

static int doctor_handler(const struct cp_parsed *args, cp_error_t *err)
{
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    const char *place = cp_arg(args, &cp_cmd_doctor, "place");
    if (place == NULL)
        place = cp_config_get(&cfg, "place") ? cp_config_get(&cfg, "place") : "container";
    const struct cp_place_ops *ops = cp_place_find(place, err);
    if (ops == NULL)
        return cp_error_code(err);
    if (ops->check == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the place %s cannot be checked yet", place);
    if (ops->check(place, &cfg, err) < 0)
        return cp_error_code(err);
    printf("%s: ready\n", place);
    return 0;
}

static const struct cp_option options[] = {
    {"place", 0, "PLACE", "container | ssh:HOST | cloud (default: saved, else container)"},
    {0},
};

const struct cp_command cp_cmd_doctor = {
    .name = "doctor",
    .synopsis = "[--place PLACE]",
    .summary = "check a place end to end; each failure with one action",
    .options = options,
    .handler = doctor_handler,
    .failure_status = 1,
};
