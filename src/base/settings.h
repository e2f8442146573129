/* $CONCH_HOME/config.json: preferences and per-folder egress, validated when loaded. */
#ifndef CONCH_SETTINGS_H
#define CONCH_SETTINGS_H

#include <stdbool.h>

#include <json-c/json.h>

#include "src/base/error.h"

struct cp_config {
    char *path;
    json_object *root; /* the whole validated document; keys below borrow from it */
};

/* Loads and validates; an absent file is an empty config. */
int cp_config_load(struct cp_config *out, cp_error_t *err);
void cp_config_dispose(struct cp_config *c);
#define cleanup_config __attribute__((cleanup(cp_config_dispose)))

/* A preference (place, image, engine, cloud.api_url, cloud.ca_file), or NULL when unset. */
const char *cp_config_get(const struct cp_config *c, const char *key);
/* Validates and stores one preference, then writes the file atomically. */
int cp_config_set(struct cp_config *c, const char *key, const char *value, cp_error_t *err);
/* The folder's egress entry: an array of host patterns, the string "allow-all", or NULL. */
json_object *cp_config_egress(const struct cp_config *c, const char *folder);
/* Whether key is one of the preferences get and set know. */
bool cp_config_key_known(const char *key);
/* Checks one value for a key; exposed for tests and the fuzzer. */
int cp_config_check_value(const char *key, const char *value, cp_error_t *err);
/* Validates a parsed document (also what the fuzz target drives). */
int cp_config_validate(json_object *root, const char *path, cp_error_t *err);

#endif
