/* `config get|set|unset KEY [VALUE]`: the saved preferences. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/command.h"
#include "src/base/settings/settings.h"

static int config_get(const struct cp_config *cfg, const char *key, int nrest, cp_error_t *err)
{
    if (nrest != 2)
        return cp_error_make(err, CP_ERR_USAGE, 0, "config get takes one KEY");
    if (!cp_config_key_known(key))
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a setting (known: %s)", key,
                             CP_CONFIG_KEYS);
    const char *v = cp_config_get(cfg, key);
    if (v == NULL)
        return 1; /* unset: nothing printed, like git config */
    printf("%s\n", v);
    return 0;
}

static int config_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const char *verb = args->nrest > 0 ? args->rest[0] : "";
    if (args->nrest < 2 ||
        (strcmp(verb, "get") != 0 && strcmp(verb, "set") != 0 && strcmp(verb, "unset") != 0))
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "config needs 'get KEY', 'set KEY VALUE' or 'unset KEY'");
    const char *key = args->rest[1];
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    if (strcmp(verb, "get") == 0)
        return config_get(&cfg, key, args->nrest, err);
    if (strcmp(verb, "unset") == 0) {
        if (args->nrest != 2)
            return cp_error_make(err, CP_ERR_USAGE, 0, "config unset takes one KEY");
        return cp_config_unset(&cfg, key, err) < 0 ? cp_error_code(err) : 0;
    }
    if (args->nrest != 3)
        return cp_error_make(err, CP_ERR_USAGE, 0, "config set takes KEY and VALUE");
    return cp_config_set(&cfg, key, args->rest[2], err) < 0 ? cp_error_code(err) : 0;
}

static const struct cp_option options[] = {{0}};

const struct cp_command cp_cmd_config = {
    .name = "config",
    .synopsis = "get|set|unset KEY [VALUE]",
    .summary = "read or save a preference: " CP_CONFIG_KEYS,
    .more = "keys:\n"
            "  place            where run runs: container, ssh:HOST or cloud\n"
            "  image            the box's image\n"
            "  engine           docker, podman or auto\n"
            "  cloud.api_url    a self-hosted Daytona's API (https://)\n"
            "  cloud.ca_file    a private CA for cloud.api_url (absolute path)\n"
            "  egress.ca_file   extra CAs (PEM) the sidecar trusts upstream: own git server, "
            "company proxy\n"
            "  container.limits required (default): a box whose engine cannot apply its pids,\n"
            "                   memory and CPU limits is not run (125); allow-missing: it runs,\n"
            "                   and each run says so (rootless engines on cgroup v1)\n"
            "  container.caches on (default): a sealed box's package caches (npm, pip, yarn,\n"
            "                   pnpm, cargo, Go, bun) are kept per work folder; off: none\n",
    .options = options,
    .handler = config_handler,
    .failure_status = 1,
    .words = {"get set unset",
              "place image engine cloud.api_url cloud.ca_file egress.ca_file container.limits "
              "container.caches"},
};
