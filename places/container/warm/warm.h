/* Warm boxes: made and started ahead of need, each serving exactly one command. Made in
 * warm.c, kept and claimed in warm-pool.c, the command run in one in warm-exec.c. */
#ifndef CONCH_WARM_H
#define CONCH_WARM_H

#include <stdbool.h>

#include <json-c/json.h>

#include "places/container/box/box.h"
#include "places/container/engine/engine.h"
#include "places/container/warm/warm-pool.h"
#include "places/container/warm/behind.h"
#include "places/container/warm/leftovers.h"

/* How the command reaches a claimed box, on both engines: the box's first process, a shell,
 * reads the command on its stdin and runs it; the run's one attach carries the command's stdin
 * and output. The shell then marks the end of each output stream with the command's status
 * (end-mark.h), and the run ends once the box's processes are gone (box-pidfd.h): ~10 ms after
 * a `true`, where Docker ends the attach stream only after its teardown (~85 ms) and its exec
 * API takes ~100 ms (bench/container-roundtrip, -v). */

/* Everything a box is made from but the command: the seal, the folder, the protected places
 * found now, the network, made_from (the image's id, the sidecar's) and this binary's version.
 * The proxy credential is left out: it names each box. A warm box serves a run
 * only when its key is byte-equal to the run's. The caller frees it. */
char *cp_warm_key(const struct cp_box_spec *spec, const char *made_from);

/* The create body of a warm box: the same seal, with a waiter that leaves by itself after a
 * few minutes unless a claim wakes it. The caller owns it. */
json_object *cp_warm_spec(const struct cp_box_spec *spec, const char *key);

/* The box was made with the run's user and folder; only the command is handed over. */
struct cp_warm_exec {
    json_object *box; /* its inspect as the claim read it (NULL: read now) */
    char *const *argv;
    bool interactive;
    int stop_fd;
};

/* Runs the command in a claimed box, handed to its first process on its stdin (so 126/127 and
 * signals read as in a fresh box). */
int cp_warm_exec(struct cp_engine *e, const char *id, const struct cp_warm_exec *x,
                 struct cp_demux *d, int *status_out, cp_error_t *err);

/* The bytes a warm box reads before the command's own stdin: "LEN NONCE\n" and the command
 * quoted for sh (NONCE: its end mark's, CP_END_NONCE_LEN hex digits). Exposed for the unit
 * tests. */
int cp_warm_command_message(char *const *argv, const char *nonce, struct cp_buf *out,
                            cp_error_t *err);

/* The shell a warm box waits in (for the unit tests: its reading and marking). */
extern const char *const cp_warm_waiter[];

/* A box the pool may make: its create body, made under its name (its proxy user when sealed). */
struct cp_warm_next {
    json_object *spec;
    const char *name;
};

struct cp_warm_refill {
    const char *used_id;    /* the used box, removed after (NULL: none) */
    const char *used_layer; /* then its layer's volume (NULL: none) */
    const char *pool;       /* the pool to top up to its pace (warm-pool.h; NULL: none) ... */
    struct cp_warm_next next[CP_WARM_POOL_MAX]; /* ... from these, in order */
    size_t nnext;
    const char *workdir; /* each with a layer of its own over this folder (NULL: bound) */
    const struct cp_git_outside *git; /* and over its git folder outside it (NULL: none) */
    bool limits_may_miss; /* ... kept without its limits (container.limits allow-missing) */
};

/* Tops the pool up (each box's layer first), then removes the used box and its layer's
 * volume: after the run, in a process of its own (behind.h). */
void cp_warm_refill_now(const struct cp_engine *e, const struct cp_warm_refill *r);

#endif
