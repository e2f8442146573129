/* The warm boxes made ahead for one key on one engine (warm.h): a pool sized to the runs' recent
 * pace, each box known here by a record in $CONCH_HOME/workplaces/warm/, so that a run claims
 * one by its name, without the engine's list of boxes. Podman's list waits for the lock of
 * every box being made (~150 ms behind each box made after a run, measured), and runs back to
 * back always find one being made.
 *
 * A record is ours (in our 0700 folder) but says nothing the run trusts about the box: the claim
 * reads the box back from the engine and takes it only with the run's key. */
#ifndef CONCH_WARM_POOL_H
#define CONCH_WARM_POOL_H

#include <stdbool.h>

#include <json-c/json.h>

#include "places/container/engine/engine.h"
/* The most boxes one key keeps ready: a script's loop of 8 runs finds each one ready (Docker's
 * idle box holds ~19 MB, its shim's mostly; Podman's ~7; each leaves after 300 s unclaimed). */
#define CP_WARM_POOL_MAX 8

/* A warm box older than this is not claimed, so it cannot leave (after 300 s, warm.c's waiter)
 * while it runs a command. */
#define CP_WARM_CLAIM_MAX 240

/* A warm box's label naming the CONCH_HOME whose pool made it (cp_home_mark). */
#define CP_WARM_HOME_LABEL "conch.home"

/* A fresh name for a warm box. The caller frees it. */
char *cp_warm_name(void);

/* Whether a box's name marks it as a warm box nobody has claimed. */
bool cp_warm_unclaimed(const char *name);

/* The pool's name for a key on an engine's socket: 16 hex digits of their SHA-256; the
 * caller's. */
char *cp_warm_pool_name(const char *socket, const char *key);

/* Takes the oldest ready box of the pool that still has the key, renaming it to name (ours, so a
 * crash's leftover is told by its owner): 1 with *id_out and *was_out (the name it was made
 * under) and *box_out (its inspect, read back), 0 when none is ready. Notes the run in the pool's
 * pace either way (1 box at a slow pace, up to CP_WARM_POOL_MAX when runs come back to back).
 * Claims are serialised per person: the engine's rename is no compare-and-swap. */
int cp_warm_pool_claim(struct cp_engine *e, const char *pool, const char *key, const char *name,
                       char **id_out, char **was_out, json_object **box_out, cp_error_t *err);

/* Notes a run of the pool in its pace and says how many boxes it keeps ready (the claim does). */
int cp_warm_pool_pace(const char *pool);
/* The same at a given wall-clock time in ms, so a test says when each run came, not the clock. */
int cp_warm_pool_pace_at(const char *pool, long long now_ms);
/* The same, without a run noted: the maker's reading while later runs come. */
int cp_warm_pool_want(const char *pool);

/* Behind a run: the pool's refill lock, not waited for (held: another run's work is making
 * its boxes, and tops the pool up to the size its pace asks for, so runs back to back do not
 * each make boxes over it); then how many of its boxes are ready; then a box made and started
 * is recorded. */
int cp_warm_pool_lock(const char *pool, cp_error_t *err);
int cp_warm_pool_ready(const char *pool);
int cp_warm_pool_add(const char *pool, const char *name, const char *id, cp_error_t *err);

/* After a run whose pool's maker is at work (behind another run): the used box (and its layer's
 * volume, NULL: none) handed to that maker to remove, so that runs back to back start no work
 * behind each of them. 1 handed over; 0 when no maker is at work (the run starts its own). */
int cp_warm_pool_hand_over(const char *pool, const char *used_id, const char *used_layer);

struct cp_warm_used {
    char id[128];
    char layer[128]; /* "" for none */
};
/* The maker's end: the used boxes handed over since it last looked, at most max, the list
 * emptied (lines past max are left to the sweep of boxes whose runs have gone). Where there were
 * none, it gives up *refill_lock (-1 then) under the list's lock, so that no box is handed to a
 * maker that has left. */
int cp_warm_pool_take_used(const char *pool, int *refill_lock, struct cp_warm_used *out,
                           size_t max);

/* While the pool has a box ready, the maker waits (20 s at most) for a time when no run comes
 * while it makes one that takes make_ms: the runs have paused for 500 ms and the next, due at
 * the pace of the last two, is further off. A box made while a run ran slowed it by ~50-150 ms
 * on this 2-core machine (runs back to back, and runs 1.5 s apart). Says how many are ready. */
int cp_warm_pool_wait_quiet(const char *pool, int ready, long make_ms);

/* `clean`: every pool's records, whose boxes it removed. */
void cp_warm_pool_forget(void);

/* The most boxes a pool keeps: CONCH_WARM_POOL (1 to CP_WARM_POOL_MAX), else the most. */
int cp_warm_pool_most(void);

/* Whether a pool's name is one of ours (it names files). */
bool cp_warm_pool_name_ok(const char *pool);

#endif
