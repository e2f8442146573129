/* Preparing a container run: the engine that has the image, the user inside the box, the
 * protected places and their covers, the seal (sealed runs), and the spec of this run's box
 * and of the next warm one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/engine/engine.h"
#include "places/container/place-container-int.h"
#include "places/container/allow/allow.h"
#include "places/container/run-report.h"
#include "places/container/warm/warm.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/report.h"
#include "src/base/signals.h"
#include "src/base/util.h"

void cp_container_state_free(struct cp_container_state *s)
{
    if (s == NULL)
        return;
    cp_engine_free(s->engine);
    cp_protected_dispose(&s->prot);
    cp_strv_free(s->labels);
    free(s->image);
    free(s->image_id);
    free(s->empty_file);
    free(s->warm_key);
    free(s->warm_pool);
    if (s->warm_box != NULL)
        json_object_put(s->warm_box);
    free(s->limits_missing);
    if (s->spec != NULL)
        json_object_put(s->spec);
    for (size_t i = 0; i < CP_WARM_POOL_MAX; i++) {
        if (s->warm_specs[i] != NULL)
            json_object_put(s->warm_specs[i]);
        free(s->warm_names[i]);
        cp_strv_free(s->warm_envs[i]);
    }
    free(s->name);
    cp_seal_dispose(&s->seal);
    free(s->layer_volume);
    cp_git_outside_dispose(&s->git);
    cp_cache_dispose(&s->cache);
    cp_held_run_dispose(&s->layer);
    free(s);
}

static void cleanup_statep(struct cp_container_state **s)
{
    cp_container_state_free(*s);
}

/* The host file laid read-only over each protected file: empty, and ours. */
static int empty_file(char **out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (cp_workplaces_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/empty", dir);
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
        unlink(path);
        cleanup_close int fd =
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
        if (fd < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", path);
    }
    *out = steal_pointer(&path);
    return 0;
}

bool cp_container_interrupted(cp_error_t *err)
{
    if (cp_signals_caught() == 0)
        return false;
    if (*err == NULL)
        cp_error_make(err, CP_ERR_INTERRUPTED, 0, "interrupted");
    return true;
}

static const char *engine_wanted(const struct cp_run_request *req)
{
    if (req->engine != NULL)
        return req->engine;
    const char *saved = req->config ? cp_config_get(req->config, "engine") : NULL;
    return saved ? saved : "auto";
}

/* A sealed box joins its folder's network holder where there is one (sidecar-hold.c), else
 * the folder's internal network. The caller frees it. */
static char *box_network(const struct cp_container_state *s, const struct cp_run_request *req)
{
    if (!req->sealed)
        return NULL;
    if (s->seal.sidecar.join != NULL)
        return xstrdup(s->seal.sidecar.join);
    return xstrdup(s->seal.sidecar.name);
}

static void build_spec(struct cp_container_state *s, const struct cp_run_request *req)
{
    cleanup_free char *network = box_network(s, req);
    cleanup_free char *git_layer =
        s->gated && s->git.dir != NULL ? cp_layer_git_volume(s->name) : NULL;
    struct cp_box_spec spec = {
        .image = s->image,
        .argv = req->argv,
        .workdir = req->workdir,
        .uid = s->uid,
        .gid = s->gid,
        .userns = s->userns,
        .sealed = req->sealed,
        .tmpfs_copies_up = s->engine->quirks.tmpfs_copies_up,
        .interactive = req->interactive,
        .gits = s->prot.gits,
        .protected_dirs = s->prot.dirs,
        .protected_files = s->prot.files,
        .empty_file = s->empty_file,
        .settings = s->prot.settings,
        .copies = s->prot.copies,
        .network = network,
        .no_dns = req->sealed ? s->seal.sidecar.ip : NULL,
        .env = req->sealed ? s->seal.env : NULL,
        .cpus = cp_sealed_cpus(),
        .labels = s->labels,
        .layer = s->gated ? s->layer_volume : NULL,
        .git_dir = s->git.dir,
        .git_layer = git_layer,
        .ca_bundle = req->sealed ? s->seal.ca_bundle : NULL,
        .ca_paths = req->sealed ? s->seal.ca_paths : NULL,
        .cache = s->cache.volume,
    };
    cp_debug("network %s", spec.network != NULL ? spec.network : "(the engine's default)");
    s->spec = cp_box_spec_json(&spec);
    /* A warm box serves only while its sidecar is the one it was made to use. */
    cleanup_free char *made_from =
        xasprintf("%s %s%s", s->image_id, req->sealed ? s->seal.sidecar.id : "unsealed",
                  s->seal.named_sign_ins ? " named-sign-ins" : "");
    s->warm_key = cp_warm_key(&spec, made_from);
    s->warm_pool = cp_warm_pool_name(s->engine->socket, s->warm_key);
    /* Keyless copies are made per box and removed with this run, and a named sign-in's
     * placeholder serves this run alone: none is left for a warm box. */
    for (size_t i = 0; i < CP_WARM_POOL_MAX && s->prot.copies == NULL && !s->seal.named_sign_ins;
         i++) {
        spec.env = s->warm_envs[i];
        cleanup_free char *warm_layer = s->gated ? cp_layer_volume(s->warm_names[i]) : NULL;
        cleanup_free char *warm_git =
            s->gated && s->git.dir != NULL ? cp_layer_git_volume(s->warm_names[i]) : NULL;
        spec.layer = warm_layer;
        spec.git_layer = warm_git;
        s->warm_specs[i] = cp_warm_spec(&spec, s->warm_key);
    }
}

/* The next warm boxes' names are chosen now: a sealed box's proxy credential names it. */
static int warm_names(struct cp_container_state *s, const struct cp_run_request *req,
                      cp_error_t *err)
{
    for (size_t i = 0; i < CP_WARM_POOL_MAX; i++) {
        s->warm_names[i] = cp_warm_name();
        if (req->sealed &&
            cp_sidecar_box_env(&s->seal.sidecar, s->warm_names[i], &s->warm_envs[i], err) < 0)
            return cp_error_code(err);
    }
    return 0;
}

/* The person's uid inside the box. A rootless engine maps its root to the person: rootless
 * Podman keeps the id with keep-id; rootless Docker has only root to offer for it. */
static int choose_user(struct cp_container_state *s, cp_error_t *err)
{
    s->uid = (unsigned)getuid();
    s->gid = (unsigned)getgid();
    bool rootless = false;
    if (geteuid() == 0 || cp_engine_rootless(s->engine, &rootless, err) < 0 || !rootless)
        return cp_error_code(err);
    if (s->engine->quirks.rootless_keep_id)
        s->userns = "keep-id";
    else
        s->uid = s->gid = 0;
    return 0;
}

/* The box's HOME gets the person's registry settings without their keys: the sidecar adds
 * the sign-ins, so a sealed install reaches the person's own registry. */
static int home_copies(struct cp_container_state *s, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_home_dir(&home, err) < 0)
        return cp_error_code(err);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    return cp_protect_home_copies(&s->prot, s->name, home, xdg && xdg[0] == '/' ? xdg : NULL, err);
}

