/* The mirror's sync: before a command, what changed here goes there; after it, what changed
 * there comes back, deletions included, landing only where it is safe (DESIGN.md). The shared
 * remote run (remote-run.c) calls these two functions with the place's transport. */
#ifndef CONCH_MIRROR_SYNC_H
#define CONCH_MIRROR_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "mirror/event-lines.h"
#include "mirror/listing.h"
#include "mirror/rules.h"
#include "mirror/transport.h"
#include "src/base/error.h"

/* What one run learns of the far copy, shared by its push and its pull: which copy is there,
 * and its files as the command finds them, so that the pull deletes here only what the
 * command removed (issue 9). */
struct cp_mirror_session {
    bool probed;              /* far_id and before are known (the far lock's answer, or a probe) */
    char *far_id;             /* the id the copy holds there; NULL: no copy there */
    struct cp_listing before; /* the copy's files: as probed, then as the push left them */
    bool pushed;              /* before is the listing after this run's push */
    bool fresh;               /* no copy known there: everything sent, no deletion inferred */
};

void cp_mirror_session_dispose(struct cp_mirror_session *s);
/* Reads a probe's answer ("conch-id ID" line, then the far listing) into s. */
int cp_mirror_session_parse(struct cp_mirror_session *s, const char *data, size_t len,
                            size_t max_files, cp_error_t *err);

/* The copy's id file at the far copy's root: never listed, sent or brought back. */
#define CP_MIRROR_ID_NAME ".conch-mirror-id"

struct cp_mirror_opts {
    int rootfd;                   /* the work folder, opened once for the whole run (case 30) */
    const char *far_root;         /* the far copy's folder, as the far shell names it */
    const char *manifest_path;    /* cp_manifest_path(place, chat) */
    const struct cp_rules *rules; /* NULL: the default protected places */
    struct cp_limits limits;      /* zeros: 50,000 files, 1 GB */
    uint64_t max_pull_bytes;      /* zero: 512 MB */
    const char *place_id;         /* the far place's identity (host key, user, path; sandbox id) */
    struct cp_mirror_session *session; /* shared by one run's push and pull; NULL: push alone
                                          probes, pull deletes nothing */
    /* The copy as listed after the command (a held lock's listing), or NULL: the pull
     * probes for it. */
    const struct cp_mirror_session *listed_after;
    /* A command sent on the push's heels (a held lock's): the unpack writes its status to
     * pushed_path there, and sent(sent_ctx) is called once the pack is on its way, before its
     * answer is read. NULL: the push alone. */
    const char *pushed_path;
    void (*sent)(void *ctx);
    void *sent_ctx;
};

/* Sends what changed here since the manifest, and the deletions; records the far side's
 * state right after, which the pull compares against. */
int cp_mirror_push(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err);

/* Brings back what changed there since the push, and applies the deletions, only after the
 * whole archive arrived and the far side said it succeeded. */
int cp_mirror_pull(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err);

#endif
