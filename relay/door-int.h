/* What the door's loop (door.c) and its connections (conn.c) share. Private to relay/. */
#ifndef CONCH_RELAY_DOOR_INT_H
#define CONCH_RELAY_DOOR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "relay/control.h"
#include "relay/door.h"

struct door {
    struct cp_relay_door_info info;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int conns; /* connection threads alive */
    int runs;  /* run slots taken */
    int max_runs;
    pid_t children[CP_RELAY_RUNS_MAX]; /* the runs' `conch-place run` processes, 0 when free */
    long last_activity;
    bool stopping;
};

/* One accepted connection, handed to its own thread (which frees it). */
struct conn {
    struct door *door;
    int fd;
    bool control;
};

void *cp_relay_conn_main(void *arg);

#endif
