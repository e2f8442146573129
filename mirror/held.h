/* The runs whose copy-on-write layers wait under $CONCH_HOME/workplaces/layers: one folder a
 * run (up/ and wk/ for the overlay, lower, a link to the work folder, and run.json), in one of
 * these states: "warm" (made with a box ahead of need), "running" (its box may still write),
 * "landing" (the gate has begun: the next run or `land` finishes it), "landed" (what is left
 * was refused; the folder goes once its box and volume are gone) and "held" (`run --hold`, or
 * a run whose conch-place died with its box: kept for `changes`, `land` and `discard`). */
#ifndef CONCH_MIRROR_HELD_H
#define CONCH_MIRROR_HELD_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "mirror/git/git.h"
#include "mirror/layer.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"

struct cp_held_run {
    char *id;         /* the folder's name under layers/ (the box's name) */
    char *dir;        /* its path */
    char *workdir;    /* the work folder's real path */
    char *state;      /* "running", "landing" or "held" */
    char *command;    /* the command as typed, for `changes` */
    int64_t since_ns; /* the command's start: later changes here are the person's */
    int64_t made;     /* seconds since the epoch */
    long pid;         /* the conch-place that made it */
    /* The git folder outside the work folder the box sees through a second layer (git-up/ and
     * git-wk/ beside the first, git-lower linking it): mirror/git/git-outside.h. NULL: none. */
    char *git_dir, *git_worktree, *git_owner;
};

void cp_held_run_dispose(struct cp_held_run *r);
#define cleanup_held_run __attribute__((cleanup(cp_held_run_dispose)))

/* Makes a run's folder for workdir, named id: the upper folder takes the work folder's mode
 * (and owner, for root), since the box sees it as the folder itself; with git, a second layer
 * over that git folder. State "running". */
int cp_held_make(const char *workdir, const char *id, char *const *argv,
                 const struct cp_git_outside *git, struct cp_held_run *out, cp_error_t *err);

/* The overlay's mount options for the run: its three folders, by paths free of ',' and ':';
 * with git, those of the git folder's layer. */
int cp_held_mount_options(const struct cp_held_run *r, bool git, char **out, cp_error_t *err);

/* Writes run.json with a new state (and since_ns as it stands), atomically. */
int cp_held_set_state(struct cp_held_run *r, const char *state, cp_error_t *err);

/* The run named id. */
int cp_held_load(const char *id, struct cp_held_run *out, cp_error_t *err);

/* The runs of workdir (NULL: every folder's), oldest first. */
int cp_held_list(const char *workdir, struct cp_held_run **out, size_t *n_out, cp_error_t *err);
void cp_held_list_free(struct cp_held_run *v, size_t n);

/* Lands a run through the gate under the folder's landing lock, then marks it landed and, with
 * discard, removes its folder. how_to_take ends the host-run line. */
int cp_held_land(struct cp_held_run *r, const struct cp_config *cfg, const char *how_to_take,
                 bool discard, cp_error_t *err);

/* Judges a run's entries without landing anything (`changes`). */
int cp_held_judge(const struct cp_held_run *r, const struct cp_config *cfg, cp_layer_seen_fn seen,
                  void *ctx, cp_error_t *err);

/* The held run named id (any folder's), or without id the one held run of workdir: none, or
 * more than one, is an error that names them. */
int cp_held_pick(const char *workdir, const char *id, struct cp_held_run *out, cp_error_t *err);
/* The same with the folder as given (NULL: the current one), resolved here. */
int cp_held_pick_in(const char *dir, const char *id, struct cp_held_run *out, cp_error_t *err);

/* Removes a run's folder and all it holds. */
int cp_held_discard(struct cp_held_run *r, cp_error_t *err);

/* Before a run of workdir: finishes each landing cut short, and keeps (as held) each run whose
 * conch-place is gone while its state was running. Says what it did. */
void cp_held_recover(const char *workdir, const struct cp_config *cfg);

/* `clean`: removes held runs older than max_age seconds; *removed counts them. */
int cp_held_clean(int64_t max_age, int *removed, cp_error_t *err);

#endif
