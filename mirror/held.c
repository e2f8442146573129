/* The runs' layer folders and their states: made, landed (or finished after a cut), held,
 * discarded, cleaned. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mirror/held.h"
#include "src/base/digest.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/protected.h"
#include "src/base/util.h"

#define RUN_JSON_MAX (64 * 1024)

void cp_held_run_dispose(struct cp_held_run *r)
{
    free(r->id);
    free(r->dir);
    free(r->workdir);
    free(r->state);
    free(r->command);
    free(r->git_dir);
    free(r->git_worktree);
    free(r->git_owner);
    *r = (struct cp_held_run){0};
}

static int layers_dir(char **out, cp_error_t *err)
{
    cleanup_free char *wp = NULL;
    if (cp_workplaces_dir(&wp, err) < 0)
        return cp_error_code(err);
    char *dir = xasprintf("%s/layers", wp);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        int code = cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
        free(dir);
        return code;
    }
    *out = dir;
    return 0;
}

static char *command_text(char *const *argv)
{
    char *s = xstrdup("");
    for (size_t i = 0; argv != NULL && argv[i] != NULL && strlen(s) < 200; i++) {
        char *was = s;
        s = xasprintf("%s%s%s", was, i ? " " : "", argv[i]);
        free(was);
    }
    return s;
}

static int write_json(const struct cp_held_run *r, cp_error_t *err)
{
    cleanup_json json_object *o = json_object_new_object();
    json_object_object_add(o, "workdir", json_object_new_string(r->workdir));
    json_object_object_add(o, "state", json_object_new_string(r->state));
    json_object_object_add(o, "command", json_object_new_string(r->command ? r->command : ""));
    json_object_object_add(o, "since_ns", json_object_new_int64(r->since_ns));
    json_object_object_add(o, "made", json_object_new_int64(r->made));
    json_object_object_add(o, "pid", json_object_new_int64(r->pid));
    if (r->git_dir != NULL) {
        json_object_object_add(o, "git_dir", json_object_new_string(r->git_dir));
        json_object_object_add(o, "git_owner", json_object_new_string(r->git_owner));
        if (r->git_worktree != NULL)
            json_object_object_add(o, "git_worktree", json_object_new_string(r->git_worktree));
    }
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    /* Renamed into place, not synced: after a crash of the computer a state may be older, and
     * every older state is the safer one (a run still "running" is held, not landed). */
    cleanup_free char *path = xasprintf("%s/run.json", r->dir);
    cleanup_free char *tmp = xasprintf("%s/run.json.%ld", r->dir, (long)getpid());
    cleanup_close int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || cp_write_all(fd, text, strlen(text)) < 0 || rename(tmp, path) < 0) {
        int code = cp_error_make(err, CP_ERR_FAILED, errno, "cannot write %s", path);
        unlink(tmp);
        return code;
    }
    return 0;
}

/* The upper folder is the box's view of the work folder's own top (or of the git folder's):
 * same mode, same owner. prefix: "" for the work folder's layer, "git-" for the git folder's. */
