/* `land [RUN]`: lands a held run through the gate, as a run would have when it ended. */
#include "config.h"

#include <stdio.h>

#include "mirror/mirror.h"
#include "src/command.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"

extern const struct cp_command cp_cmd_land;

static int land_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &cp_cmd_land;
    if (args->nrest > 1)
        return cp_error_make(err, CP_ERR_USAGE, 0, "land takes at most one RUN");
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    struct cp_held_run r __attribute__((cleanup(cp_held_run_dispose))) = {0};
    if (cp_held_pick_in(cp_arg(args, c, "workdir"), args->nrest ? args->rest[0] : NULL, &r, err) <
        0)
        return cp_error_code(err);
    if (cp_held_land(&r, &cfg, "to take them, run the command again with --unsealed", true, err) <
        0)
        return cp_error_wrap(err, "landing run %s", r.id);
    printf("run %s landed in %s\n", r.id, r.workdir);
    return 0;
}

static const struct cp_option options[] = {
    {"workdir", 0, "DIR", "the folder whose one held run lands (default: the current one)"},
    {0},
};

const struct cp_command cp_cmd_land = {
    .name = "land",
    .synopsis = "[--workdir DIR] [RUN]",
    .summary = "land a held run's changes through the gate (RUN: from 'changes')",
    .options = options,
    .handler = land_handler,
    .failure_status = 1,
};
