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

/* Protected places: src/base/protected.h's patterns, matched case-insensitively at any depth
 * (a place and everything under it). NULL patterns means DESIGN.md's one list. */
struct cp_rules {
    const char *const *protected;
    /* Coming back: the host-run table (NULL: src/base/protected.h's), the folder git's
     * core.hooksPath names relative to the work folder (NULL: none inside it), and what the
     * folder's host-run settings name in it (cp_host_run_named: git's included config files,
     * hooks folders, fsmonitor programs, yarnPath; NULL-terminated, NULL: none), each with
     * all under it. */
    const char *const *host_run;
    const char *hooks_path;
    const char *const *named;
    /* The container's layer lands dependency folders (npm's node_modules among them): the
     * mirror never carries them, so for it they stay refused. */
    bool deps_land;
};

/* The reason a host-run file is refused, as the report and the words carry it. */
#define CP_RULES_HOST_RUN "host-run"

const char *const *cp_rules_default_protected(void);

/* I4: relative, non-empty, bounded, no empty, "." or ".." component, no control byte, no
 * invisible code point. Returns NULL when the path is acceptable, else why it is not. */
const char *cp_rules_syntax(const char *path);

/* I5: a protected place, a dependency folder on the way, .git/hooks, .git/config, or a .git
 * that is itself a file. Returns NULL when the path may be carried, else why not. */
const char *cp_rules_place(const struct cp_rules *r, const char *path);

/* Both of the above; what the listing and the landing apply to every name. */
const char *cp_rules_check(const struct cp_rules *r, const char *path);

/* What the landing and a deletion from the far side apply: cp_rules_check, nothing under
 * a component named .git (any case) nor a .git file, and no host-run file (CP_RULES_HOST_RUN). */
const char *cp_rules_check_back(const struct cp_rules *r, const char *path);

/* Whether path exists here or is about to land (a folder: something under it does). */
typedef bool (*cp_rules_present_fn)(void *ctx, const char *path);

/* Whether landing path would help make a folder git takes for a repository: a folder on its
 * way (the work folder itself too) that would then hold HEAD beside objects, refs or
 * commondir, where path is one of those. NULL when it would not, else why. */
const char *cp_rules_repo_shape(const char *path, cp_rules_present_fn present, void *ctx);

/* Whether path is a host-run file: in the table or Python's start-up files, in the folder
 * core.hooksPath names, or under one of the named paths. */
bool cp_rules_host_run(const struct cp_rules *r, const char *path);

/* Whether path is Python's start-up code in an environment (src/base/protected.h's
 * cp_host_run_python): the words say why it did not land. */
bool cp_rules_python_start(const char *path);

/* A folder name the listing prunes: a dependency folder (any case). */
bool cp_rules_is_dep_folder(const char *name);

/* The name as a terminal may safely show it: bytes outside printable ASCII as \xNN. */
char *cp_escape(const char *s);

#endif
