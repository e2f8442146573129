/* Child processes: started with their streams wired as asked, held in a struct cp_child whose
 * cleanup attribute always reaps them (no zombie, whatever path a function leaves by), and
 * waited for with their status. The one place that forks and execs a program. */
#ifndef CONCH_SPAWN_H
#define CONCH_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "src/base/error.h"
#include "src/base/strvec.h"

/* How one of the child's standard streams is set up. */
enum cp_stdio_how {
    CP_STDIO_KEEP = 0, /* the child shares ours (zero-initialised options keep all three) */
    CP_STDIO_NULL,     /* /dev/null */
    CP_STDIO_PIPE,     /* a pipe; our end lands in the struct cp_child (in: we write) */
    CP_STDIO_SOCKET,   /* a unix stream socket pair; our end as for a pipe. On standard input
                          it makes a reader that stops reading give EPIPE, never a hang */
    CP_STDIO_FD,       /* the given fd (ours stays open, ours to close) */
};

struct cp_stdio {
    enum cp_stdio_how how;
    int fd; /* CP_STDIO_FD only; any fd, standard ones included (the child sorts them out) */
};

struct cp_spawn_opts {
    struct cp_stdio in, out, err;
    /* The program: file, or argv[0] when NULL. With path_search, a name without a '/' is
       looked up in PATH (this process's PATH, as execvp does), else it is used as it is. */
    const char *file;
    bool path_search;
    /* The child's environment, NULL-terminated "NAME=value"; NULL: this process's (environ).
       cp_spawn_env builds an edited copy. */
    char *const *env;
    const char *cwd;      /* chdir there first (failing: the child exits 127); NULL: stay */
    bool new_session;     /* setsid(): no terminal, and a process group of its own */
    bool new_group;       /* setpgid(0, 0): a process group of its own, same session */
    bool close_others;    /* close every other descriptor, close-on-exec or not (3 and up) */
    bool default_signals; /* unblock every signal, and SIGPIPE, SIGINT, SIGTERM, SIGHUP and
                             SIGQUIT back to their defaults (ours ignores SIGPIPE, and a
                             thread may block the stop signals) */
    int stop_signal;      /* sent by cp_child_dispose to a child not yet reaped, before it is
                             reaped (to its process group too when it has its own); 0: none,
                             dispose only closes our ends and waits */
    const char *what;     /* for messages: "cannot start WHAT"; NULL: the program's name */
};

/* A started child. Declare it CP_CHILD_INIT (pid and fds -1); a struct left {0} is taken as
 * never started too (no child's pid is 0), so cleanup_child is safe on either. in, out and err
 * are our ends of CP_STDIO_PIPE or CP_STDIO_SOCKET streams (close-on-exec), else -1; take one
 * over with steal_fd(&child.out). */
struct cp_child {
    pid_t pid;
    int in, out, err;
    int stop_signal; /* from the options */
    bool own_group;  /* it leads a process group (new_session or new_group) */
    bool reaped;
    int wait_status; /* waitpid's status once reaped */
};
#define CP_CHILD_INIT ((struct cp_child){.pid = -1, .in = -1, .out = -1, .err = -1})

/* Starts argv (NULL-terminated; argv[0] is the child's $0) with opts (NULL: all defaults) into
 * *out, which must be empty. Everything is allocated before the fork: the child runs only
 * async-signal-safe calls (dup2, setsid, chdir, close_range, sigaction, execve), so this is
 * safe from a threaded process. Flush stdout first when the child writes to ours and order
 * matters. A program that cannot be executed (not found, not allowed) is no error here: the
 * child exits 127, as a shell's does. Errors: CP_ERR_FAILED "cannot make a pipe for WHAT",
 * "cannot make a socket pair for WHAT", "cannot start WHAT" (errno kept); nothing is left open
 * or running then. */
int cp_spawn(char *const *argv, const struct cp_spawn_opts *opts, struct cp_child *out,
             cp_error_t *err);

/* Closes our end of its standard input (if any: a child reading it sees the end), then waits
 * for the child to end, retrying on EINTR. *status_out (may be NULL) gets waitpid's status
 * (WIFEXITED, WEXITSTATUS, WTERMSIG, or cp_wait_status_code). Once reaped, it returns the
 * same status again. Error: CP_ERR_FAILED "cannot wait for WHAT" (errno kept). */
/* This very program (/proc/self/exe) run as `PROGRAM SUB`, in a session of its own with stdout
 * and stderr on /dev/null, reading input (len bytes) on its stdin, and never waited for: it
 * outlives us, and whoever takes our orphans reaps it. Started through posix_spawn, whose
 * vfork-like start copies none of our page tables, so the caller can end at once (a fork of
 * this process, with its ~50 shared libraries, and the faults after it cost it ~10 ms here). */
int cp_spawn_self_behind(const char *sub, const void *input, size_t len, cp_error_t *err);

int cp_child_wait(struct cp_child *c, int *status_out, cp_error_t *err);
/* The same without blocking: 1 when it has ended (*status_out set), 0 while it runs. */
int cp_child_try_wait(struct cp_child *c, int *status_out, cp_error_t *err);
/* Sends sig to the child, and to its process group when it has its own; nothing once it is
 * reaped (its pid may be another process's by then). */
void cp_child_kill(struct cp_child *c, int sig);

/* Closes our ends of its streams; unless reaped: sends stop_signal (if set) as
 * cp_child_kill does, then waits for it, however long it takes (a child that neither ends at
 * the end of its input nor has a stop_signal blocks here). Leaves *c empty. Never fails. */
void cp_child_dispose(struct cp_child *c);
#define cleanup_child __attribute__((cleanup(cp_child_dispose)))

/* A shell's exit code for a waitpid status: the exit status, or 128 + the signal's number. */
int cp_wait_status_code(int wait_status);

/* A copy of this process's environment for opts.env: without the entries that start with any
 * of drop (NULL-terminated, e.g. "GIT_DIR=" or "LD_"; NULL: none), then add's "NAME=value"
 * entries appended (NULL: none). Appended to *out (its strings are copies). */
void cp_spawn_env(struct cp_strvec *out, const char *const *drop, const char *const *add);

#endif
