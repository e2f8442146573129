/* The relay's door: a loopback HTTP port that runs a ticket's command through `conch-place
 * run` and streams its answer back, and the control socket that mints the tickets. */
#ifndef CONCH_RELAY_DOOR_H
#define CONCH_RELAY_DOOR_H

#include <stdbool.h>
#include <sys/types.h>

#include "src/base/error.h"

#define CP_RELAY_RUNS_DEFAULT 8 /* runs at once; more are refused busy (503) */
#define CP_RELAY_RUNS_MAX     64
#define CP_RELAY_CONNS_MAX    96 /* the port's connections at once, runs included; more: 503 */
#define CP_RELAY_CONTROL_MAX  16 /* the control socket's at once, apart; more are told busy */
#define CP_RELAY_IDLE_DEFAULT 1800

struct cp_relay_serve_opts {
    const char *place;   /* resolved: container, ssh:HOST or cloud */
    const char *workdir; /* the folder's real path */
    pid_t exit_with;     /* 0: none */
    long idle;           /* seconds without a request or a run before the door closes */
    int max_runs;
    bool detach; /* print the line, then serve in the background */
};

/* Opens the door, prints its JSON line, serves until it closes; 0 on a normal close. */
int cp_relay_serve(const struct cp_relay_serve_opts *o, cp_error_t *err);

#endif
