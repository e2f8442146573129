/* The sign-ins' sources: one reader per client (sign-ins-npm.c for npm, Yarn and Bun,
 * sign-ins-pip.c, sign-ins-git.c), which the collection (sign-ins.c) calls, and what the readers
 * share: the list they add to (sign-ins-list.h), ${NAME} in a value (sign-in-expand.c), and a
 * file that holds secrets read into records (sign-in-file.c). Private to those files. */
#ifndef CONCH_SIGN_INS_SOURCES_H
#define CONCH_SIGN_INS_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "places/container/allow/settings-sources.h"
#include "places/container/allow/sign-ins-list.h"
#include "places/container/allow/sign-in-read.h"
#include "src/base/error.h"

/* ---- ${NAME} (sign-in-expand.c) ---- */

/* ${NAME} in value replaced from the environment, as npm and Yarn do (\${NAME} stays as
 * written); $NAME too when bare is set, as Bun does. NULL when a variable is unset, its name in
 * *missing_out (the caller's). The caller's: cp_free_secret. */
char *cp_sign_in_expand(const char *value, bool bare, char **missing_out);
/* value expanded (cp_sign_in_expand), or NULL with a debug line naming the variable, never a
 * value; what says which setting held it. The caller's (cp_free_secret). */
char *cp_sign_in_expanded(const char *value, bool bare, const char *source, const char *what);

/* ---- a file that holds secrets (sign-in-file.c) ---- */

typedef char **(*cp_sign_in_reader_fn)(const char *, size_t);
/* The reader's records for the file at path (none when it does not exist); shown names the
 * file in the error when it exists but cannot be read. *out is the caller's, to wipe. */
int cp_sign_in_records(const char *path, const char *shown, cp_sign_in_reader_fn reader,
                       char ***out, cp_error_t *err);
/* Splits a record in place into exactly n tab-separated fields. */
bool cp_sign_in_fields(char *rec, char **f, size_t n);
/* Wipes and frees text of len bytes (NULL too). */
void cp_sign_in_free_text(char *text, size_t len);

/* ---- the readers, one per client ---- */

/* An .npmrc, a .yarnrc.yml, a .bunfig.toml at path (shown as shown). */
int cp_sign_ins_npm_file(struct cp_sign_ins *s, const char *path, const char *shown,
                         cp_error_t *err);
int cp_sign_ins_yarn_file(struct cp_sign_ins *s, const char *path, const char *shown,
                          cp_error_t *err);
int cp_sign_ins_bun_file(struct cp_sign_ins *s, const char *path, const char *shown,
                         cp_error_t *err);
/* pip's two pip.conf files, with ~/.netrc for an index without a password of its own. */
int cp_sign_ins_pip_files(struct cp_sign_ins *s, const struct cp_settings_sources *src,
                          cp_error_t *err);
/* The sign-ins the person named for workdir (sign-ins-named.c), each with a new placeholder. */
int cp_sign_ins_named(struct cp_sign_ins *s, const char *workdir, cp_error_t *err);
/* The work folder's HTTPS remotes, through git credential fill run outside the folder. */
int cp_sign_ins_git_remotes(struct cp_sign_ins *s, const char *workdir, cp_error_t *err);

#endif
