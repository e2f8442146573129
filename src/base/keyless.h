/* The project's registry settings without their keys: what a sealed box sees over .npmrc,
 * .yarnrc.yml and pip.conf, and what the mirror sends to an ssh or cloud copy in their place
 * (DESIGN.md, "Protected places"). One module for both, so the two never disagree. */
#ifndef CONCH_KEYLESS_H
#define CONCH_KEYLESS_H

#include <stdbool.h>
#include <stddef.h>

/* The file names whose keyless copy is shown or sent instead of the file. */
extern const char *const cp_keyless_names[];

/* A settings file larger than this is never copied: the box covers it, the mirror keeps it. */
#define CP_KEYLESS_MAX (1024 * 1024)

/* Whether path's last component is one of cp_keyless_names, in any case (a far copy on a
 * case-insensitive disk reads .NPMRC as .npmrc). */
bool cp_keyless_is(const char *path);

/* text without its credential lines (_authToken, _auth, _password, npmAuthToken,
 * npmAuthIdent, as a key anywhere on the line, with the lines that continue the value) and
 * with user:password@ taken out of every address. NUL-terminated; the caller's. */
char *cp_keyless_text(const char *text, size_t len);

/* npmrc: only its `registry=` and `@scope:registry=` lines (userinfo taken out of them), for
 * the box's ~/.npmrc: ~'s other keys are the person's, not the project's. The caller's. */
char *cp_keyless_npmrc_registries(const char *text, size_t len);

/* bunfig.toml without token, username and password keys, an inline table's included (`{ url =
 * "X", token = "T" }` becomes `"X"`), and with user:password@ taken out of every address.
 * The caller's. */
char *cp_keyless_bunfig(const char *text, size_t len);

/* The keyless text of the plain file open at fd, read to its end from where fd stands. NULL
 * when it is not a plain file, holds more than CP_KEYLESS_MAX bytes or cannot be read: such
 * a file is covered (the box) or not sent (the mirror), never shown with its keys. */
char *cp_keyless_of_fd(int fd);

#endif
