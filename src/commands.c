/* The table of subcommands; each lives in its own src/cmd-*.c. */
#include "config.h"

#include <stddef.h>

#include "src/command.h"

extern const struct cp_command cp_cmd_run, cp_cmd_places, cp_cmd_doctor, cp_cmd_clean, cp_cmd_image,
    cp_cmd_config, cp_cmd_key, cp_cmd_egress_proxy, cp_cmd_hosts, cp_cmd_help, cp_cmd_version,
    cp_cmd_ssh_keeper, cp_cmd_relay, cp_cmd_completion, cp_cmd_seal_probe, cp_cmd_changes,
    cp_cmd_land, cp_cmd_discard, cp_cmd_net_hold, cp_cmd_behind, cp_cmd_sign_ins;

const struct cp_command *const cp_commands[] = {
    &cp_cmd_run,        &cp_cmd_changes,
    &cp_cmd_land,       &cp_cmd_discard,
    &cp_cmd_places,     &cp_cmd_doctor,
    &cp_cmd_clean,      &cp_cmd_config,
    &cp_cmd_key,        &cp_cmd_image,
    &cp_cmd_hosts,      &cp_cmd_egress_proxy,
    &cp_cmd_help,       &cp_cmd_version,
    &cp_cmd_completion, &cp_cmd_ssh_keeper,
    &cp_cmd_relay,      &cp_cmd_seal_probe,
    &cp_cmd_net_hold,   &cp_cmd_behind,
    &cp_cmd_sign_ins,   NULL,
};
