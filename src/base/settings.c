/* Loading, validating and saving config.json: a bad value stops every command, named. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/settings.h"
#include "src/base/hostname.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define CONFIG_MAX (1024 * 1024)

static const char *const pref_keys[] = {"place", "image", "engine", "cloud.api_url",
                                        "cloud.ca_file"};

bool cp_config_key_known(const char *key)
{
    for (size_t i = 0; i < ARRAY_SIZE(pref_keys); i++)
        if (strcmp(key, pref_keys[i]) == 0)
            return true;
    return false;
}

static bool ssh_name_ok(const char *name)
{
    if (name[0] == '\0' || name[0] == '-')
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@") ==
           strlen(name);
}

static int check_place(const char *v, cp_error_t *err)
{
    if (strcmp(v, "container") == 0 || strcmp(v, "cloud") == 0)
        return 0;
    if (strncmp(v, "ssh:", 4) == 0 && ssh_name_ok(v + 4))
        return 0;
    return cp_error_make(err, CP_ERR_USAGE, 0,
                         "place '%s' is not one of container, ssh:HOST or cloud", v);
}

static int check_image(const char *v, cp_error_t *err)
{
    if (v[0] == '\0' || v[0] == '-' || strlen(v) > 255 ||
        strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:@") !=
            strlen(v))
        return cp_error_make(err, CP_ERR_USAGE, 0, "image '%s' is not an image reference", v);
    return 0;
}

int cp_config_check_value(const char *key, const char *v, cp_error_t *err)
{
    if (strcmp(key, "place") == 0)
        return check_place(v, err);
    if (strcmp(key, "image") == 0)
        return check_image(v, err);
    if (strcmp(key, "engine") == 0) {
        if (strcmp(v, "docker") == 0 || strcmp(v, "podman") == 0 || strcmp(v, "auto") == 0)
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "engine '%s' is not docker, podman or auto", v);
    }
    if (strcmp(key, "cloud.api_url") == 0) {
        if (strncmp(v, "https://", 8) == 0 && v[8] != '\0' && v[8] != '/' &&
            strpbrk(v, " \t\r\n") == NULL)
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "cloud.api_url '%s' is not an https:// URL", v);
    }
    if (strcmp(key, "cloud.ca_file") == 0) {
        if (v[0] == '/')
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "cloud.ca_file '%s' is not an absolute path", v);
    }
    return cp_error_make(err, CP_ERR_USAGE, 0,
                         "'%s' is not a setting (known: place, image, "
                         "engine, cloud.api_url, cloud.ca_file)",
                         key);
}

bool cp_config_egress_host_ok(const char *host)
{
    size_t n = strlen(host);
    /* The proxy refuses a trailing dot (policy.c): a name it would refuse is refused here. */
    return n > 0 && host[n - 1] != '.' && cp_host_pattern_valid(host);
}

static int check_egress_entry(const char *folder, json_object *v, cp_error_t *err)
{
    if (folder[0] != '/')
        return cp_error_make(err, CP_ERR_USAGE, 0, "egress folder '%s' is not an absolute path",
                             folder);
    if (json_object_is_type(v, json_type_string)) {
        if (strcmp(json_object_get_string(v), "allow-all") == 0)
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "egress.\"%s\" is '%s', not a list of hosts "
                             "or \"allow-all\"",
                             folder, json_object_get_string(v));
    }
    if (!json_object_is_type(v, json_type_array))
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "egress.\"%s\" is not a list of hosts or \"allow-all\"", folder);
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *h = json_object_array_get_idx(v, i);
        const char *s = json_object_get_string(h);
        if (!json_object_is_type(h, json_type_string) || !cp_config_egress_host_ok(s))
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "egress.\"%s\"[%zu] is '%s', not a host "
                                 "name or *.suffix",
                                 folder, i, s ? s : "");
    }
    return 0;
}

static int check_egress(json_object *eg, cp_error_t *err)
{
    if (!json_object_is_type(eg, json_type_object))
        return cp_error_make(err, CP_ERR_USAGE, 0, "egress is not an object of folder: hosts");
    json_object_object_foreach (eg, folder, v) {
        if (check_egress_entry(folder, v, err) < 0)
            return cp_error_code(err);
    }
    return 0;
}

