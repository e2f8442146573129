/* Reading Daytona's sandbox objects: ids checked before they reach a URL, text bounded. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "places/cloud/sandbox.h"
#include "src/base/json.h"
#include "src/base/util.h"

/* Copies printable text only; false when it does not fit. */
static bool copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        return false;
    for (size_t i = 0; i < n; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
    dst[n] = '\0';
    return true;
}

static bool valid_id(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-'))
            return false;
    }
    return true;
}

time_t cp_sandbox_time(const char *s)
{
    struct tm tm = {0};
    if (s == NULL)
        return 0;
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (rest == NULL)
        return 0;
    time_t t = timegm(&tm);
    return t < 0 ? 0 : t;
}

static void read_labels(json_object *o, struct cp_sandbox *out)
{
    json_object *labels = NULL;
    if (!json_object_object_get_ex(o, "labels", &labels) ||
        !json_object_is_type(labels, json_type_object))
        return;
    const char *ours = cp_json_str(labels, CP_CLOUD_LABEL_OURS);
    out->ours = ours != NULL && strcmp(ours, "1") == 0;
    if (!copy_text(out->chat, sizeof(out->chat), cp_json_str(labels, CP_CLOUD_LABEL_CHAT)))
        out->chat[0] = '\0';
}

int cp_sandbox_from_json(json_object *o, struct cp_sandbox *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    if (!json_object_is_type(o, json_type_object))
        return cp_error_make(err, CP_ERR_FAILED, 0, "a sandbox that is not a JSON object");
    const char *id = cp_json_str(o, "id");
    if (!valid_id(id))
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "a sandbox id that is not [A-Za-z0-9-]{1,64}; refused");
    copy_text(out->id, sizeof(out->id), id);
    if (!copy_text(out->state, sizeof(out->state), cp_json_str(o, "state")))
        return cp_error_make(err, CP_ERR_FAILED, 0, "sandbox %s has an unreadable state", id);
    if (!copy_text(out->toolbox, sizeof(out->toolbox), cp_json_str(o, "toolboxProxyUrl")))
        return cp_error_make(err, CP_ERR_FAILED, 0, "sandbox %s has an overlong toolbox URL", id);
    const char *reason = cp_json_str(o, "errorReason");
    if (!copy_text(out->reason, sizeof(out->reason), reason))
        copy_text(out->reason, sizeof(out->reason), "(a long reason, left out)");
    read_labels(o, out);
    out->last_activity = cp_sandbox_time(cp_json_str(o, "lastActivityAt"));
    if (out->last_activity == 0)
        out->last_activity = cp_sandbox_time(cp_json_str(o, "updatedAt"));
    return 0;
}

int cp_sandbox_list_parse(json_object *root, struct cp_sandbox **items_out, size_t *n_out,
                          char **next_out, cp_error_t *err)
{
    json_object *items = root;
    *next_out = NULL;
    if (json_object_is_type(root, json_type_object)) {
        if (!json_object_object_get_ex(root, "items", &items))
            items = NULL;
        const char *next = cp_json_str(root, "nextCursor");
        if (next != NULL && next[0] != '\0' && strlen(next) < 1024)
            *next_out = xstrdup(next);
    }
    if (items == NULL || !json_object_is_type(items, json_type_array)) {
        free(*next_out);
        *next_out = NULL;
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "a sandbox list that is neither an array nor {items, nextCursor}");
    }
    size_t n = json_object_array_length(items), kept = 0;
    struct cp_sandbox *v = xcalloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        cleanup_error cp_error_t ierr = NULL;
        if (cp_sandbox_from_json(json_object_array_get_idx(items, i), &v[kept], &ierr) == 0)
            kept++;
    }
    *items_out = v;
    *n_out = kept;
    return 0;
}

bool cp_sandbox_state_transient(const char *s)
{
    static const char *const waiting[] = {
        "creating",          "restoring",        "starting", "stopping",     "archiving",
        "pending_build",     "unknown",          "resizing", "pausing",      "resuming",
        "building_snapshot", "pulling_snapshot", "forking",  "snapshotting",
    };
    for (size_t i = 0; i < ARRAY_SIZE(waiting); i++)
        if (strcmp(s, waiting[i]) == 0)
            return true;
    return s[0] == '\0';
}
