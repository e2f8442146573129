/* What `conch-place places` shows for SSH: each literal Host of ~/.ssh/config as a place. */
#ifndef CONCH_SSH_PLACE_H
#define CONCH_SSH_PLACE_H

#include <json-c/json.h>

#include "places/ssh/ssh_config.h"

/* Appends {"place": "ssh:NAME", "ready", "next", "host", "user", "port"} for each literal Host
 * name of the config at path. Ready: it resolves and known_hosts names it; otherwise "next" is
 * the one step to take. A config that cannot be read adds one {"place": "ssh:"} entry. */
int cp_ssh_places_describe(const struct cp_ssh_fs *fs, const char *path, json_object *places,
                           cp_error_t *err);

#endif
