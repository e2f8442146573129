/* The secrets file: read only when it is a plain file of ours no one else can read; every
 * copy of a key is wiped before it is freed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/secrets.h"
#include "src/base/util.h"

#define SECRETS_FILE "workplaces.secrets.json"
#define SECRETS_MAX  (64 * 1024)

void cp_cleanup_secretp(char **s)
{
    cp_free_secret(*s);
    *s = NULL;
}

/* json-c keeps its own copies of every string: wipe them before the tree is freed. */
static void wipe_json(json_object *o)
{
    if (o == NULL)
        return;
    if (json_object_is_type(o, json_type_array)) { /* the folders' sign-ins */
        for (size_t i = 0; i < json_object_array_length(o); i++)
            wipe_json(json_object_array_get_idx(o, i));
        return;
    }
    if (json_object_is_type(o, json_type_string)) {
        explicit_bzero((char *)json_object_get_string(o), (size_t)json_object_get_string_len(o));
        return;
    }
    if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach (o, k, v) {
            (void)k;
            wipe_json(v);
        }
    }
}

void cp_secrets_json_free(json_object **o)
{
    wipe_json(*o);
    cp_cleanup_jsonp(o);
}

static void cleanup_secret_json(json_object **o)
{
    cp_secrets_json_free(o);
}

int cp_secret_check(const char *key, size_t len, cp_error_t *err)
{
    if (len == 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the key is empty");
    if (len > CP_SECRET_MAX)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the key is longer than %d bytes",
                             CP_SECRET_MAX);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)key[i] <= 0x20 || (unsigned char)key[i] >= 0x7f)
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "the key holds a space, a control or a non-ASCII byte at "
                                 "offset %zu; a Daytona key is printable ASCII",
                                 i);
    return 0;
}

static int secrets_path(int create, char **out, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_conch_home(create, &home, err) < 0)
        return cp_error_code(err);
    *out = xasprintf("%s/%s", home, SECRETS_FILE);
    return 0;
}

/* Opens without following a link and refuses what others could read or swap (case 122). */
static int open_trusted(const char *path, int *fd_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT)
        return cp_error_make(err, CP_ERR_NOT_FOUND, ENOENT, "%s does not exist", path);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_UNSAFE, errno, "cannot open %s (a link is refused)", path);
    struct stat st;
    if (fstat(fd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat %s", path);
    if (!S_ISREG(st.st_mode) || st.st_uid != getuid()) {
        cp_error_make(err, CP_ERR_UNSAFE, 0, "%s is not a plain file owned by you", path);
        cp_error_hint(err, "Remove it and set the key again: conch-place key set daytona");
        return CP_ERR_UNSAFE;
    }
    if ((st.st_mode & 077) != 0) {
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "%s can be read by others (mode %04o); a key file must be 0600", path,
                      (unsigned)(st.st_mode & 07777));
        cp_error_hint(err, "Run: chmod 600 %s, then set a new key, as this one may be known.",
                      path);
        return CP_ERR_UNSAFE;
    }
    *fd_out = steal_fd(&fd);
    return 0;
}

static int read_secrets(const char *path, json_object **out, cp_error_t *err)
{
    cleanup_close int fd = -1;
    if (open_trusted(path, &fd, err) < 0)
        return cp_error_code(err);
    cleanup_secret char *data = xcalloc(1, SECRETS_MAX + 1);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, data + len, SECRETS_MAX - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read %s", path);
        if (n == 0)
            break;
        len += (size_t)n;
        if (len == SECRETS_MAX)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s is over %d bytes", path, SECRETS_MAX);
    }
    if (len == 0) {
        *out = json_object_new_object();
        return 0;
    }
    if (cp_json_parse(data, len, path, out, err) < 0)
        return cp_error_code(err);
    if (!json_object_is_type(*out, json_type_object)) {
        cleanup_secret_json(out);
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s is not a JSON object", path);
    }
    return 0;
}