static int check_protected(json_object *p, cp_error_t *err)
{
    if (!json_object_is_type(p, json_type_array))
        return cp_error_make(err, CP_ERR_USAGE, 0, "protected is not a list of names");
    for (size_t i = 0; i < json_object_array_length(p); i++) {
        json_object *e = json_object_array_get_idx(p, i);
        const char *s = json_object_get_string(e);
        if (!json_object_is_type(e, json_type_string) || s[0] == '\0' || strstr(s, "..") != NULL ||
            s[0] == '/')
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "protected[%zu] is '%s', not a relative "
                                 "name or pattern",
                                 i, s ? s : "");
    }
    return 0;
}

static int check_member(const char *key, json_object *v, cp_error_t *err)
{
    if (strcmp(key, "egress") == 0)
        return check_egress(v, err);
    if (strcmp(key, "protected") == 0)
        return check_protected(v, err);
    if (!cp_config_key_known(key))
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a setting", key);
    if (!json_object_is_type(v, json_type_string))
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s is not a string", key);
    return cp_config_check_value(key, json_object_get_string(v), err);
}

int cp_config_validate(json_object *root, const char *path, cp_error_t *err)
{
    if (!json_object_is_type(root, json_type_object))
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s is not a JSON object", path);
    json_object_object_foreach (root, key, v) {
        if (check_member(key, v, err) < 0)
            return cp_error_wrap(err, "%s", path);
    }
    return 0;
}

int cp_config_load(struct cp_config *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    cleanup_free char *home = NULL;
    if (cp_conch_home(0, &home, err) < 0)
        return cp_error_code(err);
    out->path = xasprintf("%s/config.json", home);
    cleanup_free char *data = NULL;
    size_t len = 0;
    cp_error_t rerr = NULL;
    if (cp_read_file(out->path, CONFIG_MAX, &data, &len, &rerr) < 0) {
        int code = cp_error_code(&rerr);
        if (code == CP_ERR_NOT_FOUND) {
            cp_error_free(&rerr);
            out->root = json_object_new_object();
            return 0;
        }
        *err = rerr;
        return code;
    }
    if (cp_json_parse(data, len, out->path, &out->root, err) < 0 ||
        cp_config_validate(out->root, out->path, err) < 0) {
        cp_error_hint(err, "Fix or remove %s.", out->path);
        return cp_error_code(err);
    }
    return 0;
}

void cp_config_dispose(struct cp_config *c)
{
    if (c->root != NULL)
        json_object_put(c->root);
    free(c->path);
    c->root = NULL;
    c->path = NULL;
}

const char *cp_config_get(const struct cp_config *c, const char *key)
{
    return cp_json_str(c->root, key);
}

static int save(struct cp_config *c, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_conch_home(1, &home, err) < 0)
        return cp_error_code(err);
    const char *text = json_object_to_json_string_ext(c->root, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
    cleanup_free char *withnl = xasprintf("%s\n", text);
    return cp_write_file_atomic(c->path, withnl, strlen(withnl), 0600, err);
}

int cp_config_set(struct cp_config *c, const char *key, const char *value, cp_error_t *err)
{
    if (cp_config_check_value(key, value, err) < 0)
        return cp_error_code(err);
    json_object_object_add(c->root, key, json_object_new_string(value));
    return save(c, err);
}

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

static bool list_has(json_object *list, const char *host)
{
    for (size_t i = 0; i < json_object_array_length(list); i++)
        if (strcasecmp(json_object_get_string(json_object_array_get_idx(list, i)), host) == 0)
            return true;
    return false;
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
                         cp_error_t *err)
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
        if (!list_has(list, host))
            json_object_array_add(list, json_object_new_string(host));
    }
    return save(c, err);
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
        if (!list_has(cur, hosts[i]))
            return not_listed(folder, hosts[i], err);
    json_object *list = egress_entry(c, folder);
    for (size_t i = json_object_array_length(list); i-- > 0;) {
        const char *h = json_object_get_string(json_object_array_get_idx(list, i));
        for (size_t j = 0; hosts[j] != NULL; j++)
            if (strcasecmp(h, hosts[j]) == 0) {
                json_object_array_del_idx(list, i, 1);
                break;
            }
    }
    if (json_object_array_length(list) == 0)
        egress_drop(c, folder);
    return save(c, err);
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
    return save(c, err);
}
