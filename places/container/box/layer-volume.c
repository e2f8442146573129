/* The layer as a `local` volume with overlay options: Docker and Podman both mount it when the
 * box starts (as root, so the person needs no mount rights) and unmount it when it ends. Chosen
 * over Podman's own overlay mounts so both engines take one body; measured in bench/. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box/create-body.h"
#include "places/container/box/layer-volume.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define LAYER_LABEL "conch.layer"
/* The CONCH_HOME whose workplaces hold the layer's folder (cp_home_mark): a box's check knows its
 * own home's volume by it. The sweep goes by the volume's folder, whichever home made it. */
#define HOME_LABEL "conch.layer.home"
/* A warm box is claimed within 240 s of its making and leaves by 300 s (warm.c): its layer is
 * no one's after this. */
#define WARM_LAYER_LIFE 360

char *cp_layer_volume(const char *id)
{
    return xasprintf("%s-layer", id);
}

char *cp_layer_git_volume(const char *id)
{
    return xasprintf("%s-gitlayer", id);
}

/* The run's layer as an overlay mount, labelled with its run and home. */
static json_object *volume_body(const char *name, const char *id, const char *mark,
                                const char *options)
{
    cleanup_free char *layer = xasprintf("%s=%s", LAYER_LABEL, id);
    cleanup_free char *home = xasprintf("%s=%s", HOME_LABEL, mark);
    return cp_local_volume_body(name, "overlay", "overlay", options, (char *[]){layer, home, NULL});
}

static int make_volume(struct cp_engine *e, struct cp_held_run *r, bool git, cp_error_t *err)
{
    cleanup_free char *options = NULL;
    if (cp_held_mount_options(r, git, &options, err) < 0)
        return cp_error_code(err);
    cleanup_free char *mark = cp_home_mark();
    if (mark == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot read CONCH_HOME's workplaces folder");
    cleanup_free char *name = git ? cp_layer_git_volume(r->id) : cp_layer_volume(r->id);
    cleanup_json json_object *body = volume_body(name, r->id, mark, options);
    if (cp_engine_call(e, "POST", "/volumes/create", body, NULL, err) < 0)
        return cp_error_wrap(err, git ? "making the layer volume of the box's git folder"
                                      : "making the box's layer volume");
    return 0;
}

static void remove_volumes(struct cp_engine *e, const char *id, bool git);

static int make_volumes(struct cp_engine *e, struct cp_held_run *r, const char *state,
                        cp_error_t *err)
{
    if (strcmp(state, "running") != 0 && cp_held_set_state(r, state, err) < 0)
        return cp_error_code(err);
    if (make_volume(e, r, false, err) < 0 ||
        (r->git_dir != NULL && make_volume(e, r, true, err) < 0))
        return cp_error_code(err);
    return 0;
}

int cp_layer_make(struct cp_engine *e, const char *workdir, const char *id, char *const *argv,
                  const struct cp_git_outside *git, const char *state, struct cp_held_run *out,
                  cp_error_t *err)
{
    struct cp_held_run r = {0};
    if (cp_held_make(workdir, id, argv, git, &r, err) < 0)
        return cp_error_wrap(err, "making the box's layer");
    if (make_volumes(e, &r, state, err) < 0) {
        cleanup_error cp_error_t derr = NULL;
        remove_volumes(e, id, r.git_dir != NULL);
        cp_held_discard(&r, &derr);
        cp_held_run_dispose(&r);
        return cp_error_code(err);
    }
    *out = r;
    return 0;
}

/* Whether the volume's labels are the ones make_volume gave it: an engine makes an empty volume
 * of a name a box mounts when none is there, so a layer removed before the box was made would
 * give the box an empty folder to work in. */
static bool volume_is_ours(json_object *reply, const char *id, const char *mark)
{
    json_object *labels = NULL;
    if (!json_object_object_get_ex(reply, "Labels", &labels))
        return false;
    const char *lid = cp_json_str(labels, LAYER_LABEL), *lhome = cp_json_str(labels, HOME_LABEL);
    return lid != NULL && strcmp(lid, id) == 0 && lhome != NULL && strcmp(lhome, mark) == 0;
}

static int check_volume(struct cp_engine *e, const char *id, const char *name, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/volumes/%s", name);
    cleanup_free char *mark = cp_home_mark();
    cleanup_json json_object *reply = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &reply, err) < 0)
        return cp_error_wrap(err, "reading the box's layer volume %s", name);
    if (mark != NULL && volume_is_ours(reply, id, mark))
        return 0;
    cp_error_make(err, CP_ERR_FAILED, 0,
                  "the box's layer volume %s is not the one conch-place made for this run (its "
                  "labels differ: something removed it, and the engine made an empty one)",
                  name);
    cp_error_hint(err, "Nothing ran. Run the command again; if this repeats, see whether another "
                       "tool removes the engine's volumes.");
    return cp_error_code(err);
}

