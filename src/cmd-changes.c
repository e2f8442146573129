/* `changes [--workdir DIR] [--json] [--diff]`: the held runs of a folder and their files, each
 * judged by the gate as `land` would judge it now (added, changed, deleted, beside, refused). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mirror/mirror.h"
#include "src/command.h"
#include "src/base/json.h"
#include "src/base/settings/settings.h"
#include "src/base/spawn.h"
#include "src/base/util.h"

extern const struct cp_command cp_cmd_changes;

struct shown {
    const struct cp_held_run *run;
    json_object *files; /* --json: the run's files */
    bool diff;
};

/* A file held in memory, for diff to read as /dev/fd/N: a link's text, or a note. */
static int text_fd(const char *text)
{
    int fd = memfd_create("conch-diff", 0);
    if (fd >= 0 && (cp_write_all(fd, text, strlen(text)) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One side of a change, for diff: a regular file opened at path under root without following a
 * link on the way or at the end (O_NOFOLLOW, non-blocking: a fifo never waits), a link as its
 * text, anything else (a device, a fifo) as a note; never what a link leads to. The descriptor is
 * left open across exec for diff. -1: nothing there. */
static int side_fd(const char *root, const char *path)
{
    cleanup_close int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (rootfd < 0 || fstat(rootfd, &st) < 0)
        return -1;
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(rootfd, (uint64_t)st.st_dev, path, false, &dirfd, &base, &why) < 0 ||
        fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    if (S_ISLNK(st.st_mode)) {
        char t[4096];
        ssize_t n = readlinkat(dirfd, base, t, sizeof(t) - 1);
        if (n < 0)
            return -1;
        t[n] = '\0';
        cleanup_free char *shown = xasprintf("-> %s\n", t);
        return text_fd(shown);
    }
    if (!S_ISREG(st.st_mode))
        return text_fd("(not a plain file: not drawn)\n");
    int fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return text_fd("(not a plain file: not drawn)\n");
    }
    return fd;
}

/* diff(1) from diffutils draws the change: the file here against the layer's, each side opened
 * here by side_fd and handed over as /dev/fd/N, so diff reads what was checked, never a path of
 * its own choosing. */
static void show_diff(const struct cp_held_run *run, const char *what, const char *path)
{
    cleanup_free char *up = xasprintf("%s/up", run->dir);
    bool added = strcmp(what, "added") == 0, deleted = strcmp(what, "deleted") == 0;
    cleanup_close int a = added ? -1 : side_fd(run->workdir, path);
    cleanup_close int b = deleted ? -1 : side_fd(up, path);
    cleanup_free char *fa = a >= 0 ? xasprintf("/dev/fd/%d", a) : xstrdup("/dev/null");
    cleanup_free char *fb = b >= 0 ? xasprintf("/dev/fd/%d", b) : xstrdup("/dev/null");
    cleanup_free char *la = xasprintf("a/%s", path);
    cleanup_free char *lb = xasprintf("b/%s", path);
    char *argv[] = {"diff", "-u", "--label", la, "--label", lb, fa, fb, NULL};
    fflush(stdout);
    const struct cp_spawn_opts o = {.path_search = true}; /* no diff: nothing drawn */
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    if (cp_spawn(argv, &o, &c, &err) == 0)
        (void)cp_child_wait(&c, NULL, &err);
}

/* How long the git folder holding path is: 4 for the top .git's, up to the first part git
 * keeps for itself for a submodule's (".git/modules/NAME/refs/..."); 0 when in neither. */
static size_t git_folder_len(const char *path)
{
    if (strncmp(path, ".git/modules/", 13) != 0)
        return strncmp(path, ".git/", 5) == 0 ? 4 : 0;
    static const char *const parts[] = {"/refs/", "/objects/", "/logs/", "/index"};
    size_t len = 0;
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        const char *at = strstr(path + 13, parts[i]);
        if (at != NULL && (len == 0 || (size_t)(at - path) < len))
            len = (size_t)(at - path);
    }
    return len;
}

static void seen(void *ctx, const char *what, const char *path, const char *why)
{
    struct shown *s = ctx;
    if (s->files != NULL) {
        json_object *f = json_object_new_object();
        json_object_object_add(f, "path", json_object_new_string(path));
        json_object_object_add(f, "what", json_object_new_string(what));
        json_object_object_add(f, "why", why ? json_object_new_string(why) : NULL);
        json_object_array_add(s->files, f);
        return;
    }
    printf("  %-8s %s%s%s%s\n", what, path, why ? " (" : "", why ? why : "", why ? ")" : "");
    bool moved = strcmp(what, "added") == 0 || strcmp(what, "changed") == 0;
    bool drawn = moved || strcmp(what, "beside") == 0 || strcmp(what, "deleted") == 0;
    if (!s->diff || !drawn || why != NULL)
        return;
    /* A ref is drawn as the commits it brings; an object's or the index's bytes are not for
     * reading (the commits show what they hold). The same in a submodule's git folder. */
    size_t git = git_folder_len(path);
    const char *in = path + git;
    /* A git folder outside the work folder (a linked worktree's common one), named by its own
     * path: its refs drawn as commits, nothing else of it. */
    size_t out = s->run->git_dir != NULL ? strlen(s->run->git_dir) : 0;
    if (out > 0 && strncmp(path, s->run->git_dir, out) == 0 && path[out] == '/') {
        if (moved && strncmp(path + out, "/refs/", 6) == 0) {
            cleanup_free char *up = xasprintf("%s/git-up", s->run->dir);
            cp_git_show_commits(s->run->git_dir, up, "", path + out + 1);
        }
        return;
    }
    if (git > 0 && strncmp(in, "/refs/", 6) == 0 && moved) {
        cleanup_free char *up = xasprintf("%s/up", s->run->dir);
        cleanup_free char *folder = xasprintf("%.*s", (int)git, path);
        cp_git_show_commits(s->run->workdir, up, folder, in + 1);
    } else if (git == 0 || (strncmp(in, "/objects/", 9) != 0 && strcmp(in, "/index") != 0)) {
        show_diff(s->run, what, path);
    }
}

static json_object *run_json(const struct cp_held_run *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "run", json_object_new_string(r->id));
    json_object_object_add(o, "state", json_object_new_string(r->state));
    json_object_object_add(o, "workdir", json_object_new_string(r->workdir));
    json_object_object_add(o, "command", json_object_new_string(r->command));
    json_object_object_add(o, "made", json_object_new_int64(r->made));
    return o;
}

