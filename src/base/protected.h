/* The protected places (DESIGN.md, "Protected places"): one list, used by the box's covers and
 * by the mirror's rules alike, each pattern matched at any depth of the work folder. */
#ifndef CONCH_PROTECTED_H
#define CONCH_PROTECTED_H

#include <stdbool.h>
#include <stddef.h>

/* NULL patterns mean this list; NULL-terminated. A pattern is one or more '/'-joined components,
 * each a glob ("*.pem", "id_rsa*") or a name; a trailing '/' marks a folder (".ssh/"), which is
 * protected with everything under it. A leading '/' matches only from the work folder's top
 * ("/lefthook.yml"), and a component "**" any number of components, none too (one a pattern:
 * "site-packages/" "**" "/" "*.pth" joined). */
extern const char *const cp_protected_default[];

/* Host-run files: what this computer runs by itself once it is in the folder (assistant hooks,
 * editor tasks, .envrc, git's hooks, shell start-up files). Nothing lands on one of them from any
 * place. Same shape and matching as the list above; NULL-terminated. */
extern const char *const cp_host_run_default[];
/* Python's start-up code in environments (.pth files, sitecustomize.py, activate scripts): also
 * host-run, whatever table is in force, and named apart in the words. */
extern const char *const cp_host_run_python[];

/* Whether rel (a relative path, components joined by '/') is itself a protected place: its
 * last components match all of one pattern's components, whatever lies before them. Case is
 * ignored, so a case-insensitive file system cannot spell a key past the list. */
bool cp_protected_is(const char *const *patterns, const char *rel);
/* The same for rel's first len bytes (a folder on a longer path's way). */
bool cp_protected_is_n(const char *const *patterns, const char *rel, size_t len);

/* Whether rel is a protected place or lies under one. */
bool cp_protected_within(const char *const *patterns, const char *rel);

struct cp_config;
/* The list in force: the one list, then config.json's "protected" names (settings-check.c checked
 * them). A person's entries add places; none can take one of the list away, so a typo'd or
 * hostile config never uncovers a key. *owned_out is freed with cp_strv_free (NULL when the
 * config adds nothing). */
const char *const *cp_protected_in_force(const struct cp_config *cfg, char ***owned_out);

#endif
