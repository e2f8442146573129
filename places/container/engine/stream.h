/* The hijacked attach connection: raw HTTP upgrade, 8-byte frame demultiplexing, stdin relay. */
#ifndef CONCH_STREAM_H
#define CONCH_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "places/container/engine/end-mark.h"
#include "places/container/engine/engine-client.h"
#include "src/base/buf.h"

/* Splits the engine's multiplexed stream into standard output and error as bytes arrive. */
struct cp_demux {
    uint8_t header[8];
    size_t have;   /* header bytes collected */
    uint32_t left; /* payload bytes left in the current frame */
    int out_fd;    /* where type 0 and 1 go */
    int err_fd;    /* where type 2 and 3 go */
    int stop_fd;   /* readable on a signal: a write blocked on a full output then gives up */
    /* The box's init reports a command it could not start in its own words on stderr, before
     * anything else; those first bytes are held only while they still look like that report. */
    bool sniff_done;
    char held[512];
    size_t held_len;
    int launch_status; /* 127 not found, 126 not executable, 0 started */
    /* A stdin-exec warm box: the command's name, whose failed exec its shell reports. */
    const char *launch_name;
    /* A stdin-exec warm box's end marks, read out of its stdout and stderr (NULL: none) ... */
    struct cp_end_mark *marks;
    /* ... and its first process's pidfd (or -1): once both marks are read, the stream ends
     * when that process has, with every other process of the box (its PID namespace). */
    int end_fd;
    bool ended_by_mark; /* so it did: the status is marks[0]'s */
};

void cp_demux_init(struct cp_demux *d, int out_fd, int err_fd);
/* Writes wait beside stop_fd (or -1): feeding fails with EINTR once it becomes readable. */
void cp_demux_set_stop(struct cp_demux *d, int stop_fd);
/* Feeds bytes; 0, or -1 with errno when writing to our own outputs failed. */
int cp_demux_feed(struct cp_demux *d, const uint8_t *data, size_t len);
/* Writes out whatever is still held; call at the end of the stream. */
int cp_demux_finish(struct cp_demux *d);

/* Opens a plain unix-socket connection to the engine, sends method+path with Upgrade headers
 * and an optional JSON body, and reads up to the end of the 101 (or 200) answer. Stream bytes
 * that arrived with the headers are left in *early. */
int cp_stream_hijack(struct cp_engine *e, const char *method, const char *path, json_object *body,
                     int *fd_out, struct cp_buf *early, cp_error_t *err);

/* A GET whose answer streams (the engine's events): its body follows the head on *fd_out, as
 * it is (HTTP/1.0, not chunked); what came with the head is in *early. */
int cp_stream_get(struct cp_engine *e, const char *path, int *fd_out, struct cp_buf *early,
                  cp_error_t *err);

/* Relays until the engine closes the stream: frames to out/err, and stdin_fd (or -1) to the
 * box, half-closing at its end, both ways at once with one 64 KiB chunk in flight. stop_fd
 * becoming readable (a signal's self-pipe) ends it with CP_ERR_INTERRUPTED, also while a
 * write to either side is blocked. */
int cp_stream_pump(int fd, struct cp_demux *d, struct cp_buf *early, int stdin_fd, int stop_fd,
                   cp_error_t *err);

#endif
