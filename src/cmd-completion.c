/* `completion bash`: a bash completion script made from the command tables, so that it knows
 * every command, option and word the binary knows (make install puts it where bash looks). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/base/util.h"
#include "src/command.h"

/* What follows an option that takes a value, by the name its table gives the value. */
static const char *value_words(const char *arg_name)
{
    if (strcmp(arg_name, "DIR") == 0)
        return "COMPREPLY=($(compgen -d -- \"$cur\"))";
    if (strcmp(arg_name, "FILE") == 0)
        return "COMPREPLY=($(compgen -f -- \"$cur\"))";
    if (strcmp(arg_name, "PLACE") == 0)
        return "COMPREPLY=($(compgen -W \"container cloud $(_conch_place_ssh_hosts)\" -- "
               "\"$cur\"))";
    if (strcmp(arg_name, "SCHEME") == 0)
        return "COMPREPLY=($(compgen -W \"bearer basic raw\" -- \"$cur\"))";
    if (strcmp(arg_name, "NAME") == 0)
        return "COMPREPLY=($(compgen -W \"docker podman auto\" -- \"$cur\"))";
    return "COMPREPLY=()";
}

static void print_options(const struct cp_command *cmd, FILE *out)
{
    fputs("        opts='--help -h", out);
    for (const struct cp_option *o = cmd->options; o && o->long_name; o++) {
        fprintf(out, " --%s", o->long_name);
        if (o->short_name)
            fprintf(out, " -%c", o->short_name);
    }
    fputs("'\n        valued='", out);
    for (const struct cp_option *o = cmd->options; o && o->long_name; o++)
        if (o->arg_name != NULL)
            fprintf(out, " --%s%s%c ", o->long_name, o->short_name ? " -" : "",
                    o->short_name ? o->short_name : ' ');
    fputs("'\n", out);
}

static void print_values(const struct cp_command *cmd, FILE *out)
{
    fputs("        case $prev in\n", out);
    for (const struct cp_option *o = cmd->options; o && o->long_name; o++) {
        if (o->arg_name == NULL)
            continue;
        fprintf(out, "        --%s", o->long_name);
        if (o->short_name)
            fprintf(out, " | -%c", o->short_name);
        fprintf(out, ") %s; return ;;\n", value_words(o->arg_name));
    }
    fputs("        esac\n", out);
}

/* The values `config set KEY` takes, where they are words. */
static const struct {
    const char *key, *words;
} config_values[] = {
    {"engine", "docker podman auto"},
    {"container.limits", "required allow-missing"},
    {"container.caches", "on off"},
};

static void print_config_values(FILE *out)
{
    fputs("        [ \"${COMP_WORDS[at+1]}\" = set ] && case ${COMP_WORDS[at+2]} in\n", out);
    for (size_t i = 0; i < ARRAY_SIZE(config_values); i++)
        fprintf(out, "        %s) w3='%s' ;;\n", config_values[i].key, config_values[i].words);
    fputs("        esac\n", out);
}

static void print_command(const struct cp_command *cmd, FILE *out)
{
    fprintf(out, "    %s)\n", cmd->name);
    print_options(cmd, out);
    print_values(cmd, out);
    if (strcmp(cmd->name, "help") == 0)
        fputs("        w1=$commands\n", out);
    else
        fprintf(out, "        w1='%s'\n", cmd->words[0] ? cmd->words[0] : "");
    fprintf(out, "        w2='%s'\n", cmd->words[1] ? cmd->words[1] : "");
    if (strcmp(cmd->name, "config") == 0)
        print_config_values(out);
    if (cmd->stop_at_positional)
        fputs("        stop=1\n", out);
    fputs("        ;;\n", out);
}

static const char prologue[] =
    "# bash completion for conch-place, made by `conch-place completion bash` from its own\n"
    "# command tables.\n"
    "_conch_place_ssh_hosts()\n"
    "{\n"
    "    [ -r ~/.ssh/config ] || return 0\n"
    "    awk 'tolower($1) == \"host\" { for (i = 2; i <= NF; i++) if ($i !~ /[*?!]/) "
    "print \"ssh:\" $i }' ~/.ssh/config 2>/dev/null\n"
    "}\n\n"
    "_conch_place()\n"
    "{\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "    local i cmd='' at=0 opts='' valued='' w1='' w2='' w3='' stop=0 nth=0\n";

/* Finds the command word, then counts the positionals typed after it, skipping options and
 * the values of options that take one. */
static const char middle[] =
    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
    "        case ${COMP_WORDS[i]} in -v | --verbose) ;; *) cmd=${COMP_WORDS[i]}; at=$i; break ;; "
    "esac\n"
    "    done\n"
    "    if [ -z \"$cmd\" ]; then\n"
    "        COMPREPLY=($(compgen -W \"$commands -v --verbose --help --version\" -- \"$cur\"))\n"
    "        return\n"
    "    fi\n"
    "    case $cmd in\n";

static const char epilogue[] =
    "    *) return ;;\n"
    "    esac\n"
    "    for ((i = at + 1; i < COMP_CWORD; i++)); do\n"
    "        case ${COMP_WORDS[i]} in\n"
    "        --) COMPREPLY=($(compgen -c -- \"$cur\")); return ;;\n"
    "        -*) [[ $valued == *\" ${COMP_WORDS[i]} \"* ]] && i=$((i + 1)) ;;\n"
    "        *) [ \"$stop\" = 1 ] && { COMPREPLY=($(compgen -f -- \"$cur\")); return; }\n"
    "           nth=$((nth + 1)) ;;\n"
    "        esac\n"
    "    done\n"
    "    if [[ $cur == -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
    "    elif [ \"$stop\" = 1 ]; then\n"
    "        COMPREPLY=($(compgen -c -- \"$cur\"))\n"
    "    elif [ \"$nth\" = 0 ]; then\n"
    "        COMPREPLY=($(compgen -W \"$w1\" -- \"$cur\"))\n"
    "    elif [ \"$nth\" = 1 ]; then\n"
    "        COMPREPLY=($(compgen -W \"$w2\" -- \"$cur\"))\n"
    "    elif [ \"$nth\" = 2 ]; then\n"
    "        COMPREPLY=($(compgen -W \"$w3\" -- \"$cur\"))\n"
    "    fi\n"
    "}\n"
    "complete -F _conch_place conch-place\n";

void cp_commands_bash_completion(FILE *out)
{
    fputs(prologue, out);
    fputs("    local commands='", out);
    for (size_t i = 0; cp_commands[i] != NULL; i++)
        fprintf(out, "%s%s", i ? " " : "", cp_commands[i]->name);
    fputs("'\n", out);
    fputs(middle, out);
    for (size_t i = 0; cp_commands[i] != NULL; i++)
        print_command(cp_commands[i], out);
    fputs(epilogue, out);
}

static int completion_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest != 1 || strcmp(args->rest[0], "bash") != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "completion needs 'bash'");
    cp_commands_bash_completion(stdout);
    return 0;
}

static const struct cp_option no_options[] = {{0}};

const struct cp_command cp_cmd_completion = {
    .name = "completion",
    .synopsis = "bash",
    .summary = "print a bash completion script (make install puts it where bash looks)",
    .options = no_options,
    .handler = completion_handler,
    .failure_status = 2,
    .words = {"bash", NULL},
};
