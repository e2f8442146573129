/* A fresh Docker box's exit status from the engine's "die" event, which Docker sends before it
 * tears the box's network down; its inspect answers only after that (70-90 ms later here). */
#ifndef CONCH_EXIT_EVENT_H
#define CONCH_EXIT_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include "places/container/engine/engine-client.h"
#include "src/base/buf.h"
#include "src/base/error.h"

struct cp_exit_watch {
    int fd; /* the events stream, -1 when there is none */
    struct cp_buf lines;
};

/* One line of the events stream: 1 with *status_out when it is box id's "die" with an exit
 * code from 0 to 255, 0 for anything else (another box or action, no code, not JSON). */
int cp_exit_event_parse(const char *line, size_t len, const char *id, int *status_out);

/* Subscribes to box id's "die" before it starts; on any failure w->fd stays -1 (the run then
 * asks the box itself, as without a watch). */
void cp_exit_watch_open(struct cp_engine *e, const char *id, struct cp_exit_watch *w);

/* After the output ended: 1 with *status_out once the die event came, 0 when it did not within
 * a moment, when the box's labels could fake it, or the stream failed (ask the box then). */
int cp_exit_watch_read(struct cp_engine *e, struct cp_exit_watch *w, const char *id,
                       int *status_out);

void cp_exit_watch_dispose(struct cp_exit_watch *w);

#endif
