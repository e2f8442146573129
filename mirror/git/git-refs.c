/* A git folder's refs through the gate: checked, not copied. Each names an object here; a tag
 * is new; a branch that moves not as a fast-forward, or is deleted, keeps its old value in its
 * reflog; packed-refs is merged entry by entry under the same rules; HEAD last, only as a
 * symbolic ref to refs/heads/ or a commit id. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mirror/git/git-landing-int.h"
#include "mirror/rules.h"
#include "mirror/walk.h"
#include "src/base/util.h"

/* A ref value: hex and one newline; NULL when it is not one. */
char *cp_gl_ref_value(char *text)
{
    if (text == NULL)
        return NULL;
    size_t n = strcspn(text, "\n");
    if ((text[n] == '\n' && text[n + 1] != '\0') || (n != 40 && n != 64))
        return NULL;
    text[n] = '\0';
    return cp_gl_is_hex(text, n) ? text : NULL;
}

/* This computer's value of the ref, loose or packed, into val (empty: none); its file's stat
 * in st (the loose file, else packed-refs). */
static void ref_here(struct gl *g, const char *name, char val[72], struct stat *st)
{
    val[0] = '\0';
    memset(st, 0, sizeof(*st));
    cleanup_free char *loose = cp_gl_read_here(g, name, st);
    if (loose != NULL) {
        const char *v = cp_gl_ref_value(loose);
        snprintf(val, 72, "%s", v ? v : "?");
        return;
    }
    memset(st, 0, sizeof(*st));
    cleanup_free char *packed = cp_gl_read_here(g, "packed-refs", st);
    size_t nl = strlen(name);
    for (char *line = packed, *next; line != NULL && *line; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *sp = strchr(line, ' ');
        if (line[0] != '#' && line[0] != '^' && sp != NULL && strncmp(sp + 1, name, nl) == 0 &&
            sp[1 + nl] == '\0' && (sp - line == 40 || sp - line == 64)) {
            snprintf(val, 72, "%.*s", (int)(sp - line), line);
            return;
        }
    }
}

static void add_reflog(struct gl *g, const char *name, const char *old, const char *new)
{
    cleanup_free char *rel = xasprintf("logs/%s", name);
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, rel, true, &dirfd, &base, &why) < 0)
        return;
    cleanup_close int fd =
        openat(dirfd, base, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    cleanup_free char *line =
        xasprintf("%s %s conch-place <conch-place@localhost> %lld +0000\tconch-place: a sealed "
                  "box moved it, not as a fast-forward (it was %s)\n",
                  old, new, (long long)time(NULL), old);
    (void)cp_write_all(fd, line, strlen(line));
}

static void note_ref(struct gl *g, const char *name, const char *old, const char *new,
                     const char *how)
{
    json_object *r = json_object_new_object();
    json_object_object_add(r, "ref", json_object_new_string(name));
    json_object_object_add(r, "old", old[0] ? json_object_new_string(old) : NULL);
    json_object_object_add(r, "new", json_object_new_string(new));
    json_object_object_add(r, "how", json_object_new_string(how));
    if (g->depth > 0)
        json_object_object_add(r, "git_dir", json_object_new_string(g->where));
    json_object_array_add(g->run->refs, r);
}

/* Writes name = val here as a loose ref (a packed one is overridden by it, as git does). */
static int write_ref(struct gl *g, const char *name, const char *val)
{
    cleanup_close int dirfd = -1;
    const char *base = NULL, *why = NULL;
    if (cp_walk_parent(g->hostfd, g->hostdev, name, true, &dirfd, &base, &why) < 0)
        return -1;
    char tmp[64];
    snprintf(tmp, sizeof(tmp), ".conch-git-%ld-%u", (long)getpid(), g->run->tmp_counter++);
    cleanup_close int fd =
        openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    cleanup_free char *line = xasprintf("%s\n", val);
    if (fd < 0 || cp_write_all(fd, line, strlen(line)) < 0 || fsync(fd) < 0 ||
        renameat(dirfd, tmp, dirfd, base) < 0) {
        if (fd >= 0)
            unlinkat(dirfd, tmp, 0);
        return -1;
    }
    return 0;
}

