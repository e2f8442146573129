/* The push's tar: the changed files read through the folder's handle, and the deletion list. */
#ifndef CONCH_MIRROR_PACK_H
#define CONCH_MIRROR_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mirror/event-lines.h"
#include "mirror/listing.h"
#include "src/base/progress.h"
#include "mirror/transport.h"
#include "src/base/error.h"

/* Writes a GNU-format tar (raw name bytes, long names, any size) of files[0..n) to the far
 * command's standard input, then the NUL-separated deletion list as CP_DELETIONS_NAME and
 * the names that went out ("./NAME", NUL-separated) as CP_SENT_NAME, the only ones the far
 * side lists back.
 * A project's .npmrc, .yarnrc.yml or pip.conf (src/base/keyless.h) goes as its keyless copy,
 * as the sealed box sees it; one that cannot be read as settings (over 1 MB, unreadable) does
 * not go at all.
 * sent[i] says whether file i went out exactly as listed (or as the keyless copy of that): a
 * file swapped or changed while it was read is still well-formed in the stream but must not be
 * recorded as agreed. sizes[i] is the size it went out with: its own, or its keyless copy's. */
int cp_pack_push(struct cp_far_proc *r, int rootfd, const struct cp_entry *const *files, size_t n,
                 const char *const *deletions, size_t ndel, bool *sent, uint64_t *sizes,
                 struct cp_mirror_report *rep, struct cp_progress *progress, cp_error_t *err);

#endif
