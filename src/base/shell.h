/* Words for a POSIX shell on the far side (ssh's login shell, a Daytona toolbox's sh): quoting
 * that any sh reads back byte for byte, and the one `sh -c` command line builder. */
#ifndef CONCH_SHELL_H
#define CONCH_SHELL_H

#include "src/base/buf.h"

/* Appends s in single quotes, each ' inside written '\'' (so "it's" becomes 'it'\''s'). Every
 * byte but the single quote is literal between single quotes, so nothing in s is expanded.
 * 0, or -1 when out's maximum would be passed (out may then hold part of the word). */
int cp_shell_quote_word(struct cp_buf *out, const char *s);
/* The same, as a new string (the caller's); never NULL. */
char *cp_shell_quoted(const char *s);
/* Appends each word of the NULL-terminated argv quoted, one space between them (none before
 * the first or after the last). 0, or -1 when out's maximum would be passed. */
int cp_shell_quote_argv(struct cp_buf *out, const char *const *argv);

/* The command line `SHELL -c 'SCRIPT'[ NAME][ 'ARG'...]`, the caller's; never NULL.
 *   shell  written as it is: "sh", "/bin/sh", or "exec /bin/sh" where the far login shell
 *          should be replaced (ssh). It must be plain words, never anything from a person.
 *   script quoted: the script the shell runs.
 *   name   NULL for none; else $0 of the script, written bare when it is a plain word
 *          ([A-Za-z0-9_./+-]), quoted otherwise.
 *   args   NULL for none; else the script's $1..., each quoted.
 * E.g. ("sh", "cd /w && exec x", NULL, NULL) gives `sh -c 'cd /w && exec x'`, and
 * ("sh", S, "conch-mirror", {"a b", NULL}) gives `sh -c 'S' conch-mirror 'a b'`. */
char *cp_shell_command(const char *shell, const char *script, const char *name,
                       const char *const *args);

#endif
