/* The sidecar's message: the sign-ins as one line of JSON, every copy json-c made wiped. */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "places/container/sign-ins.h"
#include "src/base/json.h"
#include "src/base/util.h"

/* json-c keeps its own copy of every string, and of the text it printed: both wiped. */
static json_object *entry(const struct cp_sign_in *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "host", json_object_new_string(s->host));
    json_object_object_add(o, "prefix", json_object_new_string(s->prefix));
    json_object_object_add(o, "authorization", json_object_new_string(s->authorization));
    json_object_object_add(o, "source", json_object_new_string(s->source));
    if (s->placeholder == NULL)
        return o;
    json_object_object_add(o, "header", json_object_new_string(s->header));
    json_object_object_add(o, "placeholder", json_object_new_string(s->placeholder));
    json_object_object_add(o, "write", json_object_new_boolean(s->write));
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
    char *out = cp_json_secret_line(doc);
    cp_cleanup_json_wipep(&doc);
    return out;
}
