/* `ssh-keeper HOST` (internal): the background helper the ssh:HOST place starts by itself to
 * keep one connection open between runs (places/ssh/keeper.c). */
#include "config.h"

#include "places/ssh/ssh.h"
#include "src/command.h"
#include "src/run/run.h"

static const struct cp_option options[] = {{0}};

static int handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest != 1)
        return cp_error_make(err, CP_ERR_USAGE, 0, "ssh-keeper takes one HOST");
    return cp_ssh_keeper_main(args->rest[0], cp_run_resolved, err) < 0 ? cp_error_code(err) : 0;
}

const struct cp_command cp_cmd_ssh_keeper = {
    .name = "ssh-keeper",
    .synopsis = "HOST",
    .summary = "(internal) started by run --place ssh:HOST; keeps its connection for later runs",
    .options = options,
    .handler = handler,
    .failure_status = 1,
};
