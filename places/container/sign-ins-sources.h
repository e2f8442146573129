/* The sign-ins' sources: one reader per client (sign-ins-npm.c for npm, Yarn and Bun,
 * sign-ins-pip.c, sign-ins-git.c), and what they share: the list they add to (sign-ins.c),
 * ${NAME} in a value (sign-in-expand.c), and a file that holds secrets read into records
 * (sign-in-file.c). Private to those files. */
#ifndef CONCH_SIGN_INS_SOURCES_H
#define CONCH_SIGN_INS_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "places/container/settings-sources.h"
#include "places/container/sign-ins.h"
#include "places/container/signin-read.h"
#include "src/base/error.h"

/* ---- the list (sign-ins.c) ---- */

/* Whether a is the sign-in for host and prefix. */
bool cp_sign_ins_same(const struct cp_sign_in *a, const char *host, const char *prefix);
/* Adds one, unless the host and prefix have one already (the first wins) or the list is full.
 * Takes authorization (wiped when not kept). */
void cp_sign_ins_add(struct cp_sign_ins *s, const char *host, const char *prefix,
                     char *authorization, const char *source);
/* Adds the sign-in for url (taking authorization, which may be NULL); prefix_of turns the
 * address's path into the prefix. Only https on port 443 counts. */
void cp_sign_ins_add_for_url(struct cp_sign_ins *s, const char *url, char *authorization,
                             const char *source, char *(*prefix_of)(const char *));
/* "Basic B64" of user:password; the caller's (cp_free_secret). */
char *cp_sign_in_basic(const char *user, const char *password);
/* The Basic header of the user:password in url, or NULL. */
char *cp_sign_in_url_basic(const char *url);
/* A path as a prefix: "/a/b" -> "/a/b/"; "" -> "/". The caller's. */
char *cp_sign_in_prefix(const char *path);
/* Whether the sidecar can reach u with a sign-in (https, port 443, a valid name); a debug line
 * naming source when not. */
bool cp_sign_in_reachable(const struct cp_url *u, const char *source);

/* ---- ${NAME} (sign-in-expand.c) ---- */

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
/* The work folder's HTTPS remotes, through git credential fill run outside the folder. */
int cp_sign_ins_git_remotes(struct cp_sign_ins *s, const char *workdir, cp_error_t *err);

#endif
