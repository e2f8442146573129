/* `help [COMMAND]` and `version`: the face of the binary. */
#include "config.h"

#include <stdio.h>

#include "src/command.h"

static int help_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest == 0) {
        cp_commands_overview(stdout);
        return 0;
    }
    const struct cp_command *cmd = cp_command_find(args->rest[0]);
    if (cmd == NULL) {
        cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a conch-place command", args->rest[0]);
        cp_error_hint(err, "Run 'conch-place --help' for the list.");
        return CP_ERR_USAGE;
    }
    cp_command_usage(cmd, stdout);
    return 0;
}

static int version_handler(const struct cp_parsed *args, cp_error_t *err)
{
    printf("conch-place %s\n", PACKAGE_VERSION);
    return 0;
}

static const struct cp_option no_options[] = {{0}};

const struct cp_command cp_cmd_help = {
    .name = "help",
    .synopsis = "[COMMAND]",
    .summary = "show the commands, or one command's options",
    .options = no_options,
    .handler = help_handler,
    .failure_status = 2,
};

const struct cp_command cp_cmd_version = {
    .name = "version",
    .synopsis = "",
    .summary = "print the version (also --version)",
    .options = no_options,
    .handler = version_handler,
    .failure_status = 1,
};
