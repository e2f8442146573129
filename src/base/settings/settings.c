/* Loading and saving config.json, and the preferences read from it: a bad value stops every
 * command, named (its checks are settings-check.c's; the per-folder egress entries are
 * settings-egress.c's). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/settings/settings.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/settings/settings-int.h"
#include "src/base/util.h"

#define CONFIG_MAX (1024 * 1024)

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

int cp_config_save(struct cp_config *c, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_conch_home(1, &home, err) < 0)
        return cp_error_code(err);
    const char *text = json_object_to_json_string_ext(c->root, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
    cleanup_free char *withnl = xasprintf("%s\n", text);
    return cp_write_file_atomic(c->path, withnl, strlen(withnl), 0600, err);
}

/* egress.ca_file as stored: checked on disk now, and absolute so that it means the same file
 * whichever folder a later command starts in. */
static int ca_file_value(const char *v, char **out, cp_error_t *err)
{
    if (cp_config_check_ca_file(v, err) < 0)
        return cp_error_code(err);
    *out = v[0] == '/' ? xstrdup(v) : realpath(v, NULL);
    if (*out == NULL)
        return cp_config_ca_file_refused(v, errno, "cannot be made an absolute path", err);
    return 0;
}

int cp_config_set(struct cp_config *c, const char *key, const char *value, cp_error_t *err)
{
    cleanup_free char *stored = NULL;
    if (strcmp(key, "egress.ca_file") == 0 && ca_file_value(value, &stored, err) < 0)
        return cp_error_code(err);
    if (stored != NULL)
        value = stored;
    if (cp_config_check_value(key, value, err) < 0)
        return cp_error_code(err);
    json_object_object_add(c->root, key, json_object_new_string(value));
    return cp_config_save(c, err);
}

int cp_config_unset(struct cp_config *c, const char *key, cp_error_t *err)
{
    if (!cp_config_key_known(key))
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a setting (known: %s)", key,
                             CP_CONFIG_KEYS);
    if (!json_object_object_get_ex(c->root, key, NULL))
        return 0;
    json_object_object_del(c->root, key);
    return cp_config_save(c, err);
}

const char *cp_config_egress_ca_file(const struct cp_config *c)
{
    return cp_config_get(c, "egress.ca_file");
}

bool cp_config_limits_may_miss(const struct cp_config *c)
{
    const char *v = c != NULL ? cp_config_get(c, "container.limits") : NULL;
    return v != NULL && strcmp(v, "allow-missing") == 0;
}

bool cp_config_caches_on(const struct cp_config *c)
{
    const char *v = c != NULL ? cp_config_get(c, "container.caches") : NULL;
    return v == NULL || strcmp(v, "off") != 0;
}
