/* One box's life through the API: create, start, wait, remove; and the owner labels. */
#ifndef CONCH_BOX_H
#define CONCH_BOX_H

#include <json-c/json.h>

#include "places/container/engine.h"

/* "k=v" labels naming this process as the box's owner (host, pid, the pid's start time). */
char **cp_box_owner_labels(void);

int cp_box_create(struct cp_engine *e, json_object *spec, const char *name, char **id_out,
                  cp_error_t *err);
int cp_box_start(struct cp_engine *e, const char *id, cp_error_t *err);
/* Waits until the box is not running and reads its exit status. */
int cp_box_wait(struct cp_engine *e, const char *id, int *status_out, cp_error_t *err);
/* Kills and removes; a box already gone is not an error. */
int cp_box_remove(struct cp_engine *e, const char *id, cp_error_t *err);

/* Whether the process named by these labels is still alive on this host. */
bool cp_box_owner_alive(json_object *labels);

#endif
