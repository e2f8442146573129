/* `discard [RUN]`: drops a held run's changes; nothing of them reaches the folder. */
#include "config.h"

#include <stdio.h>

#include "mirror/mirror.h"
#include "src/command.h"
#include "src/base/util.h"

extern const struct cp_command cp_cmd_discard;

static int discard_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &cp_cmd_discard;
    if (args->nrest > 1)
        return cp_error_make(err, CP_ERR_USAGE, 0, "discard takes at most one RUN");
    struct cp_held_run r __attribute__((cleanup(cp_held_run_dispose))) = {0};
    if (cp_held_pick_in(cp_arg(args, c, "workdir"), args->nrest ? args->rest[0] : NULL, &r, err) <
        0)
        return cp_error_code(err);
    if (cp_held_discard(&r, err) < 0)
        return cp_error_wrap(err, "discarding run %s", r.id);
    printf("run %s discarded: nothing of it reached %s\n", r.id, r.workdir);
    return 0;
}

static const struct cp_option options[] = {
    {"workdir", 0, "DIR", "the folder whose one held run is dropped (default: the current one)"},
    {0},
};

const struct cp_command cp_cmd_discard = {
    .name = "discard",
    .synopsis = "[--workdir DIR] [RUN]",
    .summary = "drop a held run's changes (RUN: from 'changes')",
    .options = options,
    .handler = discard_handler,
    .failure_status = 1,
};
