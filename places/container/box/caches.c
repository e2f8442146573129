/* A folder's package caches as one engine volume bound from a folder of ours (caches.h).
 *
 * Bound, not the engine's own storage: a fresh `local` volume's root belongs to the engine's
 * root, so a box running as the person could not write it on rootful Docker; a folder we make
 * is the person's on every engine (rootless Podman's keep-id and rootless Docker's root map to
 * them). One volume with the tools pointed into it by their variables, not a volume per cache
 * at each tool's own path under HOME: the engines make the missing parents of a mount point
 * (~/.cargo for ~/.cargo/registry) as root, which cargo, go and bun then cannot write in; and
 * Docker 20.10 has no volume subpaths. Measured on this machine, 8 boxes of `true` each, fresh:
 * Docker 330/308/360 ms a box with 0/1/6 such volumes, Podman 464/441/454 ms (a second round
 * 411/460/388 and 462/468/639): the mounts' cost is below the machine's noise either way. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box/caches.h"
#include "places/container/box/create-body.h"
#include "src/base/digest.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define PREFIX     "conch-cache-"
#define HOME_LABEL "conch.cache.home"

/* ~/.cache is XDG's (pip, yarn 1, pnpm's metadata, node-gyp, go's build cache). pnpm's store
 * is named by pnpm 11's own variable: npm warns on every command about an npm_config_store_dir
 * it does not know, which pnpm 10 read, and PNPM_HOME alone puts a store that cannot hard-link
 * into the folder at the root of the folder's file system, the work folder itself. Cargo keeps
 * nothing of the person's under CARGO_HOME in a fresh box (HOME is the box's own), so moving
 * it moves only what the box fetched, and its credential files are covered. */
const char *const cp_cache_env[] = {
    "npm_config_cache=" CP_CACHE_TARGET "/npm",
    "pnpm_config_store_dir=" CP_CACHE_TARGET "/pnpm-store",
    "XDG_CACHE_HOME=" CP_CACHE_TARGET "/xdg",
    "CARGO_HOME=" CP_CACHE_TARGET "/cargo",
    "GOMODCACHE=" CP_CACHE_TARGET "/go/mod",
    "BUN_INSTALL_CACHE_DIR=" CP_CACHE_TARGET "/bun",
    NULL,
};

const char *const cp_cache_covers[] = {
    CP_CACHE_TARGET "/cargo/credentials.toml",
    CP_CACHE_TARGET "/cargo/credentials",
    NULL,
};

/* The engine's socket is part of the name: two engines of one kind (rootful and rootless
 * Docker) never bind one folder, so one's sweep never removes what the other's box uses. */
static char *cache_hash(const char *socket, const char *home_mark, const char *folder)
{
    uint64_t h = cp_fnv_field(CP_FNV_BASIS, socket);
    h = cp_fnv_field(h, home_mark);
    h = cp_fnv_field(h, folder);
    return xasprintf("%016llx", (unsigned long long)h);
}

char *cp_cache_volume_name(const char *socket, const char *home_mark, const char *folder)
{
    cleanup_free char *hash = cache_hash(socket, home_mark, folder);
    return xasprintf(PREFIX "%s", hash);
}

bool cp_cache_stale(int64_t last_use, int64_t now)
{
    return now - last_use > CP_CACHE_MAX_IDLE;
}

static int caches_dir(char **out, cp_error_t *err)
{
    cleanup_free char *wp = NULL;
    if (cp_workplaces_dir(&wp, err) < 0)
        return cp_error_code(err);
    cleanup_free char *dir = xasprintf("%s/caches", wp);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    *out = steal_pointer(&dir);
    return 0;
}

/* A folder of ours, not a link someone left in its place. */
static int own_dir(const char *path, cp_error_t *err)
{
    struct stat st;
    if (mkdir(path, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", path);
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s is not a folder of yours", path);
    return 0;
}

/* An empty file at path (made if absent), its times now: a cover's mount point, or a mark. */
static int touch(const char *path, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || futimens(fd, NULL) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write %s", path);
    return 0;
}

/* The cover files' mount points exist before the box starts: the engine would make them, and
 * their folder, as root. */
static int make_tree(const char *dir, cp_error_t *err)
{
    if (own_dir(dir, err) < 0)
        return cp_error_code(err);
    for (size_t i = 0; cp_cache_covers[i] != NULL; i++) {
        const char *rel = cp_cache_covers[i] + strlen(CP_CACHE_TARGET);
        cleanup_free char *path = xasprintf("%s%s", dir, rel);
        cleanup_free char *parent = xstrdup(path);
        *strrchr(parent, '/') = '\0';
        if (own_dir(parent, err) < 0 || touch(path, err) < 0)
            return cp_error_code(err);
    }
    return 0;
}

/* Our folder bound (the local driver's bind), labelled with its work folder's key and home. */
static json_object *volume_body(const char *name, const char *dir, const char *folder,
                                const char *home_mark)
{
    cleanup_free char *key = cp_folder_key(folder);
    cleanup_free char *cache = xasprintf("conch.cache=%s", key);
    cleanup_free char *home = xasprintf("%s=%s", HOME_LABEL, home_mark);
    return cp_local_volume_body(name, "none", dir, "bind", (char *[]){cache, home, NULL});
}

/* The volume as it is on the engine must bind our folder; else it is made now. */
static int ensure_volume(struct cp_engine *e, const char *name, const char *dir, const char *folder,
                         const char *home_mark, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/volumes/%s", name);
    cleanup_json json_object *reply = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "GET", path, NULL, &status, &reply, err) < 0)
        return cp_error_code(err);
    if (status == 404) {
        cleanup_json json_object *body = volume_body(name, dir, folder, home_mark);
        if (cp_engine_call(e, "POST", "/volumes/create", body, NULL, err) < 0)
            return cp_error_wrap(err, "making the folder's cache volume");
        return 0;
    }
    json_object *opts = NULL;
    const char *device =
        json_object_object_get_ex(reply, "Options", &opts) ? cp_json_str(opts, "device") : NULL;
    if (status != 200 || device == NULL || strcmp(device, dir) != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the engine's volume %s is not the one made for this folder's "
                             "cache (status %ld)",
                             name, status);
    return 0;
}

