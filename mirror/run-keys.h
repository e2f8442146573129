/* Host-run files that are also project data (issue 35): .npmrc, .yarnrc.yml and
 * .cargo/config.toml (.cargo/config) land from a box when every key the box added, removed or
 * changed against this computer's file (absent: empty) is a data key of its format's short
 * list; any other key is refused by name, and a file the readers do not fully understand
 * (mirror/keys.h) is refused whole as every host-run file is. */
#ifndef CONCH_MIRROR_RUN_KEYS_H
#define CONCH_MIRROR_RUN_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "mirror/rules.h"

enum cp_keyed { CP_KEYED_NONE, CP_KEYED_NPMRC, CP_KEYED_YARNRC, CP_KEYED_CARGO };

/* Which of those files path is, by its last components (any case, like the table). */
enum cp_keyed cp_run_keys_kind(const char *path);

/* The rule, on the two texts (here NULL: no file here). NULL when the box's may land; else
 * why not, the caller's: CP_RULES_HOST_RUN when a text is not understood, else
 * "host-run: KEY in PATH ..." for the first key (in the box's file, then this computer's) that
 * changed and is no data key. */
char *cp_run_keys_judge(enum cp_keyed kind, const char *path, const char *here, size_t here_len,
                        const char *box, size_t box_len);

/* Whether path is refused as host-run only for being one of those files: the rules with their
 * table's entries for them taken out refuse nothing. */
bool cp_run_keys_only_keyed(const struct cp_rules *r, const char *path);

/* The landings' hook: the box's file open at boxfd (read from its start) against this
 * computer's at path in the work folder rootfd (reached without following a link). NULL when
 * it may land, else why not (the caller's), as cp_run_keys_judge. */
char *cp_run_keys_why(int rootfd, const char *path, int boxfd);

struct cp_layer_opts;
/* The layer's hook, for an entry the layer's judgement refused as host-run: a plain file of
 * those kinds, refused by no other rule (by each name a link gives it too), is judged by its
 * keys. NULL when it may land, else why not (the caller's). */
char *cp_run_keys_layer_why(const struct cp_layer_opts *o, int udirfd, const char *name,
                            const char *path);

#endif
