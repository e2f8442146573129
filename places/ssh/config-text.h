/* The text of ssh_config (config-text.c): openssh's argument splitting, patterns, tokens and
 * times, the names that may go into a command, ProxyJump's hops, errors worded file:line. */
#ifndef CONCH_SSH_CONFIG_TEXT_H
#define CONCH_SSH_CONFIG_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "src/base/error.h"

/* Splits the arguments of a config line as openssh's argv_split does: blanks separate,
 * '"' and '\'' quote, '\' escapes a quote, a backslash or (unquoted) a blank, and an
 * unquoted word starting with '#' ends the line. -1 on an unclosed quote or past max. */
int cp_ssh_split_args(const char *s, size_t max, char ***out, size_t *n_out);

/* openssh's match_pattern: '*' any run, '?' one character, case-sensitive. */
bool cp_ssh_pattern_match(const char *pattern, const char *s);
/* A comma list with '!' negation, case-insensitive (known_hosts names, IgnoreUnknown):
 * 1 matched, 0 not, -1 a negated entry matched. */
int cp_ssh_pattern_list_match(const char *list, const char *s);
bool cp_ssh_has_wildcard(const char *s);

/* Checks that every %x of s is %% or one of allowed; *bad_out is the first bad letter. */
bool cp_ssh_tokens_valid(const char *s, const char *allowed, char *bad_out);

/* One expansion: %x -> values[i] where keys[i] == x; %% -> %; "~" or "~/" at the start ->
 * home when home is not NULL. Unknown tokens stay as they are (callers check first). */
struct cp_ssh_tokens {
    const char *keys; /* one letter per value */
    const char *const *values;
    const char *home;
};
char *cp_ssh_expand(const char *s, const struct cp_ssh_tokens *t);

/* openssh's convtime: "90", "1m30s", "2h"; seconds in *out. -1 if malformed or too big. */
int cp_ssh_parse_time(const char *s, long *out);

/* A value written back so cp_ssh_split_args gives it again (quoted when needed), with '%'
 * doubled when double_percent is set. *out is the caller's. */
char *cp_ssh_quote_arg(const char *s, bool double_percent);

/* A valid host name or IP address for HostName and ProxyJump hops: letters, digits, '.',
 * '-', '_' and ':' (IPv6), not starting with '-', at most 253 characters. */
bool cp_ssh_hostname_ok(const char *s);
/* A user name safe to put in a command line: letters, digits, '.', '_', '-', '@', '+',
 * not starting with '-', at most 64 characters. */
bool cp_ssh_user_ok(const char *s);

/* A place name as typed after "ssh:": letters, digits, '.', '_' and '-', not starting with
 * '-', no wildcard. CP_ERR_USAGE with a hint otherwise. */
int cp_ssh_alias_check(const char *alias, cp_error_t *err);

/* One hop of ProxyJump: [user@]host[:port] or ssh://[user@]host[:port]. */
struct cp_ssh_hop {
    char *user; /* NULL: the hop's own config decides */
    char *host;
    long port; /* -1: the hop's own config decides */
};
/* Splits a ProxyJump value into hops (none for "none"); *out is the caller's, count in n. */
int cp_ssh_jump_parse(const char *value, struct cp_ssh_hop **out, size_t *n_out, cp_error_t *err);
void cp_ssh_hops_free(struct cp_ssh_hop *hops, size_t n);

/* Records "file:line: message" as the error with code: every config message starts so. */
int cp_ssh_line_error(const char *file, int line, int code, cp_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
