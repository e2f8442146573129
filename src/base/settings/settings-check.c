/* Checking config.json's values: each preference, the per-folder egress lists (an item read
 * with its mode) and the protected names, so that a bad value stops every command, named. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "src/base/hostname.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/places-list.h"
#include "src/base/settings/settings-int.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"

/* A whole system bundle is about 200 KiB; a file of 16 MiB is no CA bundle but a mistake. */
#define CA_FILE_MAX (16 * 1024 * 1024)

static const char *const mode_names[] = {
    [CP_HOST_READ] = "read",
    [CP_HOST_WRITE] = "write",
    [CP_HOST_PASS] = "pass-through",
};

const char *cp_host_mode_name(enum cp_host_mode mode)
{
    return (size_t)mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : "read";
}

bool cp_config_mode_parse(const char *name, enum cp_host_mode *out)
{
    for (size_t i = 0; name != NULL && i < ARRAY_SIZE(mode_names); i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (enum cp_host_mode)i;
            return true;
        }
    return false;
}

const char *cp_config_egress_item(json_object *item, enum cp_host_mode *mode_out)
{
    *mode_out = CP_HOST_READ;
    if (json_object_is_type(item, json_type_string))
        return json_object_get_string(item);
    if (!cp_config_mode_parse(cp_json_str(item, "mode"), mode_out))
        *mode_out = CP_HOST_READ;
    return cp_json_str(item, "host");
}

static const char *const pref_keys[] = {
    "place",         "image",          "engine",           "cloud.api_url",
    "cloud.ca_file", "egress.ca_file", "container.limits", "container.caches"};

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
    const struct cp_place_name *p = cp_place_name_find(v);
    if (p != NULL && (!p->is_prefix || ssh_name_ok(v + strlen(p->name))))
        return 0;
    return cp_error_make(err, CP_ERR_USAGE, 0, "place '%s' is not one of " CP_PLACE_WORDS, v);
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
        if (cp_engine_name_known(v))
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "engine '%s' is not " CP_ENGINE_WORDS, v);
    }
    if (strcmp(key, "cloud.api_url") == 0) {
        if (strncmp(v, "https://", 8) == 0 && v[8] != '\0' && v[8] != '/' &&
            strpbrk(v, " \t\r\n") == NULL)
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "cloud.api_url '%s' is not an https:// URL", v);
    }
    if (strcmp(key, "cloud.ca_file") == 0 || strcmp(key, "egress.ca_file") == 0) {
        /* Only the shape when loading: a file gone since `config set` is reported by its user,
         * not by every command. */
        if (v[0] == '/')
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s '%s' is not an absolute path", key, v);
    }
    if (strcmp(key, "container.limits") == 0) {
        if (strcmp(v, "required") == 0 || strcmp(v, "allow-missing") == 0)
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "container.limits '%s' is not required or allow-missing", v);
    }
    if (strcmp(key, "container.caches") == 0) {
        if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0)
            return 0;
        return cp_error_make(err, CP_ERR_USAGE, 0, "container.caches '%s' is not on or off", v);
    }
    return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a setting (known: %s)", key,
                         CP_CONFIG_KEYS);
}

int cp_config_ca_file_refused(const char *path, int sys_errno, const char *why, cp_error_t *err)
{
    cp_error_make(err, CP_ERR_USAGE, sys_errno, "egress.ca_file: %s %s", path, why);
    cp_error_hint(err, "Give the path of a PEM bundle of the extra CAs the sidecar should trust "
                       "(each one a -----BEGIN CERTIFICATE----- block), readable by you; a DER "
                       "certificate converts with 'openssl x509 -inform der -in FILE -out "
                       "FILE.pem'.");
    return CP_ERR_USAGE;
}

