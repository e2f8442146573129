/* json-c helpers: strict whole-document parsing with the tokener's error carried up. */
#include "config.h"

#include <string.h>

#include "src/base/json.h"
#include "src/base/util.h"

void cp_cleanup_jsonp(json_object **o)
{
    if (*o != NULL)
        json_object_put(*o);
}

/* Where offset falls in text, as an editor counts: line and column from 1. */
void cp_json_position(const char *text, size_t offset, unsigned *line_out, unsigned *col_out)
{
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    *line_out = line;
    *col_out = col;
}

static int parse_failed(const char *data, size_t at, const char *what, const char *why,
                        cp_error_t *err)
{
    unsigned line, col;
    cp_json_position(data, at, &line, &col);
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s:%u:%u: %s", what, line, col, why);
}

int cp_json_parse(const char *data, size_t len, const char *what, json_object **out,
                  cp_error_t *err)
{
    json_tokener *tok = json_tokener_new_ex(64);
    if (tok == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "out of memory parsing %s", what);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *obj = json_tokener_parse_ex(tok, data, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (jerr == json_tokener_continue && len > 0)
        return parse_failed(data, len, what, "cut short (the JSON ends too early)", err);
    if (obj == NULL || jerr != json_tokener_success) {
        json_object_put(obj);
        cleanup_free char *why = xasprintf("not valid JSON (%s)", json_tokener_error_desc(jerr));
        /* The tokener's parse end is the byte it could not take. */
        return parse_failed(data, used <= len ? used : len, what, why, err);
    }
    for (size_t i = used; i < len; i++) {
        if (data[i] != ' ' && data[i] != '\n' && data[i] != '\r' && data[i] != '\t') {
            json_object_put(obj);
            return parse_failed(data, i, what, "text after the JSON document", err);
        }
    }
    *out = obj;
    return 0;
}

const char *cp_json_str(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

int64_t cp_json_int(json_object *o, const char *key, int64_t dflt)
{
    json_object *v = NULL;
    if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_int))
        return dflt;
    return json_object_get_int64(v);
}

void cp_json_wipe_strings(json_object *o)
{
    if (json_object_is_type(o, json_type_string)) {
        explicit_bzero((char *)json_object_get_string(o), (size_t)json_object_get_string_len(o));
    } else if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach (o, key, v) {
            (void)key;
            cp_json_wipe_strings(v);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            cp_json_wipe_strings(json_object_array_get_idx(o, i));
    }
}

void cp_cleanup_json_wipep(json_object **o)
{
    if (*o == NULL)
        return;
    cp_json_wipe_strings(*o);
    json_object_put(*o);
}

char *cp_json_secret_line(json_object *doc)
{
    size_t len = 0;
    /* PLAIN: no line breaks inside (a PEM's are escaped), so the message is one line. */
    const char *text = json_object_to_json_string_length(
        doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    char *out = xmalloc(len + 2);
    memcpy(out, text, len);
    out[len] = '\n';
    out[len + 1] = '\0';
    explicit_bzero((char *)text, len);
    return out;
}