int cp_cache_prepare(struct cp_engine *e, const char *folder, struct cp_cache *out, cp_error_t *err)
{
    cleanup_free char *home_mark = cp_home_mark();
    cleanup_free char *caches = NULL;
    if (home_mark == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "CONCH_HOME's workplaces folder is missing");
    if (caches_dir(&caches, err) < 0)
        return cp_error_code(err);
    cleanup_free char *hash = cache_hash(e->socket, home_mark, folder);
    cleanup_free char *dir = xasprintf("%s/%s", caches, hash);
    cleanup_free char *mark = xasprintf("%s/%s.used", caches, hash);
    cleanup_free char *name = xasprintf(PREFIX "%s", hash);
    size_t n = strlen(folder);
    if (strncmp(dir, folder, n) == 0 && dir[n] == '/')
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "the package caches would be kept in the work folder (%s is in it)",
                             caches);
    /* Marked first: a sweep between this and the box's start sees it fresh. */
    if (touch(mark, err) < 0 || make_tree(dir, err) < 0 ||
        ensure_volume(e, name, dir, folder, home_mark, err) < 0)
        return cp_error_wrap(err, "preparing the folder's package caches");
    out->volume = steal_pointer(&name);
    out->dir = steal_pointer(&dir);
    return 0;
}

void cp_cache_dispose(struct cp_cache *c)
{
    free(c->volume);
    free(c->dir);
    c->volume = c->dir = NULL;
}

/* Go's module cache is read-only by design: its folders are opened up before anything goes. */
static int open_up(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_D && (st->st_mode & 0700) != 0700)
        chmod(path, (st->st_mode & 07777) | 0700);
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    if (remove(path) < 0 && errno != ENOENT)
        cp_debug("cache: cannot remove %s: %s", path, strerror(errno));
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, open_up, 16, FTW_PHYS);
    nftw(dir, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

static int64_t last_use(const char *mark)
{
    struct stat st;
    return lstat(mark, &st) == 0 ? (int64_t)st.st_mtime : 0;
}

/* One volume of this home: gone with its folder and mark when unused long enough and no box
 * holds it (the engine answers 409 for one that a box, running or not, mounts). */
static bool sweep_one(struct cp_engine *e, const char *caches, const char *name, int64_t now)
{
    if (strncmp(name, PREFIX, strlen(PREFIX)) != 0 || strchr(name, '/') != NULL)
        return false;
    const char *hash = name + strlen(PREFIX);
    cleanup_free char *mark = xasprintf("%s/%s.used", caches, hash);
    if (!cp_cache_stale(last_use(mark), now))
        return false;
    cleanup_free char *path = xasprintf("/volumes/%s", name);
    long status = 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_call_status(e, "DELETE", path, NULL, &status, NULL, &err) < 0 ||
        (status != 204 && status != 404)) {
        cp_debug("cache %s kept: %s", name, err != NULL ? err->msg : "in use");
        return false;
    }
    cleanup_free char *dir = xasprintf("%s/%s", caches, hash);
    remove_tree(dir);
    unlink(mark);
    return true;
}

static json_object *home_volumes(struct cp_engine *e, const char *home_mark, cp_error_t *err)
{
    cleanup_free char *f = xasprintf("{\"label\":[\"" HOME_LABEL "=%s\"]}", home_mark);
    cleanup_free char *filter = cp_engine_escape(f);
    cleanup_free char *path = xasprintf("/volumes?filters=%s", filter);
    json_object *reply = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &reply, err) < 0)
        return NULL;
    return reply;
}

int cp_cache_sweep(struct cp_engine *e, int *removed, cp_error_t *err)
{
    *removed = 0;
    cleanup_free char *home_mark = cp_home_mark();
    cleanup_free char *caches = NULL;
    if (home_mark == NULL)
        return 0; /* no workplaces folder: no cache of this home anywhere */
    if (caches_dir(&caches, err) < 0)
        return cp_error_code(err);
    cleanup_json json_object *reply = home_volumes(e, home_mark, err);
    json_object *vols = NULL;
    if (reply == NULL)
        return cp_error_wrap(err, "listing the folders' cache volumes");
    if (!json_object_object_get_ex(reply, "Volumes", &vols) ||
        !json_object_is_type(vols, json_type_array))
        return 0; /* Docker answers null for none */
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < json_object_array_length(vols); i++) {
        json_object *v = json_object_array_get_idx(vols, i), *labels = NULL;
        const char *name = cp_json_str(v, "Name");
        /* The filter asked for this home's; a label read back says so again. */
        if (name == NULL || !json_object_object_get_ex(v, "Labels", &labels) ||
            cp_json_str(labels, HOME_LABEL) == NULL ||
            strcmp(cp_json_str(labels, HOME_LABEL), home_mark) != 0)
            continue;
        if (sweep_one(e, caches, name, now))
            (*removed)++;
    }
    return 0;
}