/* A submodule's ref is named with its git folder, and so is git's command to see its reflog. */
static void say_forced(struct gl *g, const char *name, const char *old, const char *new)
{
    add_reflog(g, name, old, new);
    cleanup_free char *s = cp_escape(name);
    cleanup_free char *w = cp_escape(g->where);
    cleanup_free char *in = g->depth > 0 ? xasprintf(" in %s", w) : xstrdup("");
    cleanup_free char *dir = g->depth > 0 ? xasprintf("--git-dir=%s ", w) : xstrdup("");
    cp_report(g->o->rep,
              "%s%s moved not as a fast-forward (from %.12s to %.12s): its old value is in "
              "its reflog (git %sreflog %s)",
              s, in, old, new, dir, s);
}

/* Whether the git folder here's HEAD at rel names the branch name. */
static bool head_names(struct gl *g, const char *rel, const char *name)
{
    struct stat st;
    cleanup_free char *head = cp_gl_read_here(g, rel, &st);
    size_t n = strlen(name);
    return head != NULL && strncmp(head, "ref: ", 5) == 0 && strncmp(head + 5, name, n) == 0 &&
           (head[5 + n] == '\n' || head[5 + n] == '\0');
}

/* A branch checked out in a worktree the box did not work in: the main one (when the box worked
 * in a linked worktree) or a linked one other than the box's. Moving it would leave that
 * worktree's files and index behind its HEAD, as a push to a checked-out branch would, which
 * git itself refuses. */
static bool checked_out_elsewhere(struct gl *g, const char *name)
{
    if (strncmp(name, "refs/heads/", 11) != 0)
        return false;
    /* A linked worktree's own folder asks of the common one, where the worktrees are. */
    bool linked = g->part != CP_GIT_WHOLE;
    if (g->part == CP_GIT_OWN && (g = g->common) == NULL)
        return false;
    if (linked && head_names(g, "HEAD", name))
        return true;
    cleanup_close int wts = g->hostfd >= 0 ? openat(g->hostfd, "worktrees",
                                                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                           : -1;
    cleanup_strv char **names = wts >= 0 ? cp_walk_names(wts) : NULL;
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        if (linked && strcmp(names[i], g->o->worktree) == 0)
            continue;
        cleanup_free char *rel = xasprintf("worktrees/%s/HEAD", names[i]);
        if (head_names(g, rel, name))
            return true;
    }
    return false;
}

/* One ref the box set: the rules, then it lands. shown: where it came from (rel). true when it
 * is done with (landed, or already so). */
bool cp_gl_land_ref(struct gl *g, const char *name, const char *val, enum cp_git_kind kind,
                    const char *shown)
{
    if (!cp_git_ref_name_ok(name)) {
        cp_gl_refuse(g, shown, "not a ref name git writes");
        return false;
    }
    char old[72];
    struct stat st;
    ref_here(g, name, old, &st);
    if (strcmp(old, val) == 0)
        return true;
    if (checked_out_elsewhere(g, name)) {
        cp_gl_refuse(g, shown,
                     "a branch checked out in another worktree here never moves from this box: "
                     "that worktree's files would stay behind (git itself refuses it; move it "
                     "there)");
        return false;
    }
    if (g->o->dry_run) {
        cp_gl_tell(g, old[0] ? "changed" : "added", name);
        return false;
    }
    if (old[0] && cp_gl_changed_here(g, &st)) {
        cp_gl_say_kept(g, name, val);
        return false;
    }
    if (kind == CP_GIT_TAG && old[0]) {
        cp_gl_refuse(g, shown, "a tag here is never moved (only new tags land)");
        return false;
    }
    if (!cp_gl_object_here(g, val)) {
        cp_gl_refuse(g, shown, "a ref naming an object that is not here");
        return false;
    }
    bool forced = old[0] && (strcmp(old, "?") == 0 || !cp_gl_ancestor_here(g, old, val));
    if (write_ref(g, name, val) < 0) {
        cp_gl_refuse(g, shown, "cannot write it here");
        return false;
    }
    if (forced)
        say_forced(g, name, old, val);
    note_ref(g, name, old, val, !old[0] ? "added" : forced ? "forced" : "fast-forward");
    cp_gl_tell(g, old[0] ? "changed" : "added", name);
    if (g->o->rep != NULL)
        g->o->rep->landed++;
    cp_gl_test_hold(g, "ref");
    return true;
}