int cp_config_check_ca_file(const char *path, cp_error_t *err)
{
    struct stat st;
    /* stat first: opening a FIFO or a device to read it could hang or never end. */
    if (stat(path, &st) < 0)
        return cp_config_ca_file_refused(path, errno, "cannot be used", err);
    if (!S_ISREG(st.st_mode))
        return cp_config_ca_file_refused(path, 0, "is not a regular file", err);
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t rerr = NULL;
    if (cp_read_file(path, CA_FILE_MAX, &text, &len, &rerr) < 0)
        return cp_config_ca_file_refused(
            path, rerr->sys_errno,
            rerr->sys_errno ? "cannot be read" : "is too big for a CA bundle", err);
    static const char begin[] = "-----BEGIN CERTIFICATE-----";
    if (memmem(text, len, begin, sizeof(begin) - 1) == NULL)
        return cp_config_ca_file_refused(path, 0, "holds no PEM certificate", err);
    return 0;
}

bool cp_config_egress_host_ok(const char *host)
{
    size_t n = strlen(host);
    /* The proxy refuses a trailing dot (policy.c): a name it would refuse is refused here. */
    return n > 0 && host[n - 1] != '.' && cp_host_pattern_valid(host);
}

static int check_item_host(const char *folder, size_t i, const char *host, cp_error_t *err)
{
    if (host != NULL && cp_config_egress_host_ok(host))
        return 0;
    return cp_error_make(err, CP_ERR_USAGE, 0,
                         "egress.\"%s\"[%zu] is '%s', not a host name or *.suffix", folder, i,
                         host ? host : "");
}

static int check_item_mode(const char *folder, size_t i, json_object *item, cp_error_t *err)
{
    enum cp_host_mode mode;
    const char *name = cp_json_str(item, "mode");
    if (cp_config_mode_parse(name, &mode))
        return 0;
    cp_error_make(err, CP_ERR_USAGE, 0,
                  "egress.\"%s\"[%zu] (%s) has mode '%s', not \"read\", \"write\" or "
                  "\"pass-through\"",
                  folder, i, cp_json_str(item, "host"), name ? name : "(none)");
    cp_error_hint(err, "Give it \"mode\": \"write\" to let uploads out to it, \"pass-through\" "
                       "for a client that pins certificates, or list it as a plain \"HOST\" "
                       "string to fetch only.");
    return CP_ERR_USAGE;
}

/* One item: "host" (read, the only form older versions know), or exactly
 * {"host": "...", "mode": "..."}. A misspelt key is refused rather than ignored, because
 * ignoring "mdoe" would quietly leave the host read-only. */
static int check_egress_item(const char *folder, size_t i, json_object *item, cp_error_t *err)
{
    if (json_object_is_type(item, json_type_string))
        return check_item_host(folder, i, json_object_get_string(item), err);
    if (!json_object_is_type(item, json_type_object))
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "egress.\"%s\"[%zu] is '%s', not a host or {\"host\", \"mode\"}",
                             folder, i, item ? json_object_get_string(item) : "null");
    json_object_object_foreach (item, key, val) {
        (void)val;
        if (strcmp(key, "host") != 0 && strcmp(key, "mode") != 0)
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "egress.\"%s\"[%zu] has '%s', which is neither host nor mode",
                                 folder, i, key);
    }
    if (check_item_host(folder, i, cp_json_str(item, "host"), err) < 0)
        return cp_error_code(err);
    return check_item_mode(folder, i, item, err);
}

/* One host twice with two modes would leave the sidecar's choice to the order of the list. */
static int check_one_mode_each(const char *folder, json_object *list, cp_error_t *err)
{
    size_t n = json_object_array_length(list);
    for (size_t i = 0; i < n; i++) {
        enum cp_host_mode mi, mj;
        const char *hi = cp_config_egress_item(json_object_array_get_idx(list, i), &mi);
        for (size_t j = 0; j < i; j++) {
            const char *hj = cp_config_egress_item(json_object_array_get_idx(list, j), &mj);
            if (strcasecmp(hi, hj) == 0 && mi != mj)
                return cp_error_make(err, CP_ERR_USAGE, 0,
                                     "egress.\"%s\" lists '%s' twice, as %s and as %s; keep one",
                                     folder, hi, cp_host_mode_name(mj), cp_host_mode_name(mi));
        }
    }
    return 0;
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
    for (size_t i = 0; i < json_object_array_length(v); i++)
        if (check_egress_item(folder, i, json_object_array_get_idx(v, i), err) < 0)
            return cp_error_code(err);
    return check_one_mode_each(folder, v, err);
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
