/* What the mirror's push (mirror/push.c) and pull (mirror/pull.c) share; not for other modules:
 * the far copy as one run knows it (which copy is there, its files), and a far script's answer
 * read to its end. */
#ifndef CONCH_MIRROR_FAR_COPY_H
#define CONCH_MIRROR_FAR_COPY_H

#include <stdbool.h>
#include <stdint.h>

#include "mirror/sync.h"
#include "src/base/buf.h"
#include "src/base/progress.h"

#define CP_MIRROR_LISTING_MAX (256u * 1024 * 1024)

/* The limits in force: o's, or the defaults (50,000 files, 1 GB). */
struct cp_limits cp_mirror_limits(const struct cp_mirror_opts *o);

/* Reads a stream of r to its end into out, keeping at most max bytes; over max is an error when
 * strict. */
int cp_mirror_read_all(struct cp_far_proc *r, bool from_stderr, size_t max, bool strict,
                       struct cp_buf *out, cp_error_t *err);
/* Collects the far side's held-back error output and its status; non-zero is a failure, worded
 * as one while doing what. */
int cp_mirror_far_finish(struct cp_far_proc *r, const char *what, cp_error_t *err);
/* Starts script with the far copy's folder as its one argument. */
int cp_mirror_run_script(struct cp_transport *t, const char *script, const char *far_root,
                         struct cp_far_proc **out, cp_error_t *err);

/* Runs the listing script: the copy's id, then its files, into s. */
int cp_mirror_far_probe(struct cp_transport *t, const struct cp_mirror_opts *o, size_t max_files,
                        struct cp_mirror_session *s, cp_error_t *err);
/* The name of the copy's own id file: never listed, sent or brought back. */
bool cp_mirror_is_id_name(const char *path);
/* A new copy's id: 32 random hex digits. *out is the caller's. */
char *cp_mirror_new_copy_id(void);

/* A transfer draws its line (on a terminal only) when it passes about 20 MB. */
void cp_mirror_transfer_progress(struct cp_progress *p, const char *step, uint64_t total);

#endif
