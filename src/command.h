/* A subcommand: its name, its options (one table, usage generated from it) and its handler. */
#ifndef CONCH_COMMAND_H
#define CONCH_COMMAND_H

#include <stdio.h>

#include "src/base/error.h"

struct cp_option {
    const char *long_name; /* without the dashes */
    char short_name;       /* 0 for none */
    const char *arg_name;  /* NULL for a flag */
    const char *help;
};

#define CP_OPTIONS_MAX 32 /* options in one command's table; cp_command_parse checks */

struct cp_parsed {
    const char *values[CP_OPTIONS_MAX]; /* per option index: its argument, "" for a set flag,
                                           or NULL */
    char **rest;                        /* positional arguments (borrowed from argv) */
    int nrest;
    int argc; /* the command's own argv, for options given more than once (cp_arg_next) */
    char **argv;
    int help; /* -h or --help was given: show the command's usage, nothing else */
};

struct cp_command {
    const char *name;
    const char *synopsis; /* after the name, e.g. "[OPTIONS] -- COMMAND [ARG...]" */
    const char *summary;
    const char *more; /* lines after the options, in --help only (what one line cannot say) */
    const struct cp_option *options; /* terminated by a zeroed entry */
    /* Returns the process's exit status (>= 0), or a negative cp_code with err set. */
    int (*handler)(const struct cp_parsed *args, cp_error_t *err);
    /* Exit status when the handler fails (run uses 125). */
    int failure_status;
    /* Options stop at the first positional (run's COMMAND). */
    int stop_at_positional;
    /* For completion: the words the first and second positional take, space-separated. */
    const char *words[2];
};

extern const struct cp_command *const cp_commands[];

const struct cp_command *cp_command_find(const char *name);

/* Parses argv (argv[0] is the command name) against the command's table. */
int cp_command_parse(const struct cp_command *cmd, int argc, char **argv, struct cp_parsed *out,
                     cp_error_t *err);

/* Index of an option in cmd's table by long name; aborts on a typo in our own code. */
const char *cp_arg(const struct cp_parsed *args, const struct cp_command *cmd,
                   const char *long_name);

/* Each value of a repeatable option in order: start with *pos = 0, call until NULL. */
const char *cp_arg_next(const struct cp_parsed *args, const struct cp_command *cmd,
                        const char *long_name, int *pos);

void cp_command_usage(const struct cp_command *cmd, FILE *out);
/* A bash completion script for every command, made from the same tables. */
void cp_commands_bash_completion(FILE *out);
void cp_commands_overview(FILE *out);

#endif
