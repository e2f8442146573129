/* json-c helpers: strict whole-document parsing with the tokener's error carried up. */
#include "config.h"

#include "src/base/json.h"

void cp_cleanup_jsonp(json_object **o)
{
    if (*o != NULL)
        json_object_put(*o);
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
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s is cut short", what);
    if (obj == NULL || jerr != json_tokener_success) {
        json_object_put(obj);
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s is not valid JSON (%s)", what,
                             json_tokener_error_desc(jerr));
    }
    for (size_t i = used; i < len; i++) {
        if (data[i] != ' ' && data[i] != '\n' && data[i] != '\r' && data[i] != '\t') {
            json_object_put(obj);
            return cp_error_make(err, CP_ERR_FAILED, 0, "%s has text after its JSON", what);
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
