/* Warm boxes: their shell, their key and spec, and their making while nobody waits (warm.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "places/container/box/box.h"
#include "places/container/warm/warm-pool.h"
#include "places/container/warm/warm.h"
#include "src/base/clock.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

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
    base.git_layer = spec->git_layer != NULL ? "git-layer" : NULL; /* and its git folder's */
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
    /* Whose pool it is: `clean` takes its own home's unclaimed boxes, never another's. */
    cleanup_free char *mark = cp_home_mark();
    cleanup_free char *home = xasprintf("%s=%s", CP_WARM_HOME_LABEL, mark != NULL ? mark : "");
    char **labels = xcalloc(n + 5, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        labels[i] = spec->labels[i];
    labels[n] = "conch.warm=1";
    labels[n + 1] = made;
    labels[n + 2] = k;
    labels[n + 3] = home;
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

/* The next warm box's layer is made with it, under its own name (layer-volume.h). */
static int warm_layer(struct cp_engine *e, const struct cp_warm_refill *r, const char *name,
                      cp_error_t *err)
{
    if (r->workdir == NULL)
        return 0;
    struct cp_held_run layer = {0};
    if (cp_layer_make(e, r->workdir, name, NULL, r->git, "warm", &layer, err) < 0)
        return cp_error_code(err);
    cp_held_run_dispose(&layer);
    return 0;
}

/* How long the maker takes a box's making to be until it has made one (measured here: ~250 ms
 * on Docker, ~300-400 on Podman). */
#define FIRST_MAKE_MS 400

/* Makes, checks and starts one box of the pool, then records it; one that fails is removed. */
static int make_one(struct cp_engine *e, const struct cp_warm_refill *r,
                    const struct cp_warm_next *next, cp_error_t *err)
{
    cleanup_free char *id = NULL;
    cleanup_free char *missing = NULL;
    if (warm_layer(e, r, next->name, err) < 0)
        return cp_error_code(err);
    /* A box without its limits is kept warm only where the person accepts that; the run that
     * claims it reads them back again and says so (place-container-run.c). */
    if (cp_box_create(e, next->spec, next->name, &id, err) < 0 ||
        (r->workdir != NULL && cp_layer_check(e, next->name, r->git != NULL, err) < 0) ||
        cp_box_limits_missing(e, id, next->spec, &missing, err) < 0 ||
        (missing != NULL && !r->limits_may_miss &&
         cp_error_make(err, CP_ERR_FAILED, 0, "no %s limits", missing) < 0) ||
        cp_box_start(e, id, err) < 0 || cp_warm_pool_add(r->pool, next->name, id, err) < 0) {
        if (id != NULL)
            (void)cp_box_remove(e, id, NULL);
        if (r->workdir != NULL)
            cp_layer_drop(e, next->name);
        return cp_error_code(err);
    }
    return 0;
}

/* Tops the pool up to the size its pace asks for now (the caller is its maker), from the boxes
 * the job may make, *next the first not yet made. False once one failed. */
static bool fill(struct cp_engine *e, const struct cp_warm_refill *r, size_t *next, long *make_ms)
{
    cleanup_error cp_error_t err = NULL;
    int ready = cp_warm_pool_ready(r->pool);
    for (; *next < r->nnext; (*next)++) {
        ready = cp_warm_pool_wait_quiet(r->pool, ready, *make_ms);
        if (ready >= cp_warm_pool_want(r->pool))
            return true;
        long long t0 = cp_now_ms();
        if (make_one(e, r, &r->next[*next], &err) < 0) {
            cp_debug("warm box %s: %s", r->next[*next].name, err->msg);
            (*next)++;
            return false;
        }
        *make_ms = (long)(cp_now_ms() - t0);
        ready++;
    }
    return true;
}

static void remove_used(struct cp_engine *e, const char *id, const char *layer)
{
    cleanup_error cp_error_t err = NULL;
    if (id != NULL)
        (void)cp_box_remove(e, id, &err);
    if (layer != NULL && layer[0] != '\0')
        cp_layer_drop(e, layer);
}

/* The maker's work: the pool topped up, then the used boxes later runs handed over while it
 * worked removed (warm-pool.h), again until none came; those runs' pace may want more boxes. */
static void make_and_remove(struct cp_engine *e, const struct cp_warm_refill *r, int *lock)
{
    struct cp_warm_used used[64];
    size_t next = 0;
    long make_ms = FIRST_MAKE_MS;
    bool making = true;
    while (*lock >= 0) {
        if (making)
            making = fill(e, r, &next, &make_ms);
        int n = cp_warm_pool_take_used(r->pool, lock, used, ARRAY_SIZE(used));
        for (int i = 0; i < n; i++)
            remove_used(e, used[i].id, used[i].layer);
    }
}

void cp_warm_refill_now(const struct cp_engine *parent, const struct cp_warm_refill *r)
{
    struct cp_engine e = {.socket = parent->socket, .kind = parent->kind, .quirks = parent->quirks};
    memcpy(e.version, parent->version, sizeof(e.version));
    /* The next boxes first, the used one after: a run that follows at once finds one sooner.
     * One maker per pool: another at work already tops it up. */
    cleanup_error cp_error_t err = NULL;
    int maker =
        r->pool != NULL && cp_warm_pool_name_ok(r->pool) ? cp_warm_pool_lock(r->pool, &err) : -1;
    if (maker >= 0)
        make_and_remove(&e, r, &maker);
    remove_used(&e, r->used_id, r->used_layer);
    /* Layers whose boxes a crash or an idle exit left: nobody waits here. */
    cp_layer_sweep(&e);
    if (e.curl != NULL)
        curl_easy_cleanup(e.curl);
}
