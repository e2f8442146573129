/* The project's registry settings without their keys: what a sealed box sees over .npmrc,
 * .yarnrc.yml and pip.conf (DESIGN.md, "Protected places"). */
#ifndef CONCH_KEYLESS_H
#define CONCH_KEYLESS_H

#include <stddef.h>

/* The file names whose copy the box sees instead of the file. */
extern const char *const cp_keyless_names[];

/* text without its credential lines (_authToken, _auth, _password, npmAuthToken,
 * npmAuthIdent, as a key anywhere on the line, with the lines that continue the value) and
 * with user:password@ taken out of every address. NUL-terminated; the caller's. */
char *cp_keyless_text(const char *text, size_t len);

#endif
