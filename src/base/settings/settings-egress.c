/* The per-folder egress entries of config.json: found under a folder's real path, and changed
 * by hosts add, remove and allow-all (an item and its mode are read by settings-check.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/settings/settings-int.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"

/* A folder key as written by hand: "/a/b/", "/a//b" or a symlink to the folder all name it.
 * realpath decides where the folder exists; otherwise the spelling without extra slashes. */
static char *folder_key_real(const char *key)
{
    char *real = realpath(key, NULL);
    if (real != NULL)
        return real;
    char *tidy = xstrdup(key);
    size_t n = 0;
    for (size_t i = 0; tidy[i] != '\0'; i++)
        if (tidy[i] != '/' || n == 0 || tidy[n - 1] != '/')
            tidy[n++] = tidy[i];
    while (n > 1 && tidy[n - 1] == '/')
        n--;
    tidy[n] = '\0';
    return tidy;
}

/* The key of folder's entry: its real path itself, else the first key that names the same
 * folder. NULL when the folder has none. Borrowed from c. */
static const char *egress_key(const struct cp_config *c, const char *folder)
{
    json_object *eg = NULL, *v = NULL;
    if (!json_object_object_get_ex(c->root, "egress", &eg) ||
        !json_object_is_type(eg, json_type_object))
        return NULL;
    if (json_object_object_get_ex(eg, folder, &v))
        return folder;
    json_object_object_foreach (eg, key, val) {
        (void)val;
        cleanup_free char *real = folder_key_real(key);
        if (strcmp(real, folder) == 0)
            return key;
    }
    return NULL;
}

json_object *cp_config_egress(const struct cp_config *c, const char *folder)
{
    json_object *eg = NULL, *v = NULL;
    const char *key = egress_key(c, folder);
    if (key == NULL || !json_object_object_get_ex(c->root, "egress", &eg) ||
        !json_object_object_get_ex(eg, key, &v))
        return NULL;
    return v;
}

/* The folder's entry, moved under its real path (a hand-written spelling is replaced), or a
 * new empty list. Borrowed from c. */
static json_object *egress_entry(struct cp_config *c, const char *folder)
{
    json_object *eg = NULL;
    if (!json_object_object_get_ex(c->root, "egress", &eg)) {
        eg = json_object_new_object();
        json_object_object_add(c->root, "egress", eg);
    }
    const char *key = egress_key(c, folder);
    json_object *v = NULL;
    if (key != NULL && json_object_object_get_ex(eg, key, &v)) {
        json_object_get(v);
        cleanup_free char *old = xstrdup(key);
        json_object_object_del(eg, old);
    } else {
        v = json_object_new_array();
    }
    json_object_object_add(eg, folder, v);
    return v;
}

#define NOT_LISTED ((size_t)-1)

/* Where host is in list (case aside), or NOT_LISTED. */
static size_t list_find(json_object *list, const char *host)
{
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        enum cp_host_mode mode;
        const char *h = cp_config_egress_item(json_object_array_get_idx(list, i), &mode);
        if (h != NULL && strcasecmp(h, host) == 0)
            return i;
    }
    return NOT_LISTED;
}

/* A read host is written as a plain string, the form older versions load, so a file without
 * --write or --pass-through hosts still works with them. */
static json_object *item_new(const char *host, enum cp_host_mode mode)
{
    if (mode == CP_HOST_READ)
        return json_object_new_string(host);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "host", json_object_new_string(host));
    json_object_object_add(o, "mode", json_object_new_string(cp_host_mode_name(mode)));
    return o;
}

static int check_hosts(char *const *hosts, cp_error_t *err)
{
    for (size_t i = 0; hosts[i] != NULL; i++)
        if (!cp_config_egress_host_ok(hosts[i]))
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "'%s' is not a host name or *.suffix (an IP address, a port or a "
                                 "scheme cannot be listed)",
                                 hosts[i]);
    return 0;
}

static char *lower(const char *s)
{
    char *l = xstrdup(s);
    for (char *p = l; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return l;
}

int cp_config_egress_add(struct cp_config *c, const char *folder, char *const *hosts,
                         enum cp_host_mode mode, cp_error_t *err)
{
    if (check_hosts(hosts, err) < 0)
        return cp_error_code(err);
    json_object *cur = cp_config_egress(c, folder);
    if (cur != NULL && json_object_is_type(cur, json_type_string)) {
        cp_error_make(err, CP_ERR_USAGE, 0, "%s already allows every public host (\"allow-all\")",
                      folder);
        cp_error_hint(err, "Run 'conch-place hosts allow-all off' first to list hosts instead.");
        return CP_ERR_USAGE;
    }
    json_object *list = egress_entry(c, folder);
    for (size_t i = 0; hosts[i] != NULL; i++) {
        cleanup_free char *host = lower(hosts[i]);
        size_t at = list_find(list, host);
        if (at == NOT_LISTED)
            json_object_array_add(list, item_new(host, mode));
        else /* added again: the mode asked now is the one it keeps */
            json_object_array_put_idx(list, at, item_new(host, mode));
    }
    return cp_config_save(c, err);
}

/* Drops the folder's entry altogether: the folder is back to the defaults. */
static void egress_drop(struct cp_config *c, const char *folder)
{
    json_object *eg = NULL;
    const char *key = egress_key(c, folder);
    if (key == NULL || !json_object_object_get_ex(c->root, "egress", &eg))
        return;
    cleanup_free char *old = xstrdup(key);
    json_object_object_del(eg, old);
    if (json_object_object_length(eg) == 0)
        json_object_object_del(c->root, "egress");
}

static int not_listed(const char *folder, const char *host, cp_error_t *err)
{
    cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not among %s's own egress hosts", host, folder);
    cp_error_hint(err, "'conch-place hosts' lists them; registries on the built-in list cannot be "
                       "removed, only left unused.");
    return CP_ERR_USAGE;
}

int cp_config_egress_remove(struct cp_config *c, const char *folder, char *const *hosts,
                            cp_error_t *err)
{
    json_object *cur = cp_config_egress(c, folder);
    if (cur == NULL || !json_object_is_type(cur, json_type_array))
        return not_listed(folder, hosts[0] ? hosts[0] : "", err);
    for (size_t i = 0; hosts[i] != NULL; i++)
        if (list_find(cur, hosts[i]) == NOT_LISTED)
            return not_listed(folder, hosts[i], err);
    json_object *list = egress_entry(c, folder);
    for (size_t j = 0; hosts[j] != NULL; j++) {
        size_t at;
        while ((at = list_find(list, hosts[j])) != NOT_LISTED) /* a hand-made list may repeat it */
            json_object_array_del_idx(list, at, 1);
    }
    if (json_object_array_length(list) == 0)
        egress_drop(c, folder);
    return cp_config_save(c, err);
}

int cp_config_egress_allow_all(struct cp_config *c, const char *folder, bool on, cp_error_t *err)
{
    if (on) {
        egress_entry(c, folder);
        json_object *eg = NULL;
        json_object_object_get_ex(c->root, "egress", &eg);
        json_object_object_add(eg, folder, json_object_new_string("allow-all"));
    } else {
        json_object *cur = cp_config_egress(c, folder);
        if (cur != NULL && json_object_is_type(cur, json_type_string))
            egress_drop(c, folder);
    }
    return cp_config_save(c, err);
}
