/* A running box's first process, held as a pidfd: it becomes readable once that process has
 * ended, and the kernel ends the first process of a PID namespace only after every other one
 * in it. So a readable pidfd means nothing in the box runs, or writes, any more. */
#ifndef CONCH_BOX_PIDFD_H
#define CONCH_BOX_PIDFD_H

#include <json-c/json.h>

#include "places/container/engine/engine-client.h"

/* The pidfd of box id's first process, or -1 where there is none to be had here: the engine
 * on another machine, a kernel without pidfds, or a process whose cgroup does not name the
 * box (so never another process that took the number). */
int cp_box_pidfd(struct cp_engine *e, const char *id);
/* The same from the box's inspect, already read (its Id and State.Pid). */
int cp_box_pidfd_of(json_object *box);

#endif
