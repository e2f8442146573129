/* Loading, validating and saving config.json: a bad value stops every command, named. */
#include "config.h"

#include <string.h>

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
        if (!json_object_is_type(h, json_type_string) || !cp_host_pattern_valid(s))
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

int cp_config_set(struct cp_config *c, const char *key, const char *value, cp_error_t *err)
{
    if (cp_config_check_value(key, value, err) < 0)
        return cp_error_code(err);
    cleanup_free char *home = NULL;
    if (cp_conch_home(1, &home, err) < 0)
        return cp_error_code(err);
    json_object_object_add(c->root, key, json_object_new_string(value));
    const char *text = json_object_to_json_string_ext(c->root, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
    cleanup_free char *withnl = xasprintf("%s\n", text);
    return cp_write_file_atomic(c->path, withnl, strlen(withnl), 0600, err);
}

json_object *cp_config_egress(const struct cp_config *c, const char *folder)
{
    json_object *eg = NULL, *v = NULL;
    if (!json_object_object_get_ex(c->root, "egress", &eg) ||
        !json_object_object_get_ex(eg, folder, &v))
        return NULL;
    return v;
}