/* A sealed box's package caches, unless turned off. One that cannot be had costs this run its
 * caches, not the run. */
static void caches(struct cp_container_state *s, const struct cp_run_request *req)
{
    if (!req->sealed || !cp_config_caches_on(req->config))
        return;
    cleanup_error cp_error_t err = NULL;
    if (cp_cache_prepare(s->engine, req->workdir, &s->cache, &err) < 0)
        cp_say("%s; this run goes without them (conch-place config set container.caches off "
               "stops trying)",
               err->msg);
}

/* A folder whose git folder is elsewhere (a linked worktree's .git file names one in the main
 * repository, a submodule's its superproject's .git/modules/NAME): the box sees that folder at
 * its own path too, through a layer of its own when sealed (mirror/git/git-outside.h). One that
 * cannot be followed (a .git link, a worktree that names another folder) is said once here:
 * git in the box then says it is not a git repository. */
static void git_outside(struct cp_container_state *s, const char *workdir)
{
    cleanup_free char *why = NULL;
    int r = cp_git_outside_find(workdir, &s->git, &why);
    if (r > 0)
        cp_debug("git folder %s%s%s outside the folder", s->git.dir,
                 s->git.worktree ? ", worktree " : "", s->git.worktree ? s->git.worktree : "");
    if (r < 0)
        cp_say("this folder's git folder cannot be followed (%s): git in the box says it is not "
               "a git repository, and only the folder's files come back. Run git here, on this "
               "computer, or the command from the folder that holds the git folder",
               why);
}

int cp_container_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err)
{
    cp_debug("preparing");
    /* From here a signal is a flag that every wait looks at, never a death that leaves a box. */
    cp_signals_install();
    struct cp_container_state *s = xcalloc(1, sizeof(*s));
    __attribute__((cleanup(cleanup_statep))) struct cp_container_state *hold = s;
    const char *saved = req->config ? cp_config_get(req->config, "image") : NULL;
    if (cp_image_engine(engine_wanted(req), req->image, saved, &s->engine, &s->image, &s->image_id,
                        err) < 0)
        return cp_error_code(err);
    cp_engine_set_patience(s->engine, SIGNAL_GRACE_MS, 0);
    if (choose_user(s, err) < 0)
        return cp_error_code(err);
    cp_container_report_engine(s->engine, s->image, s->image_id, req->sealed);
    cleanup_error cp_error_t npm_err = NULL; /* not known: left off, and `hosts` says why */
    if (req->sealed && cp_npm_default_learn(s->engine, s->image_id, &npm_err) < 0)
        cp_debug("%s", npm_err->msg);
    char **owned = NULL;
    const char *const *patterns = cp_protect_patterns(req->config, &owned);
    int r = cp_protect_scan(req->workdir, patterns, &s->prot, err);
    cp_strv_free(owned);
    if (r < 0 || empty_file(&s->empty_file, err) < 0)
        return cp_error_code(err);
    git_outside(s, req->workdir);
    cp_debug("image %s, %zu protected places", s->image,
             cp_strv_len(s->prot.dirs) + cp_strv_len(s->prot.files));
    s->labels = cp_box_owner_labels();
    s->name = cp_box_name();
    s->gated = req->sealed;
    s->limits_may_miss = cp_config_limits_may_miss(req->config);
    s->req_workdir = req->workdir;
    s->req_argv = req->argv;
    s->layer_volume = cp_layer_volume(s->name);
    if (s->gated)
        cp_held_recover(req->workdir, req->config);
    if (cp_protect_make_copies(&s->prot, s->name, err) < 0 ||
        (req->sealed && home_copies(s, err) < 0))
        return cp_error_code(err);
    if (req->sealed && cp_seal_prepare(s->engine, req->workdir, req->config, s->name, s->image_id,
                                       &s->seal, err) < 0)
        return cp_error_code(err);
    if (req->sealed)
        cp_debug("sidecar %s at %s", s->seal.sidecar.name, s->seal.sidecar.ip);
    caches(s, req);
    cp_run_report_stage("seal");
    if (warm_names(s, req, err) < 0)
        return cp_error_code(err);
    build_spec(s, req);
    if (cp_container_interrupted(err))
        return cp_error_code(err);
    *state_out = steal_pointer(&hold);
    return 0;
}
