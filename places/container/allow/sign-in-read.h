/* Readers for the sign-ins in the person's registry settings: npmrc's per-registry keys,
 * bunfig.toml's registries, .yarnrc.yml's, ~/.netrc, and the parts of an address. Text only,
 * within the limits of hostconf.h (nothing included, expanded or run here), driven by the
 * hostconf fuzz target. Every vector they return holds secrets: free it with
 * cp_strv_free_secret. */
#ifndef CONCH_SIGNIN_READ_H
#define CONCH_SIGNIN_READ_H

#include <stdbool.h>
#include <stddef.h>

/* npmrc: "NERF\tKEY\tVALUE" for each line `//NERF:KEY=VALUE` whose KEY is _authToken, _auth,
 * username or _password (NERF as written after the "//", quotes gone from VALUE). */
char **cp_npmrc_sign_in_lines(const char *text, size_t len);

/* bunfig.toml: "URL\tTOKEN\tUSERNAME\tPASSWORD" for each registry of [install] and
 * [install.scopes], in every form Bun takes (a string, an inline table, a table of its own);
 * a field not given is empty. */
char **cp_bunfig_sign_in_lines(const char *text, size_t len);

/* .yarnrc.yml, through libyaml: "SERVER\tTOKEN\tIDENT" for each npmAuthToken or npmAuthIdent,
 * SERVER being the npmRegistryServer beside it (top level, or a scope of npmScopes, which
 * falls back on the top level's as Yarn does) or a key of npmRegistries ("//host/path" or an
 * address); a field not given is empty. A file libyaml refuses yields nothing. */
char **cp_yarnrc_sign_in_lines(const char *text, size_t len);

/* .yarnrc.yml: the addresses of npmRegistryServer, top level and per scope (for the list). */
char **cp_yarnrc_registries(const char *text, size_t len);

/* netrc: "MACHINE\tLOGIN\tPASSWORD" for each entry with both; MACHINE is empty for `default`.
 * macdef bodies are skipped. */
char **cp_netrc_lines(const char *text, size_t len);

/* An http(s) address in parts. */
struct cp_url {
    bool https;
    char *host;     /* lower-cased */
    char *port;     /* as written, or NULL */
    char *path;     /* from the first '/' up to '?' or '#'; "/" when there is none */
    char *user;     /* percent-decoded, or NULL */
    char *password; /* percent-decoded, or NULL */
};
/* 0, or -1 when url is not an http(s) address with a host. */
int cp_url_parse(const char *url, struct cp_url *out);
/* Wipes user and password. */
void cp_url_dispose(struct cp_url *u);
#define cleanup_url __attribute__((cleanup(cp_url_dispose)))

/* "%41" -> "A"; a '%' not followed by two hex digits stays. The caller's. */
char *cp_percent_decode(const char *s);

/* Wipes every string, then frees the vector. */
void cp_strv_free_secret(char **v);
void cp_cleanup_strv_secretp(char ***v);
#define cleanup_strv_secret __attribute__((cleanup(cp_cleanup_strv_secretp)))

#endif
