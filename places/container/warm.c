/* The warm pool: the next box is made while nobody waits, and claimed by exactly one run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box.h"
#include "places/container/layer.h"
#include "places/container/warm.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* A warm box nobody claims leaves after WARM_LIFE seconds; one older than WARM_CLAIM_MAX is
 * not claimed, so it cannot expire between the claim and the wake-up. */
#define WARM_LIFE      300
#define WARM_CLAIM_MAX 240
#define WARM_PREFIX    "conch-warm-"

/* Reads a decimal length and the end mark's nonce on a line, then that many bytes of the
 * command quoted for the shell (dd bs=1 reads no byte past them: what follows is the command's
 * own stdin), and runs it; then marks the end of both output streams with its status
 * (end-mark.h). An unclaimed box leaves after 300 s; the timer is stopped before the command.
 * Its sleep holds none of the box's streams: where the stop comes before the sleep's number is
 * known, the sleep is left, and must not keep the output open (dash, measured). */
const char *const cp_warm_waiter[] = {
    "sh", "-c",
    "(trap 'kill $s 2>/dev/null; exit 0' TERM; sleep 300 </dev/null >/dev/null 2>&1 & s=$!; "
    "wait $s; kill $$) & w=$!; "
    "read -r n m || exit 0; kill $w; "
    "case $n in ''|*[!0-9]*) exit 125 ;; esac; "
    "case $m in ''|*[!0-9a-f]*) exit 125 ;; esac; "
    "c=$(dd bs=1 count=\"$n\" 2>/dev/null) || exit 125; "
    "(eval \"exec $c\"); s=$?; "
    "e=$(printf '\\036conch-end %s %03d\\036' \"$m\" \"$s\"); "
    "printf %s \"$e\"; printf %s \"$e\" >&2; exit $s",
    NULL};

char *cp_warm_key(const struct cp_box_spec *spec, const char *made_from)
{
    struct cp_box_spec base = *spec;
    base.argv = NULL;
    base.interactive = false;
    base.labels = NULL;
    base.env = NULL;
    /* Each box has a layer of its own; whether there is one belongs to the key. */
    base.layer = spec->layer != NULL ? "layer" : NULL;
    cleanup_json json_object *j = cp_box_spec_json(&base);
    /* A box that waits in another shell (an earlier build's) is never claimed. */
    return xasprintf("%s stdin-exec-marked %s %s", PACKAGE_VERSION, made_from,
                     json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
}

json_object *cp_warm_spec(const struct cp_box_spec *spec, const char *key)
{
    struct cp_box_spec w = *spec;
    w.argv = (char *const *)cp_warm_waiter;
    w.interactive = false;
    cleanup_free char *made = xasprintf("conch.made=%lld", (long long)time(NULL));
    cleanup_free char *k = xasprintf("conch.key=%s", key);
    /* The owner labels stay: once claimed, the box's host says whose sweep may judge it. */
    size_t n = cp_strv_len(spec->labels);
    char **labels = xcalloc(n + 4, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        labels[i] = spec->labels[i];
    labels[n] = "conch.warm=1";
    labels[n + 1] = made;
    labels[n + 2] = k;
    w.labels = labels;
    json_object *j = cp_box_spec_json(&w);
    free(labels);
    /* The run's one attach brings the command and carries its stdin, which ends when it
     * closes. The box is not removed as it leaves: its exit status is read after it ended. */
    json_object_object_add(j, "OpenStdin", json_object_new_boolean(1));
    json_object_object_add(j, "StdinOnce", json_object_new_boolean(1));
    json_object_object_add(j, "AttachStdin", json_object_new_boolean(1));
    return j;
}

char *cp_warm_name(void)
{
    char rnd[17];
    return xasprintf(WARM_PREFIX "%s", cp_box_random_hex(rnd, sizeof(rnd)));
}

bool cp_warm_unclaimed(const char *name)
{
    if (name != NULL && name[0] == '/')
        name++;
    return name != NULL && strncmp(name, WARM_PREFIX, strlen(WARM_PREFIX)) == 0;
}

/* Claims are serialised per person: the engine's rename is no compare-and-swap. */
static int lock_claims(cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (cp_workplaces_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/warm.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    if (flock(fd, LOCK_EX) < 0) {
        close(fd);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot lock %s", path);
    }
    return fd;
}

static bool fits(json_object *c, const char *key)
{
    json_object *names = NULL, *labels = NULL;
    json_object_object_get_ex(c, "Names", &names);
    json_object_object_get_ex(c, "Labels", &labels);
    const char *name = json_object_get_string(json_object_array_get_idx(names, 0));
    const char *k = cp_json_str(labels, "conch.key");
    const char *made = cp_json_str(labels, "conch.made");
    long t = 0;
    if (!cp_warm_unclaimed(name) || k == NULL || strcmp(k, key) != 0 || made == NULL ||
        cp_parse_long(made, 0, (long)1 << 62, &t) < 0)
        return false;
    long age = (long)time(NULL) - t;
    return age >= 0 && age < WARM_CLAIM_MAX;
}

static int try_claim(struct cp_engine *e, json_object *list, const char *key, const char *name,
                     char **id_out, char **was_out, cp_error_t *err)
{
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i);
        const char *id = cp_json_str(c, "Id");
        if (id == NULL || !fits(c, key))
            continue;
        cleanup_free char *path = xasprintf("/containers/%s/rename?name=%s", id, name);
        long status = 0;
        if (cp_engine_call_status(e, "POST", path, NULL, &status, NULL, err) < 0)
            return cp_error_code(err);
        if (status != 204 && status != 200)
            continue;
        cp_debug("renamed");
        json_object *names = NULL;
        json_object_object_get_ex(c, "Names", &names);
        const char *was = json_object_get_string(json_object_array_get_idx(names, 0));
        *was_out = xstrdup(was[0] == '/' ? was + 1 : was);
        *id_out = xstrdup(id);
        return 1;
    }
    return 0;
}

int cp_warm_claim(struct cp_engine *e, const char *key, const char *name, char **id_out,
                  char **was_out, cp_error_t *err)
{
    cleanup_close int lock = lock_claims(err);
    if (lock < 0)
        return cp_error_code(err);
    cleanup_free char *filter =
        cp_engine_escape("{\"label\":[\"conch.warm=1\"],\"status\":[\"running\"]}");
    cleanup_free char *path = xasprintf("/containers/json?filters=%s", filter);
    cleanup_json json_object *list = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &list, err) < 0)
        return cp_error_code(err);
    if (!json_object_is_type(list, json_type_array))
        return 0;
    return try_claim(e, list, key, name, id_out, was_out, err);
}

