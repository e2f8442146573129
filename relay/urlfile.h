/* Handing a runner its URL without an argv. A process's arguments are public (/proc/PID/cmdline,
 * `ps`), so `relay ticket --file` writes the URL into a new file only its user can read, in the
 * relay folder (0700), and `relay run --file PATH` reads it and removes it: the path, which
 * says nothing of the ticket, is all that a command line shows. */
#ifndef CONCH_RELAY_URLFILE_H
#define CONCH_RELAY_URLFILE_H

#include "src/base/error.h"

#define CP_RELAY_URL_MAX 256

/* Writes url into a new 0600 file of the relay folder; its path into *out. Files left by
 * tickets never run are removed once past the longest lifetime. */
int cp_relay_url_file_write(const char *url, char **out, cp_error_t *err);

/* Reads the URL from path (a plain file of ours that no one else can read) and removes it. */
int cp_relay_url_file_take(const char *path, char **out, cp_error_t *err);

/* Reads the URL from fd (one line, at most CP_RELAY_URL_MAX bytes). */
int cp_relay_url_read(int fd, char **out, cp_error_t *err);

#endif
