/* `hosts [--workdir DIR] [--json]`: the sealed box's allow-list, each host with why it is on
 * it, and the public registries left off with why. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "places/container/allowlist.h"
#include "places/container/registries.h"
#include "src/command.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/settings.h"
#include "src/base/util.h"

extern const struct cp_command cp_cmd_hosts;

static void print_text(const struct cp_allowlist *l)
{
    if (l->allow_all)
        printf("%-40s %s\n", "*", "\"allow-all\" for this folder: any public host on port 443");
    for (size_t i = 0; i < l->nallowed; i++)
        printf("%-40s %s\n", l->allowed[i].host, l->allowed[i].why);
    for (size_t i = 0; i < l->nleft_off; i++)
        printf("%-40s left off: %s\n", l->left_off[i].host, l->left_off[i].why);
}

static int hosts_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "hosts takes no arguments");
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    const char *dir = cp_arg(args, &cp_cmd_hosts, "workdir");
    cleanup_free char *workdir = realpath(dir ? dir : ".", NULL);
    if (workdir == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used",
                             dir ? dir : ".");
    cleanup_error cp_error_t npm_err = NULL; /* not known: listed as left off, with why */
    if (cp_npm_default_learn_for(&cfg, &npm_err) < 0)
        cp_debug("%s", npm_err->msg);
    cleanup_allowlist struct cp_allowlist list = {0};
    if (cp_allowlist_for(workdir, &cfg, &list, err) < 0)
        return cp_error_code(err);
    if (cp_arg(args, &cp_cmd_hosts, "json") == NULL) {
        print_text(&list);
        return 0;
    }
    cleanup_json json_object *doc = cp_allowlist_json(&list);
    printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    return 0;
}

static const struct cp_option options[] = {
    {"workdir", 0, "DIR", "the work folder (default: the current directory)"},
    {"json", 0, NULL, "one JSON document: {\"allowed\": [...], \"left_off\": [...]}"},
    {0},
};

const struct cp_command cp_cmd_hosts = {
    .name = "hosts",
    .synopsis = "[--workdir DIR] [--json]",
    .summary = "the sealed box's allow-list, each host with why it is on it (or left off)",
    .options = options,
    .handler = hosts_handler,
    .failure_status = 125,
};
