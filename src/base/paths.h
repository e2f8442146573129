/* Where conch-place keeps its files: ~ and $CONCH_HOME, as DESIGN.md defines them. */
#ifndef CONCH_PATHS_H
#define CONCH_PATHS_H

#include "src/base/error.h"

/* $HOME where set, else the password database's home; the caller frees *out. */
int cp_home_dir(char **out, cp_error_t *err);
/* $CONCH_HOME, else ~/.conch; created (0700) when create is set. */
int cp_conch_home(int create, char **out, cp_error_t *err);
/* $CONCH_HOME/workplaces (derived state: manifests, locks), made (0700) if absent. */
int cp_workplaces_dir(char **out, cp_error_t *err);
/* A short mark of this CONCH_HOME (the first 16 hex digits of a SHA-256 of its workplaces
 * folder's path), which labels the engine's things made for it, so that one home's sweep
 * never takes another's. NULL when the folder cannot be had; the caller frees it. */
char *cp_home_mark(void);
/* The person's folder for what every CONCH_HOME of theirs must share (locks on an engine's
 * things): $XDG_RUNTIME_DIR/conch-place, else /tmp/conch-place-UID; made 0700 and checked to
 * be theirs and closed to others. NULL when it cannot be had; the caller frees it. */
char *cp_person_dir(void);
/* Writes data to path through a temporary file and a rename, with the given mode. */
int cp_write_file_atomic(const char *path, const char *data, size_t len, unsigned mode,
                         cp_error_t *err);
/* Reads what is left of an open file, at most max bytes; path only names it in errors. */
int cp_read_fd(const char *path, int fd, size_t max, char **out, size_t *len_out, cp_error_t *err);
/* Reads a whole file of at most max bytes; CP_ERR_NOT_FOUND when it is absent. */
int cp_read_file(const char *path, size_t max, char **out, size_t *len_out, cp_error_t *err);
/* The work folder asked for (NULL: the current one) by its real path in *out (the caller's).
 * Refused (CP_ERR_FAILED, 125 for run): the home folder ($HOME, and the password database's),
 * a folder that holds it, and /, where a command would reach every key the person has. */
int cp_workdir_resolve(const char *asked, char **out, cp_error_t *err);

/* rel with its "." and ".." components resolved by their text alone (nothing on disk is asked,
 * so it serves names that do not exist yet); NULL when a ".." climbs above its start. The
 * caller frees it; "" is the start itself. */
char *cp_path_dots_resolved(const char *rel);

#endif
