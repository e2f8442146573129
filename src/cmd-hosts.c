/* `hosts [--workdir DIR] [--json]`: the sealed box's allow-list, each host with how it may be
 * used, why it is on it and whether the sidecar adds a sign-in there, and the public
 * registries left off with why; `hosts add|remove|allow-all` change the folder's own
 * entries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "places/container/container.h"
#include "src/command.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"

extern const struct cp_command cp_cmd_hosts;

/* What the sidecar lets through to a host of this mode, and how it came to be so. */
static const char *mode_words(enum cp_host_mode mode)
{
    switch (mode) {
    case CP_HOST_WRITE:
        return "fetch and upload (added with --write)";
    case CP_HOST_PASS:
        return "blind tunnel, no method rules (added with --pass-through)";
    case CP_HOST_READ:
        break;
    }
    return "fetch only";
}

static void print_text(const struct cp_allowlist *l)
{
    if (l->allow_all)
        printf("%-40s %s; %s\n", "*", mode_words(CP_HOST_READ),
               "\"allow-all\" for this folder: any public host on port 443");
    for (size_t i = 0; i < l->nallowed; i++)
        printf("%-40s %s; %s\n", l->allowed[i].host, mode_words(l->allowed[i].mode),
               l->allowed[i].why);
    for (size_t i = 0; i < l->nleft_off; i++)
        printf("%-40s left off: %s\n", l->left_off[i].host, l->left_off[i].why);
    bool signs = false;
    for (size_t i = 0; i < l->nallowed; i++)
        signs = signs || l->allowed[i].sign_in;
    /* A page under a sign-in's prefix that echoes its request would show the box the sign-in;
     * the sidecar masks the forms it knows, but the person's narrow prefix is the first guard. */
    if (signs)
        printf("\nA sign-in goes to every path under its registry's address: keep that address as "
               "narrow as the registry allows (its own path, not the host's root). The sidecar "
               "takes each sign-in it adds out of the answers it passes on, and refuses a "
               "compressed answer from such a host.\n");
}

/* ---- hosts add|remove|allow-all: this folder's own entries in config.json ---- */

static int change_usage(cp_error_t *err)
{
    return cp_error_make(err, CP_ERR_USAGE, 0,
                         "hosts takes 'add HOST...', 'remove HOST...' or 'allow-all on|off'");
}

/* The mode `hosts add` gives its hosts: read unless --write or --pass-through, never both
 * (one lets every method through the TLS the sidecar ends, the other leaves TLS unopened). */
static int asked_mode(const struct cp_parsed *args, const char *verb, enum cp_host_mode *out,
                      cp_error_t *err)
{
    bool write = cp_arg(args, &cp_cmd_hosts, "write") != NULL;
    bool pass = cp_arg(args, &cp_cmd_hosts, "pass-through") != NULL;
    *out = write ? CP_HOST_WRITE : pass ? CP_HOST_PASS : CP_HOST_READ;
    if (write && pass)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "hosts add takes --write or --pass-through, not both: --write lets "
                             "uploads through, --pass-through is a blind tunnel for a client "
                             "that pins certificates");
    if ((write || pass) && strcmp(verb, "add") != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--%s goes with 'hosts add HOST...' only",
                             write ? "write" : "pass-through");
    return 0;
}

static int apply_change(struct cp_config *cfg, const char *workdir, const struct cp_parsed *args,
                        cp_error_t *err)
{
    char **rest = args->rest;
    int n = args->nrest;
    const char *verb = rest[0];
    enum cp_host_mode mode;
    if (asked_mode(args, verb, &mode, err) < 0)
        return cp_error_code(err);
    if (strcmp(verb, "allow-all") == 0) {
        if (n != 2 || (strcmp(rest[1], "on") != 0 && strcmp(rest[1], "off") != 0))
            return cp_error_make(err, CP_ERR_USAGE, 0, "hosts allow-all takes 'on' or 'off'");
        return cp_config_egress_allow_all(cfg, workdir, strcmp(rest[1], "on") == 0, err);
    }
    if (n < 2)
        return cp_error_make(err, CP_ERR_USAGE, 0, "hosts %s needs at least one HOST", verb);
    if (strcmp(verb, "add") == 0)
        return cp_config_egress_add(cfg, workdir, rest + 1, mode, err);
    if (strcmp(verb, "remove") == 0)
        return cp_config_egress_remove(cfg, workdir, rest + 1, err);
    return change_usage(err);
}

/* "folder: a.example, b.example (write), c.example (pass-through)" */
static void print_hosts(const char *workdir, json_object *list)
{
    printf("%s:", workdir);
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        enum cp_host_mode mode;
        const char *host = cp_config_egress_item(json_object_array_get_idx(list, i), &mode);
        printf("%s %s", i ? "," : "", host);
        if (mode != CP_HOST_READ)
            printf(" (%s)", cp_host_mode_name(mode));
    }
    putchar('\n');
}

static void print_entry(const struct cp_config *cfg, const char *workdir)
{
    json_object *v = cp_config_egress(cfg, workdir);
    if (v == NULL)
        printf("%s: no egress entries of its own (the built-in list only)\n", workdir);
    else if (json_object_is_type(v, json_type_string))
        printf("%s: allow-all (any public host on port 443)\n", workdir);
    else
        print_hosts(workdir, v);
}

static int hosts_change(const struct cp_parsed *args, const char *workdir, cp_error_t *err)
{
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    if (apply_change(&cfg, workdir, args, err) < 0)
        return cp_error_code(err);
    print_entry(&cfg, workdir);
    return 0;
}

static int resolve_folder(const struct cp_parsed *args, char **out, cp_error_t *err)
{
    const char *dir = cp_arg(args, &cp_cmd_hosts, "workdir");
    *out = realpath(dir ? dir : ".", NULL);
    if (*out == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used",
                             dir ? dir : ".");
    return 0;
}

static int hosts_handler(const struct cp_parsed *args, cp_error_t *err)
{
    enum cp_host_mode unused;
    if (args->nrest == 0 && asked_mode(args, "", &unused, err) < 0)
        return cp_error_code(err);
    if (args->nrest != 0) {
        cleanup_free char *folder = NULL;
        if (resolve_folder(args, &folder, err) < 0)
            return cp_error_code(err);
        return hosts_change(args, folder, err);
    }
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
    {"json", 0, NULL,
     "one JSON document: {\"allowed\": [...], \"left_off\": [...]}; \"sign_in\": true on a "
     "host the sidecar signs in to"},
    {"write", 0, NULL, "with add: every method, so uploads go out to HOST"},
    {"pass-through", 0, NULL, "with add: a blind tunnel to HOST, no method rules"},
    {0},
};

const struct cp_command cp_cmd_hosts = {
    .name = "hosts",
    .synopsis = "[--workdir DIR] [--json] | add HOST... [--write|--pass-through] | remove HOST... "
                "| allow-all on|off",
    .summary = "the sealed box's allow-list: each host, what it may do and why (or left off)",
    .more = "A host fetches only (GET, HEAD and the registries' fetching POSTs) unless added\n"
            "--write (every method: pushes, publishes) or --pass-through (TLS left unopened, for\n"
            "a client that pins certificates). Adding a listed host again changes its mode.\n",
    .options = options,
    .handler = hosts_handler,
    .failure_status = 125,
    .words = {"add remove allow-all", NULL},
};
