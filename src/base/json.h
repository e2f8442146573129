/* json-c ownership and the translation of its parse errors into ours. */
#ifndef CONCH_JSON_H
#define CONCH_JSON_H

#include <json-c/json.h>

#include "src/base/error.h"

void cp_cleanup_jsonp(json_object **o);
#define cleanup_json __attribute__((cleanup(cp_cleanup_jsonp)))

/* Parses exactly one JSON document of at most len bytes; *out is the caller's. A failure
 * says where, as "WHAT:LINE:COLUMN: why". */
int cp_json_parse(const char *data, size_t len, const char *what, json_object **out,
                  cp_error_t *err);

/* Line and column (from 1) of a byte offset in text. */
void cp_json_position(const char *text, size_t offset, unsigned *line_out, unsigned *col_out);

/* json-c holding secrets: every string of o, at any depth, overwritten; a cleanup that wipes
 * them and drops o; and doc as one line with its newline (the caller's), json-c's own text of
 * it wiped. The sign-in channel's messages, both ways, go through these. */
void cp_json_wipe_strings(json_object *o);
void cp_cleanup_json_wipep(json_object **o);
#define cleanup_json_wipe __attribute__((cleanup(cp_cleanup_json_wipep)))
char *cp_json_secret_line(json_object *doc);

/* Borrowed lookups that return NULL/default when absent or of another type. */
const char *cp_json_str(json_object *o, const char *key);
int64_t cp_json_int(json_object *o, const char *key, int64_t dflt);

#endif