static int make_upper(const char *dir, const char *prefix, const char *workdir, cp_error_t *err)
{
    struct stat st;
    if (stat(workdir, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot stat %s", workdir);
    cleanup_free char *up = xasprintf("%s/%sup", dir, prefix);
    cleanup_free char *wk = xasprintf("%s/%swk", dir, prefix);
    cleanup_free char *lower = xasprintf("%s/%slower", dir, prefix);
    if (mkdir(up, 0700) < 0 || mkdir(wk, 0700) < 0 || chmod(up, st.st_mode & 07777) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make the layer in %s", dir);
    if (geteuid() == 0 && chown(up, st.st_uid, st.st_gid) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot give %s the folder's owner", up);
    /* The overlay's lower is named through this link: the folder's own path may hold the ','
     * and ':' that mount options cannot. */
    if (symlink(workdir, lower) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot link %s", lower);
    return 0;
}

int cp_held_make(const char *workdir, const char *id, char *const *argv,
                 const struct cp_git_outside *git, struct cp_held_run *out, cp_error_t *err)
{
    cleanup_free char *layers = NULL;
    if (layers_dir(&layers, err) < 0)
        return cp_error_code(err);
    struct cp_held_run r = {.id = xstrdup(id),
                            .dir = xasprintf("%s/%s", layers, id),
                            .workdir = xstrdup(workdir),
                            .state = xstrdup("running"),
                            .command = command_text(argv),
                            .made = (int64_t)time(NULL),
                            .pid = (long)getpid()};
    if (git != NULL && git->dir != NULL) {
        r.git_dir = xstrdup(git->dir);
        r.git_owner = xstrdup(git->owner);
        r.git_worktree = git->worktree ? xstrdup(git->worktree) : NULL;
    }
    if (mkdir(r.dir, 0700) < 0) {
        int code = cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", r.dir);
        cp_held_run_dispose(&r);
        return code;
    }
    if (make_upper(r.dir, "", workdir, err) < 0 ||
        (r.git_dir != NULL && make_upper(r.dir, "git-", r.git_dir, err) < 0) ||
        write_json(&r, err) < 0) {
        cleanup_error cp_error_t derr = NULL;
        cp_held_discard(&r, &derr);
        cp_held_run_dispose(&r);
        return cp_error_code(err);
    }
    *out = r;
    return 0;
}

int cp_held_mount_options(const struct cp_held_run *r, bool git, char **out, cp_error_t *err)
{
    if (strpbrk(r->dir, ",:\\ \t\n") != NULL) {
        cp_error_make(err, CP_ERR_FAILED, 0,
                      "the layer's folder %s holds a ',', ':', '\\' or a space, which an "
                      "overlay's options cannot carry",
                      r->dir);
        cp_error_hint(err, "Set CONCH_HOME to a folder whose path has none of them.");
        return CP_ERR_FAILED;
    }
    /* userxattr: the overlay's marks (opaque folders) are user.* attributes the person who owns
     * the layer can read; it needs redirect_dir and metacopy off, which the landing wants too
     * (a moved folder or a metadata-only copy would hide its data in the lower folder). */
    const char *p = git ? "git-" : "";
    *out = xasprintf("lowerdir=%s/%slower,upperdir=%s/%sup,workdir=%s/%swk,userxattr", r->dir, p,
                     r->dir, p, r->dir, p);
    return 0;
}

int cp_held_set_state(struct cp_held_run *r, const char *state, cp_error_t *err)
{
    free(r->state);
    r->state = xstrdup(state);
    /* Who runs it or lands it now: while it lives, no other run takes the landing over. */
    if (strcmp(state, "running") == 0 || strcmp(state, "landing") == 0)
        r->pid = (long)getpid();
    return write_json(r, err);
}

static int load(const char *layers, const char *id, struct cp_held_run *out)
{
    cleanup_free char *dir = xasprintf("%s/%s", layers, id);
    cleanup_free char *path = xasprintf("%s/run.json", dir);
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_read_file(path, RUN_JSON_MAX, &text, &len, &err) < 0)
        return -1;
    cleanup_json json_object *o = NULL;
    if (cp_json_parse(text, len, path, &o, &err) < 0)
        return -1;
    const char *workdir = cp_json_str(o, "workdir"), *state = cp_json_str(o, "state");
    if (workdir == NULL || state == NULL)
        return -1;
    const char *command = cp_json_str(o, "command"), *git_dir = cp_json_str(o, "git_dir"),
               *git_owner = cp_json_str(o, "git_owner"), *wt = cp_json_str(o, "git_worktree");
    *out = (struct cp_held_run){.id = xstrdup(id),
                                .git_dir = git_dir && git_owner ? xstrdup(git_dir) : NULL,
                                .git_owner = git_dir && git_owner ? xstrdup(git_owner) : NULL,
                                .git_worktree = git_dir && git_owner && wt ? xstrdup(wt) : NULL,
                                .dir = steal_pointer(&dir),
                                .workdir = xstrdup(workdir),
                                .state = xstrdup(state),
                                .command = xstrdup(command ? command : ""),
                                .since_ns = cp_json_int(o, "since_ns", 0),
                                .made = cp_json_int(o, "made", 0),
                                .pid = (long)cp_json_int(o, "pid", 0)};
    return 0;
}

int cp_held_load(const char *id, struct cp_held_run *out, cp_error_t *err)
{
    cleanup_free char *layers = NULL;
    if (layers_dir(&layers, err) < 0)
        return cp_error_code(err);
    if (strchr(id, '/') != NULL || id[0] == '.' || load(layers, id, out) < 0)
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "no layer for box %s", id);
    return 0;
}

static int by_made(const void *a, const void *b)
{
    const struct cp_held_run *x = a, *y = b;
    return x->made != y->made ? (x->made < y->made ? -1 : 1) : strcmp(x->id, y->id);
}

int cp_held_list(const char *workdir, struct cp_held_run **out, size_t *n_out, cp_error_t *err)
{
    cleanup_free char *layers = NULL;
    *out = NULL;
    *n_out = 0;
    if (layers_dir(&layers, err) < 0)
        return cp_error_code(err);
    __attribute__((cleanup(cp_cleanup_closedirp))) DIR *d = opendir(layers);
    if (d == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read %s", layers);
    size_t n = 0;
    struct cp_held_run *v = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        struct cp_held_run r;
        if (e->d_name[0] == '.' || load(layers, e->d_name, &r) < 0)
            continue;
        if (workdir != NULL && strcmp(r.workdir, workdir) != 0) {
            cp_held_run_dispose(&r);
            continue;
        }
        v = xrealloc(v, (n + 1) * sizeof(*v));
        v[n++] = r;
    }
    if (n > 1)
        qsort(v, n, sizeof(*v), by_made);
    *out = v;
    *n_out = n;
    return 0;
}

void cp_held_list_free(struct cp_held_run *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cp_held_run_dispose(&v[i]);
    free(v);
}

/* One landing at a time per folder: two runs' gates must not judge the same file at once. */
static int folder_lock(const char *workdir, cp_error_t *err)
{
    cleanup_free char *layers = NULL;
    if (layers_dir(&layers, err) < 0)
        return cp_error_code(err);
    cleanup_free char *key = cp_folder_key(workdir);
    cleanup_free char *path = xasprintf("%s/.land-%s.lock", layers, key);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    while (flock(fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            close(fd);
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot lock %s", path);
        }
    }
    return fd;
}

struct gate {
    int rootfd, upperfd;
    char **protected_owned;
    char **named;
    struct cp_rules rules;
    struct cp_layer_git git; /* with a git folder outside (its fds -1 without) */
};

static void gate_dispose(struct gate *g)
{
    cp_cleanup_closep(&g->rootfd);
    cp_cleanup_closep(&g->upperfd);
    cp_cleanup_closep(&g->git.herefd);
    cp_cleanup_closep(&g->git.upperfd);
    cp_strv_free(g->protected_owned);
    cp_strv_free(g->named);
}

static int gate_open_git(const struct cp_held_run *r, struct gate *g, cp_error_t *err);

static int gate_open(const struct cp_held_run *r, const struct cp_config *cfg, struct gate *g,
                     cp_error_t *err)
{
    *g = (struct gate){.rootfd = -1, .upperfd = -1, .git = {.herefd = -1, .upperfd = -1}};
    g->rules.protected = cp_protected_in_force(cfg, &g->protected_owned);
    g->named = cp_host_run_named(r->workdir);
    g->rules.named = (const char *const *)g->named;
    g->rules.deps_land = true;
    g->rootfd = open(r->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g->rootfd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the work folder %s",
                             r->workdir);
    cleanup_free char *up = xasprintf("%s/up", r->dir);
    g->upperfd = open(up, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (g->upperfd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the layer %s", up);
    return r->git_dir != NULL ? gate_open_git(r, g, err) : 0;
}

/* The git folder outside, here and in its layer. */
static int gate_open_git(const struct cp_held_run *r, struct gate *g, cp_error_t *err)
{
    g->git.where = r->git_dir;
    g->git.worktree = r->git_worktree;
    g->git.herefd = open(r->git_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g->git.herefd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the git folder %s",
                             r->git_dir);
    cleanup_free char *up = xasprintf("%s/git-up", r->dir);
    g->git.upperfd = open(up, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (g->git.upperfd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the layer %s", up);
    return 0;
}

static bool layer_empty(int upperfd)
{
    __attribute__((cleanup(cp_cleanup_closedirp))) DIR *d = fdopendir(dup(upperfd));
    if (d == NULL)
        return false;
    /* The dup shares the folder's read position: from the start, and back to it after. */
    rewinddir(d);
    bool empty = true;
    for (struct dirent *e; empty && (e = readdir(d)) != NULL;)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    rewinddir(d);
    return empty;
}

/* The gate's words are conch-place's own: no "mirror: " before them. */
static void say_line(void *ctx, const char *line)
{
    (void)ctx;
    cp_say("%s", line);
}

int cp_held_land(struct cp_held_run *r, const struct cp_config *cfg, const char *how_to_take,
                 bool discard, cp_error_t *err)
{
    cleanup_close int lock = folder_lock(r->workdir, err);
    if (lock < 0)
        return cp_error_code(err);
    /* A git folder outside is the folder's that holds it too: that one's runs land there under
     * its lock. Always taken second, and never by that folder's own runs: no two wait on each
     * other. */
    cleanup_close int git_lock = r->git_dir != NULL ? folder_lock(r->git_owner, err) : -1;
    if (r->git_dir != NULL && git_lock < 0)
        return cp_error_code(err);
    struct gate g __attribute__((cleanup(gate_dispose)));
    if (gate_open(r, cfg, &g, err) < 0)
        return cp_error_code(err);
    /* A command that wrote nothing (most `true`s, tests that only read) has nothing to land. */
    if (layer_empty(g.upperfd) && (g.git.upperfd < 0 || layer_empty(g.git.upperfd)))
        return cp_held_set_state(r, "landed", err) < 0 ? cp_error_code(err)
               : discard                               ? cp_held_discard(r, err)
                                                       : 0;
    if (cp_held_set_state(r, "landing", err) < 0)
        return cp_error_code(err);
    struct cp_layer_opts o = {.rootfd = g.rootfd,
                              .upperfd = g.upperfd,
                              .since_ns = r->since_ns,
                              .rules = &g.rules,
                              .git = g.git.herefd >= 0 ? &g.git : NULL};
    struct cp_mirror_report rep __attribute__((cleanup(cp_report_dispose))) = {.say = say_line};
    if (cp_layer_land(&o, &rep, err) < 0)
        return cp_error_code(err);
    cp_report_host_run_said(&rep, how_to_take);
    if (cp_held_set_state(r, "landed", err) < 0)
        return cp_error_code(err);
    return discard ? cp_held_discard(r, err) : 0;
}

int cp_held_judge(const struct cp_held_run *r, const struct cp_config *cfg, cp_layer_seen_fn seen,
                  void *ctx, cp_error_t *err)
{
    struct gate g __attribute__((cleanup(gate_dispose)));
    if (gate_open(r, cfg, &g, err) < 0)
        return cp_error_code(err);
    struct cp_layer_opts o = {.rootfd = g.rootfd,
                              .upperfd = g.upperfd,
                              .since_ns = r->since_ns,
                              .rules = &g.rules,
                              .dry_run = true,
                              .seen = seen,
                              .seen_ctx = ctx,
                              .git = g.git.herefd >= 0 ? &g.git : NULL};
    return cp_layer_land(&o, NULL, err);
}

static int pick_named(struct cp_held_run *v, size_t n, const char *id, struct cp_held_run *out,
                      cp_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].id, id) != 0)
            continue;
        if (strcmp(v[i].state, "held") != 0 && strcmp(v[i].state, "landing") != 0)
            return cp_error_make(err, CP_ERR_FAILED, 0, "run %s is %s, not held", id, v[i].state);
        *out = v[i];
        v[i] = (struct cp_held_run){0};
        return 0;
    }
    cp_error_make(err, CP_ERR_NOT_FOUND, 0, "no held run %s", id);
    cp_error_hint(err, "'conch-place changes' lists the held runs of a folder.");
    return CP_ERR_NOT_FOUND;
}

static int pick_only(struct cp_held_run *v, size_t n, const char *workdir, struct cp_held_run *out,
                     cp_error_t *err)
{
    size_t found = n, count = 0;
    cleanup_free char *names = xstrdup("");
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].state, "held") != 0 || strcmp(v[i].workdir, workdir) != 0)
            continue;
        found = i;
        char *was = names;
        names = xasprintf("%s%s%s", was, count++ ? ", " : "", v[i].id);
        free(was);
    }
    if (count == 0) {
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "%s has no held run", workdir);
        cp_error_hint(err, "'conch-place run --hold' keeps a run's changes for review.");
        return CP_ERR_NOT_FOUND;
    }
    if (count > 1) {
        cp_error_make(err, CP_ERR_USAGE, 0, "%s has %zu held runs: %s", workdir, count, names);
        cp_error_hint(err, "Name one (the oldest first is the order they were made).");
        return CP_ERR_USAGE;
    }
    *out = v[found];
    v[found] = (struct cp_held_run){0};
    return 0;
}

