/* Option parsing and usage text for every subcommand, from each command's one table. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "src/command.h"
#include "src/base/util.h"

const struct cp_command *cp_command_find(const char *name)
{
    for (size_t i = 0; cp_commands[i] != NULL; i++)
        if (strcmp(cp_commands[i]->name, name) == 0)
            return cp_commands[i];
    return NULL;
}

static int find_long(const struct cp_option *opts, const char *name, size_t len)
{
    for (int i = 0; opts != NULL && opts[i].long_name != NULL; i++)
        if (strlen(opts[i].long_name) == len && strncmp(opts[i].long_name, name, len) == 0)
            return i;
    return -1;
}

static int find_short(const struct cp_option *opts, char c)
{
    for (int i = 0; opts != NULL && opts[i].long_name != NULL; i++)
        if (opts[i].short_name == c)
            return i;
    return -1;
}

static int take_value(const struct cp_command *cmd, int idx, const char *inline_val, int argc,
                      char **argv, int *i, struct cp_parsed *out, cp_error_t *err)
{
    const struct cp_option *o = &cmd->options[idx];
    if (o->arg_name == NULL) {
        if (inline_val != NULL)
            return cp_error_make(err, CP_ERR_USAGE, 0, "%s: --%s takes no value", cmd->name,
                                 o->long_name);
        out->values[idx] = "";
        return 0;
    }
    if (inline_val == NULL) {
        if (*i + 1 >= argc)
            return cp_error_make(err, CP_ERR_USAGE, 0, "%s: --%s needs a value (%s)", cmd->name,
                                 o->long_name, o->arg_name);
        inline_val = argv[++*i];
    }
    out->values[idx] = inline_val;
    return 0;
}

/* -h and --help belong to every command, unless its own table gives them another meaning. */
static bool asks_help(const struct cp_command *cmd, const char *a)
{
    if (strcmp(a, "--help") == 0)
        return find_long(cmd->options, "help", 4) < 0;
    return strcmp(a, "-h") == 0 && find_short(cmd->options, 'h') < 0;
}

static int parse_one(const struct cp_command *cmd, int argc, char **argv, int *i,
                     struct cp_parsed *out, cp_error_t *err)
{
    const char *a = argv[*i];
    int idx;
    if (asks_help(cmd, a)) {
        out->help = 1;
        return 0;
    }
    if (a[1] == '-') {
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        idx = find_long(cmd->options, name, eq ? (size_t)(eq - name) : strlen(name));
        if (idx < 0)
            return cp_error_make(err, CP_ERR_USAGE, 0, "%s: unknown option '%s'", cmd->name, a);
        return take_value(cmd, idx, eq ? eq + 1 : NULL, argc, argv, i, out, err);
    }
    if (a[2] != '\0')
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s: unknown option '%s' (one letter a dash)",
                             cmd->name, a);
    idx = find_short(cmd->options, a[1]);
    if (idx < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s: unknown option '%s'", cmd->name, a);
    return take_value(cmd, idx, NULL, argc, argv, i, out, err);
}

static size_t options_count(const struct cp_option *opts)
{
    size_t n = 0;
    while (opts != NULL && opts[n].long_name != NULL)
        n++;
    return n;
}

int cp_command_parse(const struct cp_command *cmd, int argc, char **argv, struct cp_parsed *out,
                     cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    /* values[] is indexed by the option's place in the table: a longer table would write
     * past it (egress-proxy's 17th option once did). */
    if (options_count(cmd->options) > CP_OPTIONS_MAX)
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s: more than %d options in its table",
                             cmd->name, CP_OPTIONS_MAX);
    out->argc = argc;
    out->argv = argv;
    out->rest = xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (++i < argc)
                out->rest[out->nrest++] = argv[i];
            break;
        }
        if (a[0] == '-' && a[1] != '\0') {
            int r = parse_one(cmd, argc, argv, &i, out, err);
            if (r < 0 || out->help)
                return r;
            continue;
        }
        out->rest[out->nrest++] = argv[i];
        if (cmd->stop_at_positional) {
            while (++i < argc)
                out->rest[out->nrest++] = argv[i];
            break;
        }
    }
    return 0;
}

const char *cp_arg(const struct cp_parsed *args, const struct cp_command *cmd,
                   const char *long_name)
{
    int idx = find_long(cmd->options, long_name, strlen(long_name));
    if (idx < 0)
        abort();
    return args->values[idx];
}

/* Re-reads argv, which cp_command_parse has already checked, for one option's values. */
const char *cp_arg_next(const struct cp_parsed *args, const struct cp_command *cmd,
                        const char *long_name, int *pos)
{
    int want = find_long(cmd->options, long_name, strlen(long_name));
    if (want < 0)
        abort();
    for (int i = *pos > 0 ? *pos : 1; i < args->argc; i++) {
        const char *a = args->argv[i];
        if (strcmp(a, "--") == 0 || a[0] != '-' || a[1] == '\0') {
            if (strcmp(a, "--") == 0 || cmd->stop_at_positional)
                break;
            continue;
        }
        const char *name = a[1] == '-' ? a + 2 : NULL;
        const char *eq = name ? strchr(name, '=') : NULL;
        int idx = name ? find_long(cmd->options, name, eq ? (size_t)(eq - name) : strlen(name))
                       : find_short(cmd->options, a[1]);
        if (idx < 0)
            continue;
        const char *value = eq ? eq + 1 : NULL;
        if (cmd->options[idx].arg_name != NULL && value == NULL && i + 1 < args->argc)
            value = args->argv[++i];
        if (idx == want) {
            *pos = i + 1;
            return value;
        }
    }
    *pos = args->argc;
    return NULL;
}

static void usage_line(FILE *out, char short_name, const char *long_name, const char *arg_name,
                       const char *help)
{
    char left[64];
    snprintf(left, sizeof(left), "%s%c%s--%s%s%s", short_name ? "-" : "",
             short_name ? short_name : ' ', short_name ? ", " : "  ", long_name,
             arg_name ? " " : "", arg_name ? arg_name : "");
    fprintf(out, "  %-28s %s\n", left + (short_name ? 0 : 1), help);
}

void cp_command_usage(const struct cp_command *cmd, FILE *out)
{
    fprintf(out, "usage: conch-place %s %s\n%s\n\noptions:\n", cmd->name, cmd->synopsis,
            cmd->summary);
    for (const struct cp_option *o = cmd->options; o != NULL && o->long_name != NULL; o++)
        usage_line(out, o->short_name, o->long_name, o->arg_name, o->help);
    usage_line(out, 'h', "help", NULL, "show this help");
    if (cmd->more != NULL)
        fprintf(out, "\n%s", cmd->more);
}

void cp_commands_overview(FILE *out)
{
    fputs("usage: conch-place COMMAND [OPTIONS] [ARGS]\n"
          "Runs one command in a sealed work place and hands back its output, exit code and "
          "files.\n\ncommands:\n",
          out);
    for (size_t i = 0; cp_commands[i] != NULL; i++)
        fprintf(out, "  %-14s %s\n", cp_commands[i]->name, cp_commands[i]->summary);
    fputs("\n'conch-place COMMAND --help' shows a command's options. "
          "Exit status of run: the command's own; 125 when the place fails.\n",
          out);
}
