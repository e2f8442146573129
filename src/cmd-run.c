/* `run`: its options, which ask the run step (src/run/run.h) for one command at one place. */
#include "config.h"

#include <stddef.h>

#include "src/command.h"
#include "src/run/run.h"

static const struct cp_option options[] = {
    {"place", 0, "PLACE", "container | ssh:HOST | cloud (default: saved, else container)"},
    {"workdir", 0, "DIR", "the work folder (default: the current directory)"},
    {"chat", 0, "ID", "whose copy or sandbox (default: from the folder's real path)"},
    {"unsealed", 0, NULL, "the command leaves the box: default network, .git written directly"},
    {"engine", 0, "NAME", "docker | podman | auto (default: saved, else auto)"},
    {"image", 0, "IMAGE", "the box's image (default: saved, else the work image)"},
    {"interactive", 'i', NULL, "keep standard input open and pass it on"},
    {"hold", 0, NULL, "keep the changes, commits too, for review (changes, land, discard)"},
    {"report", 0, "FILE",
     "write one JSON object about the run (its git refs moved and refused too)"},
    {0},
};

extern const struct cp_command cp_cmd_run;

/* run's options are the run step's ask, one for one. */
static int run_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &cp_cmd_run;
    const struct cp_run_ask ask = {
        .place = cp_arg(args, c, "place"),
        .workdir = cp_arg(args, c, "workdir"),
        .chat = cp_arg(args, c, "chat"),
        .argv = args->nrest > 0 ? args->rest : NULL,
        .unsealed = cp_arg(args, c, "unsealed") != NULL,
        .interactive = cp_arg(args, c, "interactive") != NULL,
        .hold = cp_arg(args, c, "hold") != NULL,
        .engine = cp_arg(args, c, "engine"),
        .image = cp_arg(args, c, "image"),
        .report = cp_arg(args, c, "report"),
    };
    return cp_run(&ask, err);
}

const struct cp_command cp_cmd_run = {
    .name = "run",
    .synopsis = "[OPTIONS] -- COMMAND [ARG...]",
    .summary = "run one command in a sealed work place; its exit status is passed on",
    .options = options,
    .handler = run_handler,
    .failure_status = 125,
    .stop_at_positional = 1,
};
