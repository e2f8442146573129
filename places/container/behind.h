/* What a container run leaves to be done once it has answered: the used box and its layer
 * removed, the next warm box made, what crashed runs left swept. It is done by `conch-place
 * behind`, started through posix_spawn (spawn.h) and handed the work as JSON on its stdin, so
 * the run ends without waiting for it and without paying for a fork. */
#ifndef CONCH_BEHIND_H
#define CONCH_BEHIND_H

#include <json-c/json.h>

#include "places/container/engine.h"
#include "places/container/warm.h"

/* Starts the work: r's refill on engine e (r NULL: none), then the sweep. Where it cannot be
 * started, the used box is removed here and now (the sweep waits for the next run). */
void cp_container_behind(struct cp_engine *e, const struct cp_warm_refill *r);

/* `conch-place behind`: the work one job asks for. */
int cp_container_behind_job(json_object *job, cp_error_t *err);

#endif