int cp_held_pick_in(const char *dir, const char *id, struct cp_held_run *out, cp_error_t *err)
{
    cleanup_free char *workdir = realpath(dir ? dir : ".", NULL);
    if (workdir == NULL && id == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used",
                             dir ? dir : ".");
    return cp_held_pick(workdir, id, out, err);
}

int cp_held_pick(const char *workdir, const char *id, struct cp_held_run *out, cp_error_t *err)
{
    struct cp_held_run *v = NULL;
    size_t n = 0;
    if (cp_held_list(NULL, &v, &n, err) < 0)
        return cp_error_code(err);
    int r = id != NULL ? pick_named(v, n, id, out, err) : pick_only(v, n, workdir, out, err);
    cp_held_list_free(v, n);
    return r;
}

/* Everything under fd, depth first, nothing followed. */
static void remove_under(int fd)
{
    __attribute__((cleanup(cp_cleanup_closedirp))) DIR *d = fdopendir(dup(fd));
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(fd, e->d_name, 0) == 0 || (errno != EISDIR && errno != EPERM))
            continue;
        int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        /* The overlay's own work folder is made mode 000. */
        if (sub < 0 && fchmodat(fd, e->d_name, 0700, 0) == 0)
            sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
            remove_under(sub);
            close(sub);
        }
        unlinkat(fd, e->d_name, AT_REMOVEDIR);
    }
}

