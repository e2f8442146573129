/* Readers for the few settings files the allow-list looks at: ~/.npmrc, ~/.bunfig.toml, pip's
 * pip.conf and the work folder's .git/config. They read text only (nothing is run, nothing is
 * included or expanded), with fixed limits, and are driven by a fuzz target. */
#ifndef CONCH_HOSTCONF_H
#define CONCH_HOSTCONF_H

#include <stddef.h>

#define CP_HOSTCONF_MAX       (1024 * 1024) /* a larger settings file is refused */
#define CP_HOSTCONF_LINE_MAX  8192          /* a longer line is skipped */
#define CP_HOSTCONF_ITEMS_MAX 256           /* values kept per file */

/* Calls fn(state, line) on each line of text of at most CP_HOSTCONF_LINE_MAX bytes (a longer
 * one is skipped; nothing at all for text over CP_HOSTCONF_MAX), in a buffer wiped after. */
typedef void (*cp_hostconf_line_fn)(void *state, char *line);
void cp_hostconf_each_line(const char *text, size_t len, cp_hostconf_line_fn fn, void *state);

/* Each out-vector is NULL-terminated and the caller's (cp_strv_free); entries keep the
 * values as written (quotes removed). */

/* npmrc: the value of `registry=` and of every `@scope:registry=`. */
char **cp_npmrc_registries(const char *text, size_t len);

/* bunfig.toml: [install] registry ("URL" or { url = "URL" }), [install.registry] url, and each
 * scope of [install.scopes] (a string, or a table with url) and [install.scopes.NAME] url. */
char **cp_bunfig_registries(const char *text, size_t len);

/* pip.conf: each address of `index-url` and `extra-index-url` (or with '_') of [global] or
 * [install], a list split on white space and continued on indented lines. */
char **cp_pipconf_indexes(const char *text, size_t len);

/* .git/config: "NAME\tURL" for each url and pushurl of [remote "NAME"] (and [remote.NAME]). */
char **cp_gitconfig_remotes(const char *text, size_t len);

/* The host an HTTPS address reaches on port 443, lower-cased, or NULL: not https, a password in
 * it, another port, or no valid host name. */
char *cp_url_https_host(const char *url);

/* The host of any http(s) address (for telling whether a registry moved), or NULL. */
char *cp_url_host(const char *url);

#endif
