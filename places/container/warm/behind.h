/* What a container run leaves to be done once it has answered: the used box and its layer
 * removed, the next warm box made, what crashed runs left swept. It is done by `conch-place
 * behind`, started through posix_spawn (spawn.h) and handed the work as JSON on its stdin, so
 * the run ends without waiting for it and without paying for a fork. */
#ifndef CONCH_BEHIND_H
#define CONCH_BEHIND_H

#include <json-c/json.h>

#include "src/base/error.h"

struct cp_engine;
struct cp_warm_refill;

/* Starts the work: r's refill on engine e (r NULL: none), then the sweep. Where it cannot be
 * started, the used box is removed here and now (the sweep waits for the next run). */
void cp_container_behind(struct cp_engine *e, const struct cp_warm_refill *r);

#endif
