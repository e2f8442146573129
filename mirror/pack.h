/* The push's tar: the changed files read through the folder's handle, and the deletion list. */
#ifndef CONCH_MIRROR_PACK_H
#define CONCH_MIRROR_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "mirror/listing.h"
#include "src/base/progress.h"
#include "mirror/report.h"
#include "mirror/transport.h"
#include "src/base/error.h"

/* Writes a GNU-format tar (raw name bytes, long names, any size) of files[0..n) to the far
 * command's standard input, then the NUL-separated deletion list as CP_DELETIONS_NAME and
 * the names that went out ("./NAME", NUL-separated) as CP_SENT_NAME, the only ones the far
 * side lists back.
 * sent[i] says whether file i went out exactly as listed: a file swapped or changed while it
 * was read is still well-formed in the stream but must not be recorded as agreed. */
int cp_pack_push(struct cp_remote *r, int rootfd, const struct cp_entry *const *files, size_t n,
                 const char *const *deletions, size_t ndel, bool *sent,
                 struct cp_mirror_report *rep, struct cp_progress *progress, cp_error_t *err);

#endif
