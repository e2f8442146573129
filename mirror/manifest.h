/* The manifest: per place and chat, the state both sides agreed at the last sync. */
#ifndef CONCH_MIRROR_MANIFEST_H
#define CONCH_MIRROR_MANIFEST_H

#include <stddef.h>

#include "mirror/listing.h"
#include "src/base/error.h"

struct cp_mentry {
    char *path;
    struct cp_sig here;  /* the local file as it was when both sides agreed */
    struct cp_sig there; /* the far copy's file as it was then */
};

struct cp_manifest {
    struct cp_mentry *v; /* sorted by path (strcmp) */
    size_t n, cap;
    char *copy_id;  /* the far copy's own id when both sides agreed; NULL: none known */
    char *place_id; /* the place it lives in (host key, user, path; sandbox id); NULL: none */
};

void cp_manifest_dispose(struct cp_manifest *m);
#define cleanup_manifest __attribute__((cleanup(cp_manifest_dispose)))

/* $CONCH_HOME/workplaces/PLACE/CHAT.manifest, the two names made safe as file names. */
int cp_manifest_path(const char *place, const char *chat, int create, char **out, cp_error_t *err);

/* Sets the identity fields (copies of the strings; NULL clears). */
void cp_manifest_set_identity(struct cp_manifest *m, const char *copy_id, const char *place_id);

/* An absent file is an empty manifest (a first sync). A damaged one is an error: the
 * person may delete it (DESIGN.md: derived state). */
int cp_manifest_load(const char *path, struct cp_manifest *out, cp_error_t *err);
/* Written to a temporary name, synced and renamed: after a crash either the old or the new
 * manifest is there, whole. */
int cp_manifest_save(const char *path, const struct cp_manifest *m, cp_error_t *err);

const struct cp_mentry *cp_manifest_find(const struct cp_manifest *m, const char *path);
/* Appends; put each name once, then cp_manifest_sort before the next find. */
void cp_manifest_put(struct cp_manifest *m, const char *path, const struct cp_sig *here,
                     const struct cp_sig *there);
void cp_manifest_sort(struct cp_manifest *m);

#endif
