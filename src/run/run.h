/* The run step below the commands: one command run at one place, however it was asked. `run`,
 * the relay's door and the ssh keeper all come here, none by making up an argv for another
 * command's parser. */
#ifndef CONCH_RUN_H
#define CONCH_RUN_H

#include <stdbool.h>

#include "places/place.h"
#include "src/base/error.h"

/* What was asked, before anything is resolved. Everything is borrowed; NULL means the default
 * (the saved setting, else the built-in one). */
struct cp_run_ask {
    const char *place;   /* container | ssh:HOST | cloud */
    const char *workdir; /* NULL: the current directory */
    const char *chat;    /* NULL: derived from the folder's real path */
    char *const *argv;   /* the command, NULL-terminated, at least one word */
    bool unsealed;
    bool interactive;
    bool hold;
    const char *engine; /* docker | podman | auto */
    const char *image;
    const char *report; /* write the run report (docs/run-report.schema.json) there */
};

/* Resolves ask, readies the place and runs the command there. Returns the command's exit status
 * (>= 0; 128 + the signal when the person stopped it), or a negative code with err set, which
 * the caller prints and turns into 125. The report, when asked, is written however it ended. */
int cp_run(const struct cp_run_ask *ask, cp_error_t *err);

/* The resolved request run at its place: prepare, run, release, with the report's stages; the
 * status or a negative code, as cp_run. For a caller that resolved the request itself (the ssh
 * keeper, from its client's request, with its session in req->kept). */
int cp_run_resolved(const struct cp_run_request *req, cp_error_t *err);

#endif
