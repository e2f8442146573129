/* $CONCH_HOME/workplaces.secrets.json: the keys (Daytona's), mode 0600, never printed. */
#ifndef CONCH_SECRETS_H
#define CONCH_SECRETS_H

#include <stddef.h>

#include <json-c/json.h>

#include "src/base/error.h"

/* The longest key accepted; anything longer is not a key. */
#define CP_SECRET_MAX 4096

/* Checks a key's text: printable ASCII without spaces, 1..CP_SECRET_MAX bytes, so it can never
 * break the header it travels in (abuse case 121). */
int cp_secret_check(const char *key, size_t len, cp_error_t *err);

/* Reads one key of the file; CP_ERR_NOT_FOUND when the file or the entry is absent. A file
 * that is not a plain file of ours that only we can read is refused. *out: cp_free_secret. */
int cp_secrets_get(const char *name, char **out, cp_error_t *err);
/* Stores (value non-NULL) or removes (NULL) one key, writing the file atomically at 0600. */
int cp_secrets_put(const char *name, const char *value, cp_error_t *err);

/* Daytona's key: the stored one, else DAYTONA_API_KEY. *source_out names where it came from. */
int cp_secrets_daytona_key(char **out, const char **source_out, cp_error_t *err);

/* The whole file, for the sign-ins' store (sign-ins-store.c), checked as cp_secrets_get checks
 * it: CP_ERR_NOT_FOUND when absent unless create (then an empty object, the folder made).
 * *path_out and *out are the caller's; free *out with cp_secrets_json_free, which wipes it. */
int cp_secrets_load(int create, char **path_out, json_object **out, cp_error_t *err);
/* Writes root to path atomically at 0600, wiping the text json-c printed. */
int cp_secrets_save(const char *path, json_object *root, cp_error_t *err);
void cp_secrets_json_free(json_object **o);

void cp_cleanup_secretp(char **s);
#define cleanup_secret __attribute__((cleanup(cp_cleanup_secretp)))

#endif
