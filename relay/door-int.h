/* What the door's loop (door.c) and its connections (conn.c) share. Private to relay/. */
#ifndef CONCH_RELAY_DOOR_INT_H
#define CONCH_RELAY_DOOR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "relay/control.h"
#include "relay/relay.h"
#include "relay/tickets.h"
#include "relay/turnaway.h"
#include "src/base/spawn.h"

#define CP_RELAY_CONNS_MAX   96 /* the port's connections at once, runs included; more: 503 */
#define CP_RELAY_CONTROL_MAX 16 /* the control socket's at once, apart; more are told busy */

struct door {
    struct cp_relay_door_info info;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int conns;         /* the port's connection threads alive (CP_RELAY_CONNS_MAX) */
    int control_conns; /* the control socket's (CP_RELAY_CONTROL_MAX), a budget of its own */
    int runs;          /* run slots taken */
    int max_runs;
    pid_t children[CP_RELAY_RUNS_MAX]; /* the runs' `conch-place run` processes, 0 when free */
    long last_activity;
    bool stopping;
    /* One runproc started ahead of need, its libraries loaded, so a run does not wait for an
     * exec. */
    struct cp_child warm;
    bool have_warm;
    struct cp_turnaway turned; /* the loop's own: connections being turned away */
};

/* One accepted connection, handed to its own thread (which frees it). */
struct conn {
    struct door *door;
    int fd;
    bool control;
};

/* The door's clock in seconds, for its idle time: the tickets' clock (relay/tickets.h). */
static inline long cp_relay_now_s(void)
{
    return (long)(cp_tickets_now() / 1000);
}

void *cp_relay_conn_main(void *arg);
/* A connection's thread is done: its budget freed, the door's idle clock restarted. */
void cp_relay_conn_gone(struct door *d, bool control);

/* Starts a runproc: a `conch-place relay exec` process, which reads one run's place, folder
 * and command from its standard input (out->in), then is `run` with those arguments; its
 * standard output and error come out of out->out and out->err. 0 or -1 (out left empty).
 * cp_child_dispose closes its pipes and waits for it: it leaves when its input ends unread. */
int cp_relay_runproc_start(struct cp_child *out);
/* Starts the next warm runproc when there is none (not while the door is closing). */
void cp_relay_warm_refill(struct door *d);

#endif
