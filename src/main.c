/* Entry point: finds the subcommand, runs it, and is the only place that decides the exit. */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "src/command.h"
#include "src/base/log.h"

/* 2, except for run: its own statuses are the command's, so every failure of ours is 125. */
static int usage_failure(cp_error_t *err, const struct cp_command *cmd)
{
    cp_error_print(err);
    if (cmd != NULL)
        fprintf(stderr, "See 'conch-place help %s'.\n", cmd->name);
    return cmd != NULL && cmd->failure_status == 125 ? 125 : 2;
}

int main(int argc, char **argv)
{
    cleanup_error cp_error_t err = NULL;
    /* A closed pipe reader must not kill us before the box is removed. */
    signal(SIGPIPE, SIG_IGN);
    setlocale(LC_ALL, "");

    int first = 1;
    while (first < argc &&
           (strcmp(argv[first], "-v") == 0 || strcmp(argv[first], "--verbose") == 0)) {
        cp_log_verbose++;
        first++;
    }
    if (first >= argc) {
        cp_commands_overview(stderr);
        return 2;
    }
    const char *name = argv[first];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        name = "help";
    else if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        name = "version";

    const struct cp_command *cmd = cp_command_find(name);
    if (cmd == NULL) {
        cp_error_make(&err, CP_ERR_USAGE, 0, "'%s' is not a conch-place command", name);
        cp_error_hint(&err, "Run 'conch-place --help' for the list.");
        return usage_failure(&err, NULL);
    }
    struct cp_parsed args;
    if (cp_command_parse(cmd, argc - first, argv + first, &args, &err) < 0) {
        free(args.rest);
        return usage_failure(&err, cmd);
    }
    if (args.help) {
        free(args.rest);
        cp_command_usage(cmd, stdout);
        return 0;
    }

    int status = cmd->handler(&args, &err);
    free(args.rest);
    if (status >= 0)
        return status;
    if (cp_error_code(&err) == CP_ERR_USAGE)
        return usage_failure(&err, cmd);
    cp_error_print(&err);
    return cmd->failure_status;
}
