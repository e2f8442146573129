/* json-c ownership and the translation of its parse errors into ours. */
#ifndef CONCH_JSON_H
#define CONCH_JSON_H

#include <json-c/json.h>

#include "src/base/error.h"

void cp_cleanup_jsonp(json_object **o);
#define cleanup_json __attribute__((cleanup(cp_cleanup_jsonp)))

/* Parses exactly one JSON document of at most len bytes; *out is the caller's. */
int cp_json_parse(const char *data, size_t len, const char *what, json_object **out,
                  cp_error_t *err);

/* Borrowed lookups that return NULL/default when absent or of another type. */
const char *cp_json_str(json_object *o, const char *key);
int64_t cp_json_int(json_object *o, const char *key, int64_t dflt);

#endif
