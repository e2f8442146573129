/* The config reader (config-parse.c), for the host's lookup (config-host.c); not for other
 * modules. Arrows point one way: the lookup runs the reader, the reader dispatches to the
 * keyword table (config-keywords.h), both word errors with the text routines (config-text.h). */
#ifndef CONCH_SSH_CONFIG_PARSE_H
#define CONCH_SSH_CONFIG_PARSE_H

#include "places/ssh/config-keywords.h"

/* Reads one file (top-level or included) into the state. */
int ssh_parse_file(struct ssh_parse *p, const char *path, bool nevermatch, cp_error_t *err);

#endif
