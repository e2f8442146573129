/* Loading, validating and saving config.json: a bad value stops every command, named. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "src/base/settings/settings.h"
#include "src/base/hostname.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define CONFIG_MAX (1024 * 1024)
/* A whole system bundle is about 200 KiB; a file of 16 MiB is no CA bundle but a mistake. */
#define CA_FILE_MAX (16 * 1024 * 1024)

static const char *const pref_keys[] = {
    "place",         "image",          "engine",           "cloud.api_url",
    "cloud.ca_file", "egress.ca_file", "container.limits", "container.caches"};

static const char *const mode_names[] = {
    [CP_HOST_READ] = "read",
    [CP_HOST_WRITE] = "write",
    [CP_HOST_PASS] = "pass-through",
};

const char *cp_host_mode_name(enum cp_host_mode mode)
{
    return (size_t)mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : "read";
}

static bool mode_parse(const char *name, enum cp_host_mode *out)
{
    for (size_t i = 0; name != NULL && i < ARRAY_SIZE(mode_names); i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (enum cp_host_mode)i;
            return true;
        }
    return false;
}

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

static int ca_file_refused(const char *path, int sys_errno, const char *why, cp_error_t *err)
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
        return ca_file_refused(path, errno, "cannot be used", err);
    if (!S_ISREG(st.st_mode))
        return ca_file_refused(path, 0, "is not a regular file", err);
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t rerr = NULL;
    if (cp_read_file(path, CA_FILE_MAX, &text, &len, &rerr) < 0)
        return ca_file_refused(path, rerr->sys_errno,
                               rerr->sys_errno ? "cannot be read" : "is too big for a CA bundle",
                               err);
    static const char begin[] = "-----BEGIN CERTIFICATE-----";
    if (memmem(text, len, begin, sizeof(begin) - 1) == NULL)
        return ca_file_refused(path, 0, "holds no PEM certificate", err);
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
    if (mode_parse(name, &mode))
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

/* egress.ca_file as stored: checked on disk now, and absolute so that it means the same file
 * whichever folder a later command starts in. */
static int ca_file_value(const char *v, char **out, cp_error_t *err)
{
    if (cp_config_check_ca_file(v, err) < 0)
        return cp_error_code(err);
    *out = v[0] == '/' ? xstrdup(v) : realpath(v, NULL);
    if (*out == NULL)
        return ca_file_refused(v, errno, "cannot be made an absolute path", err);
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
    return save(c, err);
}

int cp_config_unset(struct cp_config *c, const char *key, cp_error_t *err)
{
    if (!cp_config_key_known(key))
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a setting (known: %s)", key,
                             CP_CONFIG_KEYS);
    if (!json_object_object_get_ex(c->root, key, NULL))
        return 0;
    json_object_object_del(c->root, key);
    return save(c, err);
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

const char *cp_config_egress_item(json_object *item, enum cp_host_mode *mode_out)
{
    *mode_out = CP_HOST_READ;
    if (json_object_is_type(item, json_type_string))
        return json_object_get_string(item);
    if (!mode_parse(cp_json_str(item, "mode"), mode_out))
        *mode_out = CP_HOST_READ;
    return cp_json_str(item, "host");
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
