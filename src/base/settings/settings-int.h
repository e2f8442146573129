/* What the files of src/base/settings/ share: the modes' reader, the CA file's refusal and
 * the atomic save. Not for other modules. */
#ifndef CONCH_SETTINGS_INT_H
#define CONCH_SETTINGS_INT_H

#include <stdbool.h>

#include "src/base/error.h"
#include "src/base/settings/settings.h"

/* A mode's word ("read", "write", "pass-through") as *out; false for any other
 * (settings-egress.c). */
bool cp_config_mode_parse(const char *name, enum cp_host_mode *out);
/* err says that egress.ca_file's path is refused, and why, with what to give instead
 * (settings-check.c). Returns CP_ERR_USAGE. */
int cp_config_ca_file_refused(const char *path, int sys_errno, const char *why, cp_error_t *err);
/* Writes c's document to its file atomically, 0600 (settings.c). */
int cp_config_save(struct cp_config *c, cp_error_t *err);

#endif
