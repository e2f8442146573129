/* Private unix sockets and the messages on them, for the relay's control socket and the ssh
 * keeper alike: a folder only this user can enter, a socket listened on with its mode set
 * before anyone can connect, the peer's uid checked with SO_PEERCRED, and length-prefixed
 * messages of NUL-terminated strings with an upper bound, optionally carrying descriptors
 * (SCM_RIGHTS). Both ends are this program, so the length is in host byte order. */
#ifndef CONCH_UNIX_MSG_H
#define CONCH_UNIX_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "src/base/buf.h"
#include "src/base/error.h"

/* ---- the folder and the socket ---- */

/* Makes dir (0700) unless it is there, then checks it: a real folder (not a link), owned by
 * this process's effective uid, nothing for group or others. Errors: CP_ERR_FAILED "cannot
 * make DIR" (errno kept), CP_ERR_UNSAFE "DIR is not a folder only you can enter" (no hint:
 * the caller knows what the folder holds and adds one). */
int cp_unix_private_dir(const char *dir, cp_error_t *err);

/* *out for path. CP_ERR_USAGE "the socket path PATH is too long" past sun_path's room. */
int cp_unix_addr(const char *path, struct sockaddr_un *out, cp_error_t *err);

/* Listens at path: whatever is there is unlinked first (a dead listener's socket: the caller
 * holds the lock that makes that safe), the bind is done under umask 077 so the socket is
 * never open to others even for a moment, then it is chmod'ed to mode (0600 for ours) and
 * listened on with backlog. The fd (close-on-exec), or a negative code: CP_ERR_USAGE from
 * cp_unix_addr, CP_ERR_FAILED "cannot listen on PATH" (errno kept). The umask is the
 * process's: no other thread should create files at that moment. */
int cp_unix_listen(const char *path, mode_t mode, int backlog, cp_error_t *err);

/* Connects to path. The fd (close-on-exec), or a negative code: CP_ERR_USAGE from
 * cp_unix_addr, CP_ERR_UNREACHABLE "nothing answers at PATH" (errno kept: ENOENT,
 * ECONNREFUSED, ...). A caller with its own words passes a scratch error and makes its own. */
int cp_unix_connect(const char *path, cp_error_t *err);

/* The uid of the process at the other end (SO_PEERCRED, as it was when it connected); 0, or
 * -1 with errno. */
int cp_unix_peer_uid(int fd, uid_t *out);
/* The other end runs as this process's effective uid. false when it cannot be told. */
bool cp_unix_peer_is_us(int fd);

/* ---- messages ---- */

/* A message on the wire: a uint32_t length in host byte order, then that many bytes; by
 * convention the bytes are NUL-terminated strings, each appended with cp_unix_msg_put. The
 * send and receive functions return 0, or -1 with errno where a system call failed (like
 * cp_write_all): the callers say what failed in their own words. */

/* Most descriptors one message carries. */
#define CP_UNIX_MSG_FDS_MAX 8

/* Appends s and its NUL to b; 0, or -1 when b's maximum would be passed (nothing added). */
int cp_unix_msg_put(struct cp_buf *b, const char *s);
/* Every string of b, none left out: *out (the caller frees the array, not the strings, which
 * point into b) ends in NULL. How many, or -1 when the last one has no NUL (*out untouched).
 * An empty b gives 0 and an array holding only NULL. */
ssize_t cp_unix_msg_split(const struct cp_buf *b, const char ***out);

/* Sends b as one message on fd (a socket or a pipe). nfds (at most CP_UNIX_MSG_FDS_MAX)
 * descriptors ride on the length when given, which needs a unix socket; they stay the
 * caller's to close. Never raises SIGPIPE on a socket (MSG_NOSIGNAL); a pipe whose reader is
 * gone raises it unless it is ignored (conch-place's main ignores it). */
int cp_unix_msg_send(int fd, const struct cp_buf *b, const int *fds, size_t nfds);

/* How one message is received. Zero-initialise, then set what is needed. */
struct cp_unix_recv {
    size_t max;        /* a longer message is refused; 0: out's room (out->max - out->len) */
    int first_wait_ms; /* > 0: at most this long for the message to begin; 0 or -1: forever */
    int rest_wait_ms;  /* > 0: at most this long for each later piece; 0 or -1: forever */
    int *fds;          /* NULL: take no descriptors (any sent are closed by the kernel) */
    size_t fds_cap;    /* room in fds, at most CP_UNIX_MSG_FDS_MAX; more sent are closed */
    size_t nfds;       /* out: how many landed in fds (close-on-exec, now the caller's) */
};
/* Receives one message on fd (a socket, or a pipe when no fds are asked for) and appends its
 * bytes to out. 0; or -1 on end of file, a wait that ran out, a message over the maximum or
 * over out's room, or an error. On -1 any descriptors received are closed again and nfds is
 * 0. The message's bytes pass through a scratch copy that is wiped (they may hold a ticket);
 * out is the caller's to wipe. */
int cp_unix_msg_recv(int fd, struct cp_buf *out, struct cp_unix_recv *how);

#endif