int cp_layer_check(struct cp_engine *e, const char *id, bool git_layer, cp_error_t *err)
{
    cleanup_free char *name = cp_layer_volume(id);
    if (check_volume(e, id, name, err) < 0)
        return cp_error_code(err);
    if (!git_layer)
        return 0;
    cleanup_free char *git = cp_layer_git_volume(id);
    return check_volume(e, id, git, err);
}

static void remove_volume(struct cp_engine *e, const char *name)
{
    cleanup_free char *path = xasprintf("/volumes/%s?force=1", name);
    long status = 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_call_status(e, "DELETE", path, NULL, &status, NULL, &err) < 0)
        cp_debug("layer volume %s: %s", name, err->msg);
}

static void remove_volumes(struct cp_engine *e, const char *id, bool git)
{
    cleanup_free char *name = cp_layer_volume(id);
    remove_volume(e, name);
    cleanup_free char *git_name = git ? cp_layer_git_volume(id) : NULL;
    if (git_name != NULL)
        remove_volume(e, git_name);
}

void cp_layer_drop(struct cp_engine *e, const char *id)
{
    struct cp_held_run r = {0};
    cleanup_error cp_error_t err = NULL;
    if (cp_held_load(id, &r, &err) < 0) {
        remove_volumes(e, id, true); /* no record says which it had */
        return;
    }
    remove_volumes(e, id, r.git_dir != NULL);
    if (strcmp(r.state, "landed") == 0 || strcmp(r.state, "warm") == 0)
        cp_held_discard(&r, &err);
    cp_held_run_dispose(&r);
}

/* The folder one of our volumes stands on, from its options: a layer's run folder (its lowerdir
 * is RUN/lower or RUN/git-lower, a link to what it covers), a cache's bound folder (its device).
 * NULL when the options say neither. */
static char *backing_folder(json_object *v)
{
    json_object *opts = NULL;
    if (!json_object_object_get_ex(v, "Options", &opts))
        return NULL;
    const char *o = cp_json_str(opts, "o"), *device = cp_json_str(opts, "device");
    if (o != NULL && strcmp(o, "bind") == 0)
        return device != NULL && device[0] == '/' ? xstrdup(device) : NULL;
    const char *lower = o != NULL ? strstr(o, "lowerdir=") : NULL;
    if (lower == NULL)
        return NULL;
    lower += strlen("lowerdir=");
    cleanup_free char *dir = strndup(lower, strcspn(lower, ","));
    char *slash = dir != NULL ? strrchr(dir, '/') : NULL;
    if (slash == NULL || dir[0] != '/' ||
        (strcmp(slash, "/lower") != 0 && strcmp(slash, "/git-lower") != 0))
        return NULL;
    *slash = '\0';
    return steal_pointer(&dir);
}

/* Whether the folder is known to be gone: one we cannot look at (another person's) stays. */
static bool folder_gone(const char *dir)
{
    struct stat st;
    return dir != NULL && lstat(dir, &st) < 0 && errno == ENOENT;
}

/* Warm layers past their box's life are dropped: nothing was written in them. */
static void drop_stale_warm(void)
{
    struct cp_held_run *v = NULL;
    size_t n = 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_held_list(NULL, &v, &n, &err) < 0)
        return;
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++) {
        cleanup_error cp_error_t derr = NULL;
        if (strcmp(v[i].state, "warm") == 0 && now - v[i].made > WARM_LAYER_LIFE)
            cp_held_discard(&v[i], &derr);
    }
    cp_held_list_free(v, n);
}

/* Every volume of ours whose folder is gone serves no box: a layer's once it landed or was
 * dropped, and any volume of a CONCH_HOME removed with its runs (a test's scratch home, a reset),
 * which that home's own sweep will never come to. Each engine keeps a volume until told (Podman
 * gives each a lock of its 2,048), so they are swept by every home, by their folders alone. */
void cp_layer_sweep(struct cp_engine *e)
{
    drop_stale_warm();
    cleanup_free char *filter = cp_engine_escape("{\"label\":[\"conch.work=1\"]}");
    cleanup_free char *path = xasprintf("/volumes?filters=%s", filter);
    cleanup_json json_object *reply = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &reply, &err) < 0)
        return;
    json_object *vols = NULL;
    if (!json_object_object_get_ex(reply, "Volumes", &vols) ||
        !json_object_is_type(vols, json_type_array))
        return;
    for (size_t i = 0; i < json_object_array_length(vols); i++) {
        json_object *v = json_object_array_get_idx(vols, i);
        cleanup_free char *dir = backing_folder(v);
        if (folder_gone(dir) && cp_json_str(v, "Name") != NULL)
            remove_volume(e, cp_json_str(v, "Name"));
    }
}