/* The next warm box's layer is made with it, under its own name (layer.h). */
static int warm_layer(struct cp_engine *e, const struct cp_warm_refill *r, cp_error_t *err)
{
    if (r->workdir == NULL)
        return 0;
    struct cp_held_run layer = {0};
    if (cp_layer_make(e, r->workdir, r->name, NULL, "warm", &layer, err) < 0)
        return cp_error_code(err);
    cp_held_run_dispose(&layer);
    return 0;
}

void cp_warm_refill_now(const struct cp_engine *parent, const struct cp_warm_refill *r)
{
    struct cp_engine e = {.socket = parent->socket, .kind = parent->kind};
    memcpy(e.version, parent->version, sizeof(e.version));
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *id = NULL;
    /* The next box first, the used one after: a run that follows at once finds it sooner. */
    if (r->spec != NULL && warm_layer(&e, r, &err) == 0) {
        cleanup_free char *missing = NULL;
        /* A box without its limits is kept warm only where the person accepts that; the run
         * that claims it reads them back again and says so (place-container-run.c). */
        if (cp_box_create(&e, r->spec, r->name, &id, &err) < 0 ||
            cp_box_limits_missing(&e, id, r->spec, &missing, &err) < 0 ||
            (missing != NULL && !r->limits_may_miss) || cp_box_start(&e, id, &err) < 0) {
            if (id != NULL)
                (void)cp_box_remove(&e, id, NULL);
            if (r->workdir != NULL)
                cp_layer_drop(&e, r->name);
        }
    }
    cp_error_free(&err);
    if (r->used_id != NULL)
        (void)cp_box_remove(&e, r->used_id, &err);
    if (r->used_layer != NULL)
        cp_layer_drop(&e, r->used_layer);
    /* Layers whose boxes a crash or an idle exit left: nobody waits here. */
    cp_layer_sweep(&e);
    if (e.curl != NULL)
        curl_easy_cleanup(e.curl);
}
