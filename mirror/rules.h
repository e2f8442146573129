/* What the mirror carries and lands: path syntax (I4) and the places it never touches (I5). */
#ifndef CONCH_MIRROR_RULES_H
#define CONCH_MIRROR_RULES_H

#include <stdbool.h>
#include <stddef.h>

/* Longest relative path and component the mirror accepts, in bytes. */
#define CP_PATH_MAX 4095
#define CP_NAME_MAX 255

/* The folder the landing stages into; never listed, never carried. */
#define CP_STAGING_PREFIX ".conch-staging-"
/* The push's deletion list travels inside the tar under this name. */
#define CP_DELETIONS_NAME ".conch-mirror-deletions"
#define CP_SENT_NAME      ".conch-mirror-sent"

/* Protected places: fnmatch patterns matched case-insensitively against every component.
 * NULL patterns means DESIGN.md's defaults. */
struct cp_rules {
    const char *const *protected;
};

const char *const *cp_rules_default_protected(void);

/* I4: relative, non-empty, bounded, no empty, "." or ".." component, no control byte, no
 * invisible code point. Returns NULL when the path is acceptable, else why it is not. */
const char *cp_rules_syntax(const char *path);

/* I5: a protected place, a dependency folder on the way, .git/hooks, .git/config, or a .git
 * that is itself a file. Returns NULL when the path may be carried, else why not. */
const char *cp_rules_place(const struct cp_rules *r, const char *path);

/* Both of the above; what the listing and the landing apply to every name. */
const char *cp_rules_check(const struct cp_rules *r, const char *path);

/* A folder name the listing prunes: a dependency folder (any case). */
bool cp_rules_is_dep_folder(const char *name);

/* The name as a terminal may safely show it: bytes outside printable ASCII as \xNN. */
char *cp_escape(const char *s);

#endif
