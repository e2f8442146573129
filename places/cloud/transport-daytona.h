/* The mirror's transport over Daytona: standard input goes up as a file through the files
 * API, the far script runs through process execution, its output comes down as files. */
#ifndef CONCH_CLOUD_TRANSPORT_DAYTONA_H
#define CONCH_CLOUD_TRANSPORT_DAYTONA_H

#include "mirror/mirror.h"
#include "places/cloud/toolbox.h"

/* io_dir: an absolute folder in the sandbox for the streams' files; tb is borrowed. */
int cp_transport_daytona_new(struct cp_toolbox *tb, const char *io_dir, struct cp_transport **out,
                             cp_error_t *err);

/* The sizes of a far script's standard output and error, from its execute's answer (the last
 * "conch-sizes OUT ERR" line the wrapper prints); -1 each when there is none (an answer cut
 * short, a daemon that merged something else in): then both streams are downloaded. */
void cp_daytona_stream_sizes(const char *result, long long *out, long long *err);

#endif