static void print_run(const struct cp_held_run *r)
{
    char when[32] = "";
    time_t t = (time_t)r->made;
    struct tm tm;
    if (localtime_r(&t, &tm) != NULL)
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
    printf("run %s  %s  %s  %s\n", r->id, r->state, when, r->command);
}

static bool listed(const struct cp_held_run *r)
{
    return strcmp(r->state, "held") == 0 || strcmp(r->state, "landing") == 0;
}

static int changes_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &cp_cmd_changes;
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    const char *dir = cp_arg(args, c, "workdir");
    cleanup_free char *workdir = realpath(dir ? dir : ".", NULL);
    if (workdir == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used",
                             dir ? dir : ".");
    struct cp_held_run *v = NULL;
    size_t n = 0;
    if (cp_held_list(workdir, &v, &n, err) < 0)
        return cp_error_code(err);
    bool json = cp_arg(args, c, "json") != NULL;
    cleanup_json json_object *doc = json_object_new_object();
    json_object *runs = json_object_new_array();
    json_object_object_add(doc, "runs", runs);
    int r = 0, shown_runs = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        if (!listed(&v[i]))
            continue;
        shown_runs++;
        struct shown s = {.run = &v[i], .diff = cp_arg(args, c, "diff") != NULL};
        if (json) {
            json_object *o = run_json(&v[i]);
            s.files = json_object_new_array();
            json_object_object_add(o, "files", s.files);
            json_object_array_add(runs, o);
        } else {
            print_run(&v[i]);
        }
        r = cp_held_judge(&v[i], &cfg, seen, &s, err);
    }
    cp_held_list_free(v, n);
    if (r < 0)
        return r;
    if (json)
        printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
    else if (shown_runs == 0)
        printf("%s: no held runs\n", workdir);
    return 0;
}

static const struct cp_option options[] = {
    {"workdir", 0, "DIR", "the work folder (default: the current directory)"},
    {"json", 0, NULL, "one JSON document: {\"runs\": [{run, state, command, files}...]}"},
    {"diff", 0, NULL,
     "each added, changed or deleted file's change, drawn by diff -u; a moved branch or tag as "
     "the commits it brings (git log --stat)"},
    {0},
};

const struct cp_command cp_cmd_changes = {
    .name = "changes",
    .synopsis = "[--workdir DIR] [--json] [--diff]",
    .summary = "the held runs of a folder (run --hold) and their files, as the gate judges them",
    .options = options,
    .handler = changes_handler,
    .failure_status = 1,
};
