/* The ssh:HOST place (place-ssh.c: its ops; place-check.c: its doctor), as its own files and
 * its tests reach it. Other modules know the place only through places/place.h. */
#ifndef CONCH_SSH_PLACE_SSH_H
#define CONCH_SSH_PLACE_SSH_H

#include <json-c/json.h>

#include "places/ssh/config-host.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* doctor --place ssh:HOST: one line per check, a failure with one action. */
int cp_ssh_check(const char *place, const struct cp_config *cfg, cp_error_t *err);

/* Appends {"place": "ssh:NAME", "ready", "next", "host", "user", "port"} for each literal Host
 * name of the config at path. Ready: it resolves and known_hosts names it; otherwise "next" is
 * the one step to take. A config that cannot be read adds one {"place": "ssh:"} entry. */
int cp_ssh_places_describe(const struct cp_ssh_fs *fs, const char *path, json_object *places,
                           cp_error_t *err);

#endif