int cp_secrets_load(int create, char **path_out, json_object **out, cp_error_t *err)
{
    cleanup_free char *path = NULL;
    if (secrets_path(create, &path, err) < 0)
        return cp_error_code(err);
    int r = read_secrets(path, out, err);
    if (r == CP_ERR_NOT_FOUND && create) {
        cp_error_free(err);
        *out = json_object_new_object();
        r = 0;
    }
    if (r == 0) {
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* a key in memory stays out of core files */
        *path_out = steal_pointer(&path);
    }
    return r;
}

int cp_secrets_get(const char *name, char **out, cp_error_t *err)
{
    cleanup_free char *path = NULL;
    if (secrets_path(0, &path, err) < 0)
        return cp_error_code(err);
    __attribute__((cleanup(cleanup_secret_json))) json_object *root = NULL;
    if (read_secrets(path, &root, err) < 0)
        return cp_error_code(err);
    json_object *entry = NULL, *key = NULL;
    if (!json_object_object_get_ex(root, name, &entry) ||
        !json_object_object_get_ex(entry, "api_key", &key) ||
        !json_object_is_type(key, json_type_string))
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "%s holds no %s key", path, name);
    const char *v = json_object_get_string(key);
    size_t len = (size_t)json_object_get_string_len(key);
    if (cp_secret_check(v, len, err) < 0)
        return cp_error_wrap(err, "the %s key in %s", name, path);
    /* A key in memory must not end up in a core file (abuse case 120). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    *out = xstrdup(v);
    return 0;
}

int cp_secrets_save(const char *path, json_object *root, cp_error_t *err)
{
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
    size_t len = strlen(text);
    if (len >= SECRETS_MAX) { /* it could not be read back: every run would fail */
        explicit_bzero((char *)text, len);
        cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s would be over %d bytes", path, SECRETS_MAX);
        cp_error_hint(err, "Remove sign-ins you no longer use (conch-place sign-ins list, then "
                           "sign-ins remove HOST).");
        return CP_ERR_TOO_BIG;
    }
    int r = cp_write_file_atomic(path, text, len, 0600, err);
    explicit_bzero((char *)text, len);
    return r;
}

int cp_secrets_put(const char *name, const char *value, cp_error_t *err)
{
    cleanup_free char *path = NULL;
    if (secrets_path(1, &path, err) < 0)
        return cp_error_code(err);
    __attribute__((cleanup(cleanup_secret_json))) json_object *root = NULL;
    if (read_secrets(path, &root, err) < 0) {
        if (cp_error_code(err) != CP_ERR_NOT_FOUND)
            return cp_error_code(err);
        cp_error_free(err);
        root = json_object_new_object();
    }
    if (value == NULL) {
        if (!json_object_object_get_ex(root, name, NULL))
            return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "no %s key is stored", name);
        json_object *old = NULL;
        json_object_object_get_ex(root, name, &old);
        wipe_json(old);
        json_object_object_del(root, name);
    } else {
        if (cp_secret_check(value, strlen(value), err) < 0)
            return cp_error_code(err);
        json_object *entry = json_object_new_object();
        json_object_object_add(entry, "api_key", json_object_new_string(value));
        json_object_object_add(root, name, entry);
    }
    return cp_secrets_save(path, root, err);
}

int cp_secrets_daytona_key(char **out, const char **source_out, cp_error_t *err)
{
    int r = cp_secrets_get("daytona", out, err);
    if (r == 0) {
        *source_out = "the secrets file";
        return 0;
    }
    if (r != CP_ERR_NOT_FOUND)
        return r;
    const char *env = getenv("DAYTONA_API_KEY");
    if (env == NULL || env[0] == '\0') {
        cp_error_free(err);
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "no Daytona API key is set");
        cp_error_hint(err, "Run: conch-place key set daytona (it reads the key from standard "
                           "input).");
        return CP_ERR_NOT_FOUND;
    }
    cp_error_free(err);
    if (cp_secret_check(env, strlen(env), err) < 0)
        return cp_error_wrap(err, "DAYTONA_API_KEY");
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    *out = xstrdup(env);
    *source_out = "DAYTONA_API_KEY";
    return 0;
}
