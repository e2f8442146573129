/* What the .git landing's files share: one git folder's landing, and the steps on its files
 * (git-folder.c) that its stages take: git-landing.c walks the folder and lands its plain
 * files, git-objects.c its objects and packs, git-refs.c its refs and HEAD. */
#ifndef CONCH_MIRROR_GIT_LANDING_INT_H
#define CONCH_MIRROR_GIT_LANDING_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "mirror/git/git-landing.h"
#include "mirror/git/git-table.h"
#include "src/base/strvec.h"

/* What the landings of the top .git and its submodules' git folders share. */
struct gl_run {
    json_object *refs, *refused;
    unsigned tmp_counter;
    bool held;       /* test_hold's, once */
    bool flush_owed; /* copies written out since the last flush */
};

/* One git folder's landing: the top .git, or a submodule's (mirror/git/git-modules.c). */
struct gl {
    const struct cp_git_land_opts *o;
    struct gl_run *run;
    const char *where; /* the git folder from the work folder: ".git", ".git/modules/NAME" */
    int depth;         /* in submodules: 0 for the top .git */
    int hostfd;        /* the git folder here */
    int upfd;          /* and in the layer */
    uint64_t hostdev, updev;
    struct cp_strvec files, whiteouts; /* rel paths in the layer's git folder */
    bool modules;                      /* the layer holds its modules/ folder */
    enum cp_git_part part;             /* which of git's tables it lands by (git-table.h) */
    bool own;                          /* common part: the layer holds worktrees/NAME */
    struct gl *common;                 /* own part: the common folder's landing */
};

/* The kind of rel in this git folder, by its part's table. */
static inline enum cp_git_kind cp_gl_kind(const struct gl *g, const char *rel, const char **why)
{
    return cp_git_table_kind_in(g->part, rel, why);
}

/* Whether s is n lowercase hex digits and ends there. */
bool cp_gl_is_hex(const char *s, size_t n);

/* A file of the git folder that does not land: its words and the report's git.refused. */
void cp_gl_refuse(struct gl *g, const char *rel, const char *why);

/* What became of a file that landed, in the layer's words. */
void cp_gl_tell(struct gl *g, const char *what, const char *rel);

/* A file changed here during the run: this computer's value is kept, and the words say so. */
void cp_gl_say_kept(struct gl *g, const char *rel, const char *box);

/* Opens rel in the layer (read) or its folder here (write), never through a link. */
int cp_gl_open_up(struct gl *g, const char *rel);

/* Removes a landed file from the layer, so a landing cut short is finished by the next. */
void cp_gl_drop_up(struct gl *g, const char *rel);

/* Reads a small file of the layer (a ref, HEAD, packed-refs) whole; NULL when it cannot. */
char *cp_gl_read_up(struct gl *g, const char *rel, size_t max);

/* Reads a small file of the git folder here, with its stat; NULL when there is none. */
char *cp_gl_read_here(struct gl *g, const char *rel, struct stat *st);

/* Whether the file here changed during the run (its ctime at or after the run's start). */
bool cp_gl_changed_here(struct gl *g, const struct stat *st);

/* Copies the layer's rel to a new file name in dirfd here, written out (the kernel starts
 * writing it) but not flushed, which cp_gl_flush owes; -1 (nothing left) on failure. */
int cp_gl_copy_to(struct gl *g, const char *rel, int dirfd, const char *name, mode_t mode);

/* The one flush the copies since the last one owe, before a ref that may name them moves: as
 * git's own core.fsyncMethod=batch does for loose objects, each copy is only written out and
 * one fsync of the git folder commits them all (ext4's ordered data: the journal commit waits
 * for the blocks whose writing began), where a flush per file was most of a commit's landing
 * (eight of them about 4 ms here). 0, or -1 when the flush failed. */
int cp_gl_flush(struct gl *g);

/* Copies the layer's rel to rel here through a new name in its folder: replace, or added only
 * (an existing one is kept: EEXIST). */
int cp_gl_copy_in(struct gl *g, const char *rel, mode_t mode, bool replace);

/* One loose object: checked against its name, then added only. */
void cp_gl_land_object(struct gl *g, const char *rel);

/* Runs git here on the git folder (mirror/git/git-run.c's clean environment); its status. */
int cp_gl_git_here(struct gl *g, char *const *args);

/* For the integration tests alone (as mirror/layer.c's CONCH_TEST_HOLD_LANDING): with
 * CONCH_TEST_HOLD_GIT naming a folder and CONCH_TEST_HOLD_GIT_AT naming the stage ("object",
 * "pack" or "ref"), the landing stops once the first of that stage is in place, makes
 * FOLDER/held and waits until the fifo FOLDER/go is written to and closed, so that a test's
 * kill -9 comes in the middle of a .git landing for certain. Read in conch-place's own
 * environment here, which nothing in a box can set. */
void cp_gl_test_hold(struct gl *g, const char *stage);

/* A loose object here answers without a git process (git-loose.h); else git's cat-file. */
bool cp_gl_object_here(struct gl *g, const char *hex);

/* A loose commit whose parent is old is a fast-forward from it; else git's merge-base. */
bool cp_gl_ancestor_here(struct gl *g, const char *old, const char *new);

/* Everything the box put in objects/pack/: its packs, each with its index; the rest refused. */
void cp_gl_land_packs(struct gl *g);

/* A ref value: hex and one newline; NULL when it is not one. */
char *cp_gl_ref_value(char *text);

/* One ref the box set: the rules, then it lands. shown: where it came from (rel). true when it
 * is done with (landed, or already so). */
bool cp_gl_land_ref(struct gl *g, const char *name, const char *val, enum cp_git_kind kind,
                    const char *shown);

/* packed-refs: each entry under the ref rules, as a loose ref here; never the file. */
void cp_gl_land_packed(struct gl *g);

/* HEAD, last: a symbolic ref to refs/heads/ or a commit id that is here, else refused. */
void cp_gl_land_head(struct gl *g);

#endif
