/* $CONCH_HOME/config.json: preferences and per-folder egress, validated when loaded. */
#ifndef CONCH_SETTINGS_H
#define CONCH_SETTINGS_H

#include <stdbool.h>

#include <json-c/json.h>

#include "src/base/error.h"

/* How the sidecar lets a listed host be used (DESIGN.md, "The egress sidecar"). */
enum cp_host_mode {
    CP_HOST_READ = 0, /* fetching methods only: every host unless the person says otherwise */
    CP_HOST_WRITE,    /* every method, so uploads can go out (hosts add --write) */
    CP_HOST_PASS,     /* a blind tunnel checked on its TLS server name only, for clients that
                         pin certificates (hosts add --pass-through) */
};

/* "read", "write" or "pass-through": the words of config.json and `hosts --json`. */
const char *cp_host_mode_name(enum cp_host_mode mode);

struct cp_config {
    char *path;
    json_object *root; /* the whole validated document; keys below borrow from it */
};

/* The preferences get, set and unset know, for messages and help. */
#define CP_CONFIG_KEYS                                                                             \
    "place, image, engine, cloud.api_url, cloud.ca_file, egress.ca_file, container.limits, "       \
    "container.caches"

/* Loads and validates; an absent file is an empty config. */
int cp_config_load(struct cp_config *out, cp_error_t *err);
void cp_config_dispose(struct cp_config *c);
#define cleanup_config __attribute__((cleanup(cp_config_dispose)))

/* A preference (place, image, engine, cloud.api_url, cloud.ca_file, egress.ca_file), or NULL
 * when unset. */
const char *cp_config_get(const struct cp_config *c, const char *key);
/* Validates and stores one preference, then writes the file atomically. egress.ca_file is
 * checked on disk (cp_config_check_ca_file) and stored as an absolute path. */
int cp_config_set(struct cp_config *c, const char *key, const char *value, cp_error_t *err);
/* Drops one preference (unset already is no failure), then writes the file atomically. */
int cp_config_unset(struct cp_config *c, const char *key, cp_error_t *err);
/* egress.ca_file: the absolute path of a PEM bundle of extra CAs the sidecar trusts for
 * upstreams, or NULL when unset. The host side reads it at each run (it may have changed). */
const char *cp_config_egress_ca_file(const struct cp_config *c);
/* container.limits is allow-missing: the person accepts boxes whose engine cannot apply the
 * pids, memory and CPU limits (rootless on cgroup v1), said at each run. Default: required. */
bool cp_config_limits_may_miss(const struct cp_config *c);
/* container.caches is not off: a sealed box's package caches live in its folder's cache volume
 * (places/container/box/caches.h). Default: on. */
bool cp_config_caches_on(const struct cp_config *c);
/* Whether path is a readable regular file holding at least one PEM certificate. */
int cp_config_check_ca_file(const char *path, cp_error_t *err);
/* The folder's egress entry: an array of host items, the string "allow-all", or NULL. An item
 * is "host" (read) or {"host": "...", "mode": "read"|"write"|"pass-through"}; read it with
 * cp_config_egress_item. folder is a real path; a key written by hand with a trailing slash,
 * doubled slashes or through a symlink names the same folder and matches. */
json_object *cp_config_egress(const struct cp_config *c, const char *folder);
/* One item of a validated egress list: its host pattern (borrowed from item) and its mode. */
const char *cp_config_egress_item(json_object *item, enum cp_host_mode *mode_out);
/* `hosts add|remove|allow-all`: change folder's (a real path) own entry, stored under that
 * path, and write the file atomically keeping every other key. Hosts are checked as the loader
 * checks them; adding a listed host again gives it mode; removing a host the folder does not
 * list fails, naming it; removing the last one, or turning allow-all off, drops the entry.
 * allow-all on replaces a host list. */
int cp_config_egress_add(struct cp_config *c, const char *folder, char *const *hosts,
                         enum cp_host_mode mode, cp_error_t *err);
int cp_config_egress_remove(struct cp_config *c, const char *folder, char *const *hosts,
                            cp_error_t *err);
int cp_config_egress_allow_all(struct cp_config *c, const char *folder, bool on, cp_error_t *err);
/* Whether a host fits a folder's egress list: a name or *.suffix, no trailing dot. */
bool cp_config_egress_host_ok(const char *host);
/* Whether key is one of the preferences get and set know. */
bool cp_config_key_known(const char *key);
/* Checks one value for a key; exposed for tests and the fuzzer. */
int cp_config_check_value(const char *key, const char *value, cp_error_t *err);
/* Validates a parsed document (also what the fuzz target drives). */
int cp_config_validate(json_object *root, const char *path, cp_error_t *err);

#endif
