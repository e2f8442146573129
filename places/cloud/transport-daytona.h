/* The mirror's transport over Daytona: standard input goes up as a file through the files
 * API, the far script runs through process execution, its output comes down as files. */
#ifndef CONCH_CLOUD_TRANSPORT_DAYTONA_H
#define CONCH_CLOUD_TRANSPORT_DAYTONA_H

#include "mirror/transport.h"
#include "places/cloud/toolbox.h"

/* io_dir: an absolute folder in the sandbox for the streams' files; tb is borrowed. */
int cp_transport_daytona_new(struct cp_toolbox *tb, const char *io_dir, struct cp_transport **out,
                             cp_error_t *err);

#endif
