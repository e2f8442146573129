/* The mirror's transport over Daytona: standard input goes up as a file through the files
 * API, the far script runs through process execution, its output comes down as files. */
#ifndef CONCH_CLOUD_TRANSPORT_DAYTONA_H
#define CONCH_CLOUD_TRANSPORT_DAYTONA_H

#include "mirror/transport.h"
#include "places/cloud/toolbox.h"

/* io_dir: an absolute folder in the sandbox for the streams' files; tb is borrowed. */
int cp_transport_daytona_new(struct cp_toolbox *tb, const char *io_dir, struct cp_transport **out,
                             cp_error_t *err);

/* Shell text put before every far script from now on (a lease's guard); NULL for none. */
void cp_transport_daytona_guard(struct cp_transport *t, const char *guard);

/* The run is ending: what runs from now on (the lease's release) runs even after a signal. */
void cp_transport_daytona_closing(struct cp_transport *t);

#endif
