/* The sidecar's message: the sign-ins as one line of JSON, every copy json-c made wiped. */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "places/container/sign-ins.h"
#include "src/base/util.h"

/* json-c keeps its own copy of every string, and of the text it printed: both wiped. */
static void wipe_strings(json_object *o)
{
    if (json_object_is_type(o, json_type_string)) {
        explicit_bzero((char *)json_object_get_string(o), (size_t)json_object_get_string_len(o));
    } else if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach (o, k, v) {
            (void)k;
            wipe_strings(v);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            wipe_strings(json_object_array_get_idx(o, i));
    }
}

static json_object *entry(const struct cp_sign_in *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "host", json_object_new_string(s->host));
    json_object_object_add(o, "prefix", json_object_new_string(s->prefix));
    json_object_object_add(o, "authorization", json_object_new_string(s->authorization));
    json_object_object_add(o, "source", json_object_new_string(s->source));
    return o;
}

char *cp_sign_ins_message(const struct cp_sign_ins *s, const char *id)
{
    json_object *doc = json_object_new_object();
    json_object *a = json_object_new_array();
    if (id != NULL)
        json_object_object_add(doc, "id", json_object_new_string(id));
    for (size_t i = 0; i < s->n; i++)
        json_object_array_add(a, entry(&s->v[i]));
    json_object_object_add(doc, "sign_ins", a);
    size_t len = 0;
    /* PLAIN: no line breaks inside, so the message is one line. */
    const char *text = json_object_to_json_string_length(
        doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    char *out = xmalloc(len + 2);
    memcpy(out, text, len);
    out[len] = '\n';
    out[len + 1] = '\0';
    explicit_bzero((char *)text, len);
    wipe_strings(doc);
    json_object_put(doc);
    return out;
}
