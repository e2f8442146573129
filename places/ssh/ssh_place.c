/* The listing of SSH places: one entry per literal Host, ready or with its next step. */
#include "config.h"

#include <string.h>

#include "places/ssh/known_hosts.h"
#include "places/ssh/ssh_place.h"
#include "src/base/util.h"

static json_object *entry(const char *place, bool ready, const char *next)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "place", json_object_new_string(place));
    json_object_object_add(o, "ready", json_object_new_boolean(ready));
    json_object_object_add(o, "next", next != NULL ? json_object_new_string(next) : NULL);
    return o;
}

/* Whether a known_hosts file the host uses names it at all (its key is checked on connect). */
static bool host_known(const struct cp_ssh_host *h)
{
    size_t nu = cp_strv_len(h->user_known_hosts), ng = cp_strv_len(h->global_known_hosts);
    cleanup_free char **files = xcalloc(nu + ng + 1, sizeof(char *));
    memcpy(files, h->user_known_hosts, nu * sizeof(char *));
    memcpy(files + nu, h->global_known_hosts, ng * sizeof(char *));
    cleanup_free char *name = h->host_key_alias != NULL ? xstrdup(h->host_key_alias)
                                                        : cp_known_hosts_name(h->hostname, h->port);
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    return cp_known_hosts_check(files, name, NULL, 0, &v, &err) == 0 && v.known_types[0] != '\0';
}

static json_object *describe_one(const struct cp_ssh_fs *fs, const char *name)
{
    cleanup_free char *place = xasprintf("ssh:%s", name);
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    if (cp_ssh_place_resolve(fs, name, &h, &err) < 0)
        return entry(place, false, err->msg);
    bool known = host_known(&h);
    cleanup_free char *next =
        known
            ? NULL
            : xasprintf("connect once from a terminal (`ssh %s`) to check and save its key", name);
    json_object *o = entry(place, known, next);
    json_object_object_add(o, "host", json_object_new_string(h.hostname));
    json_object_object_add(o, "user", json_object_new_string(h.user));
    json_object_object_add(o, "port", json_object_new_int((int)h.port));
    return o;
}

int cp_ssh_places_describe(const struct cp_ssh_fs *fs, const char *path, json_object *places,
                           cp_error_t *err)
{
    cleanup_strv char **names = NULL;
    cp_error_t inner = NULL;
    if (cp_ssh_config_hosts(fs, path, &names, &inner) < 0) {
        json_object_array_add(places, entry("ssh:", false, inner->msg));
        cp_error_free(&inner);
        return 0;
    }
    for (size_t i = 0; names[i] != NULL; i++)
        json_object_array_add(places, describe_one(fs, names[i]));
    return 0;
}
