/* Host names and allow-list patterns: exact names or "*.suffix", nothing looser. */
#ifndef CONCH_HOSTNAME_H
#define CONCH_HOSTNAME_H

#include <stdbool.h>

/* A DNS name of letter-digit-hyphen labels, at least two labels, not an IP literal. */
bool cp_hostname_valid(const char *name);
/* A valid name, or "*." followed by a valid name. */
bool cp_host_pattern_valid(const char *pattern);
/* Case-insensitive match of a name against an exact or "*.suffix" pattern. */
bool cp_host_pattern_match(const char *pattern, const char *name);

#endif