int cp_held_discard(struct cp_held_run *r, cp_error_t *err)
{
    cleanup_close int fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0
                               : cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", r->dir);
    remove_under(fd);
    if (rmdir(r->dir) < 0 && errno != ENOENT)
        return cp_error_make(err, CP_ERR_FAILED, errno,
                             "cannot remove %s (something in it is not yours)", r->dir);
    return 0;
}

static bool owner_gone(const struct cp_held_run *r)
{
    return r->pid <= 0 || (kill((pid_t)r->pid, 0) < 0 && errno == ESRCH);
}

void cp_held_recover(const char *workdir, const struct cp_config *cfg)
{
    struct cp_held_run *v = NULL;
    size_t n = 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_held_list(workdir, &v, &n, &err) < 0) {
        cp_debug("%s", err->msg);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        struct cp_held_run *r = &v[i];
        if (strcmp(r->state, "landing") == 0 && owner_gone(r)) {
            cp_say("finishing the landing of run %s, cut short", r->id);
            cleanup_error cp_error_t lerr = NULL;
            if (cp_held_land(r, cfg, "to take them, run again with --unsealed", true, &lerr) < 0)
                cp_say("%s", lerr->msg);
        } else if (strcmp(r->state, "landed") == 0 && owner_gone(r)) {
            cleanup_error cp_error_t derr = NULL;
            cp_held_discard(r, &derr);
        } else if (strcmp(r->state, "running") == 0 && owner_gone(r)) {
            cleanup_error cp_error_t herr = NULL;
            if (cp_held_set_state(r, "held", &herr) == 0)
                cp_say("run %s ended with its conch-place before its changes landed: they are "
                       "held ('conch-place changes' lists them, 'conch-place land' lands them)",
                       r->id);
        }
    }
    cp_held_list_free(v, n);
}

int cp_held_clean(int64_t max_age, int *removed, cp_error_t *err)
{
    struct cp_held_run *v = NULL;
    size_t n = 0;
    if (cp_held_list(NULL, &v, &n, err) < 0)
        return cp_error_code(err);
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++) {
        struct cp_held_run *r = &v[i];
        /* A landed run's rest (refusals) and an unclaimed warm box's empty layer are no one's
         * once their owner is gone or their box's life is long over. */
        bool stale = (strcmp(r->state, "held") == 0 && now - r->made > max_age) ||
                     (strcmp(r->state, "landed") == 0 && owner_gone(r)) ||
                     (strcmp(r->state, "warm") == 0 && now - r->made > 3600);
        cleanup_error cp_error_t derr = NULL;
        if (stale && cp_held_discard(r, &derr) == 0)
            (*removed)++;
    }
    cp_held_list_free(v, n);
    return 0;
}