/* packed-refs: each entry under the ref rules, as a loose ref here; never the file. */
void cp_gl_land_packed(struct gl *g)
{
    cleanup_free char *text = cp_gl_read_up(g, "packed-refs", 64 << 20);
    if (text == NULL) {
        cp_gl_refuse(g, "packed-refs", "unreadable");
        return;
    }
    bool all = true;
    for (char *line = text, *next; *line; line = next) {
        next = strchr(line, '\n');
        if (next == NULL)
            next = line + strlen(line);
        else
            *next++ = '\0';
        if (line[0] == '#' || line[0] == '^' || line[0] == '\0')
            continue;
        char *sp = strchr(line, ' ');
        if (sp == NULL) {
            cp_gl_refuse(g, "packed-refs", "a line that is not a ref");
            all = false;
            continue;
        }
        *sp = '\0';
        const char *name = sp + 1, *why = NULL;
        enum cp_git_kind k = cp_gl_kind(g, name, &why);
        char *val = cp_gl_ref_value(line);
        if (cp_strvec_has(&g->files, name)) /* the loose one is the ref */
            continue;
        if (k != CP_GIT_REF && k != CP_GIT_TAG) {
            cleanup_free char *r = xasprintf("packed-refs: %s", name);
            cp_gl_refuse(g, r, k == CP_GIT_REFUSED ? why : "not a ref");
            all = false;
        } else if (val == NULL) {
            cp_gl_refuse(g, "packed-refs", "a line that is not a ref");
            all = false;
        } else if (!cp_gl_land_ref(g, name, val, k, "packed-refs")) {
            all = false;
        }
    }
    if (all && !g->o->dry_run)
        cp_gl_drop_up(g, "packed-refs");
}

void cp_gl_land_head(struct gl *g)
{
    cleanup_free char *text = cp_gl_read_up(g, "HEAD", 4096);
    size_t n = text ? strcspn(text, "\n") : 0;
    if (text == NULL || (text[n] == '\n' && text[n + 1] != '\0')) {
        cp_gl_refuse(g, "HEAD", "HEAD lands only as a branch or a commit id");
        return;
    }
    text[n] = '\0';
    bool branch = strncmp(text, "ref: refs/heads/", 16) == 0 && cp_git_ref_name_ok(text + 5);
    if (!branch && (!cp_gl_is_hex(text, n) || (n != 40 && n != 64))) {
        cp_gl_refuse(g, "HEAD", "HEAD lands only as a branch or a commit id");
        return;
    }
    struct stat st;
    cleanup_free char *here = cp_gl_read_here(g, "HEAD", &st);
    if (here != NULL && strcspn(here, "\n") == n && strncmp(here, text, n) == 0) {
        cp_gl_drop_up(g, "HEAD");
        return;
    }
    if (branch && checked_out_elsewhere(g, text + 5)) {
        cp_gl_refuse(g, "HEAD",
                     "HEAD never lands as a branch checked out in another worktree here: both "
                     "worktrees would move it (git itself refuses that checkout)");
        return;
    }
    if (g->o->dry_run) {
        cp_gl_tell(g, "changed", "HEAD");
        return;
    }
    if (here != NULL && cp_gl_changed_here(g, &st)) {
        cp_gl_say_kept(g, "HEAD", text);
        return;
    }
    if (!branch && !cp_gl_object_here(g, text)) {
        cp_gl_refuse(g, "HEAD", "a commit id that is not here");
        return;
    }
    if (cp_gl_copy_in(g, "HEAD", 0644, true) < 0) {
        cp_gl_refuse(g, "HEAD", "cannot write it here");
        return;
    }
    cp_gl_drop_up(g, "HEAD");
    cp_gl_tell(g, "changed", "HEAD");
    if (g->o->rep != NULL)
        g->o->rep->landed++;
}
