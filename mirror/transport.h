/* How the mirror reaches the far side: run a small POSIX script there with byte streams, a
 * far proc. The ssh and cloud places implement this; the mirror knows no place (DESIGN.md,
 * Layout). */
#ifndef CONCH_MIRROR_TRANSPORT_H
#define CONCH_MIRROR_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "src/base/error.h"

struct cp_transport;
struct cp_far_proc;

struct cp_transport_ops {
    /* true: each far script runs as one request once its standard input is closed, and nothing
     * of it outlives that request (cloud). No open stream there can hold the copy's lock, so
     * the mirror's lock is a lease (mirror/remote-lock.h), and such a transport gives guard.
     * false: a far script lives as long as its streams (ssh, local). */
    bool batch;
    /* Starts `/bin/sh -c SCRIPT conch-mirror ARGV...` on the far side. The script text and the
     * arguments are the mirror's own; the transport quotes them for its channel. File names
     * never travel in argv, only in the streams. */
    int (*start)(struct cp_transport *t, const char *script, const char *const *argv,
                 struct cp_far_proc **out, cp_error_t *err);
    /* Writes all of buf to the command's standard input. */
    int (*write_stdin)(struct cp_far_proc *r, const void *buf, size_t len, cp_error_t *err);
    /* Sends end-of-file on standard input. */
    int (*close_stdin)(struct cp_far_proc *r, cp_error_t *err);
    /* Reads up to len bytes of standard output; 0 at its end, negative on failure. */
    ssize_t (*read_stdout)(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err);
    /* The same for standard error. The mirror reads it after standard output has ended: the far
     * scripts hold their error output back until then, so neither stream can block the other. */
    ssize_t (*read_stderr)(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err);
    /* Waits for the command; *status_out is its exit code, or 128 + signal. */
    int (*wait)(struct cp_far_proc *r, int *status_out, cp_error_t *err);
    /* Ends the command if still running and frees it. */
    void (*proc_free)(struct cp_far_proc *r);
    /* Frees the transport. */
    void (*free)(struct cp_transport *t);
    /* A batch transport's (NULL elsewhere): shell text to run in the far shell before every
     * far script from now on (NULL: none). The far lease's guard (mirror/remote-lock.h). */
    void (*guard)(struct cp_transport *t, const char *text);
    /* The run lets go from now on: what runs next (the far lock's release) runs even after a
     * stop, its waits bounded. NULL: nothing changes. */
    void (*closing)(struct cp_transport *t);
};

/* A transport is its ops plus the implementation's state behind it. */
struct cp_transport {
    const struct cp_transport_ops *ops;
};

/* A far proc: a far script started through a transport, with its byte streams. It remembers
 * its ops so the helpers below need only the handle. */
struct cp_far_proc {
    const struct cp_transport_ops *ops;
};

int cp_far_proc_start(struct cp_transport *t, const char *script, const char *const *argv,
                      struct cp_far_proc **out, cp_error_t *err);
int cp_far_proc_write(struct cp_far_proc *r, const void *buf, size_t len, cp_error_t *err);
int cp_far_proc_close_stdin(struct cp_far_proc *r, cp_error_t *err);
ssize_t cp_far_proc_read(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err);
ssize_t cp_far_proc_read_stderr(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err);
int cp_far_proc_wait(struct cp_far_proc *r, int *status_out, cp_error_t *err);
void cp_far_proc_free(struct cp_far_proc *r);
void cp_transport_free(struct cp_transport *t);
/* The optional ops above; nothing where the transport has none. */
void cp_transport_guard(struct cp_transport *t, const char *text);
void cp_transport_closing(struct cp_transport *t);

void cp_cleanup_far_procp(struct cp_far_proc **r);
void cp_cleanup_transportp(struct cp_transport **t);
#define cleanup_far_proc  __attribute__((cleanup(cp_cleanup_far_procp)))
#define cleanup_transport __attribute__((cleanup(cp_cleanup_transportp)))

/* The far side as a folder on this machine, its scripts run by /bin/sh: the mirror's own
 * end-to-end tests and the benchmark use it before any network place exists. */
int cp_transport_local_new(struct cp_transport **out, cp_error_t *err);

#endif
