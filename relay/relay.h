/* The relay's one public header: what the `relay` commands (src/cmd-relay.c) use. The door is a
 * loopback HTTP port that runs a ticket's command through `conch-place run` and streams its
 * answer back, and a control socket that mints the tickets; the runner is what an assistant's
 * shell runs in place of its command; the hook swaps the command for the runner. Everything
 * else in the folder is private to it. */
#ifndef CONCH_RELAY_RELAY_H
#define CONCH_RELAY_RELAY_H

#include <stdbool.h>
#include <sys/types.h>

#include "src/base/buf.h"
#include "src/base/error.h"

/* ---- the door (door.c, conn.c) ---- */

#define CP_RELAY_RUNS_DEFAULT 8 /* runs at once; more are refused busy (503) */
#define CP_RELAY_RUNS_MAX     64
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

/* ---- the control socket and its client (control.c) ---- */

/* A message: the command and its arguments, whole. A command past it is refused with words
 * when the ticket is minted; no argument is ever left out to make it fit. */
#define CP_RELAY_MSG_MAX (256 * 1024)

/* $CONCH_HOME/workplaces/relay, made 0700 and checked to be ours and closed to others. */
int cp_relay_dir(char **out, cp_error_t *err);
/* The socket of this folder's door: <dir>/<cp_folder_key(real folder)><suffix>. */
int cp_relay_folder_path(const char *real_folder, const char *suffix, char **out, cp_error_t *err);

/* One message (src/base/unix-msg.h: a 4-byte length, then NUL-separated strings), at most
 * CP_RELAY_MSG_MAX bytes, each piece within the control socket's wait. */
int cp_relay_msg_recv(int fd, struct cp_buf *out);
/* The same, waiting first_wait_ms (-1: as long as it takes) for the message to begin. */
int cp_relay_msg_recv_wait(int fd, struct cp_buf *out, int first_wait_ms);
/* cp_unix_msg_split, by the name `relay exec` (src/cmd-relay.c) knows it. */
ssize_t cp_relay_msg_split(const struct cp_buf *b, const char ***out);

#define CP_TICKET_TTL_MAX 1800 /* a ticket's longest life: 30 minutes */

/* The client: asks the door at socket_path for a ticket; the runner's URL into *out. folder,
 * when given, must be the door's own. */
int cp_relay_mint(const char *socket_path, const char *folder, long ttl, char *const *argv,
                  char **out, cp_error_t *err);

/* ---- the runner's URL in a file (urlfile.c) ---- */

/* Handing a runner its URL without an argv. A process's arguments are public (/proc/PID/cmdline,
 * `ps`), so `relay ticket --file` writes the URL into a new file only its user can read, in the
 * relay folder (0700), and `relay run --file PATH` reads it and removes it: the path, which
 * says nothing of the ticket, is all that a command line shows. */

#define CP_RELAY_URL_MAX 256

/* Writes url into a new 0600 file of the relay folder; its path into *out. Files left by
 * tickets never run are removed once past the longest lifetime. */
int cp_relay_url_file_write(const char *url, char **out, cp_error_t *err);

/* Reads the URL from path (a plain file of ours that no one else can read) and removes it. */
int cp_relay_url_file_take(const char *path, char **out, cp_error_t *err);

/* Reads the URL from fd (one line, at most CP_RELAY_URL_MAX bytes). */
int cp_relay_url_read(int fd, char **out, cp_error_t *err);

/* ---- the runner (runner.c) ---- */

/* Runs the ticket; *status_out is the command's status (or 130/143 when interrupted here and
 * the door could not say). A refusal or a broken door is an error: the caller exits 125. */
int cp_relay_runner(const char *url, int *status_out, cp_error_t *err);

/* ---- the hook (hook.c) ---- */

/* The whole hook: standard input to standard output. 0 when an answer was printed, else 2
 * with one line on standard error (Claude Code blocks the call on 2 and shows the line). */
int cp_relay_hook(void);

#endif
