/* The door's life: a random port on 127.0.0.1 and the control socket, one JSON line to say
 * where they are, a thread per connection (bounded), and the end: when the --exit-with process
 * ends (pidfd_open, else polling), on SIGTERM, SIGINT or SIGHUP, or after the idle time. At the
 * end every run still going is stopped the way Ctrl-C stops `run` (its box removed) and waited
 * for, and the socket is removed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "relay/door-int.h"
#include "relay/peer.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

#define STOP_WAIT_S 60 /* at the end, how long the runs still going get to remove their boxes */

static int listen_loopback(unsigned *port_out, cp_error_t *err)
{
    cleanup_close int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 128) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open a port on 127.0.0.1");
    *port_out = ntohs(a.sin_port);
    return steal_fd(&fd);
}

/* This folder's socket when no other door holds it (the lock), else one of this door's own. */
static int control_path(const char *workdir, int *lock_out, char **out, cp_error_t *err)
{
    cleanup_free char *lock_path = NULL;
    if (cp_relay_folder_path(workdir, ".lock", &lock_path, err) < 0)
        return cp_error_code(err);
    cleanup_close int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0) {
        *lock_out = steal_fd(&lock);
        return cp_relay_folder_path(workdir, ".sock", out, err);
    }
    char suffix[48];
    snprintf(suffix, sizeof(suffix), "-%ld.sock", (long)getpid());
    return cp_relay_folder_path(workdir, suffix, out, err);
}

/* The one line that says where the door is: {"port":P,"socket":"PATH","pid":N}. */
static void print_line(unsigned port, const char *socket_path, pid_t pid)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "port", json_object_new_int((int)port));
    json_object_object_add(o, "socket", json_object_new_string(socket_path));
    json_object_object_add(o, "pid", json_object_new_int64((int64_t)pid));
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    fflush(stdout);
    json_object_put(o);
}

/* The background door: the parent prints the line (the door is already listening) and
 * leaves; the child carries on without a terminal. Returns 1 in the parent. */
static int detach(unsigned port, const char *socket_path, cp_error_t *err)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot start the door in the background");
    if (pid > 0) {
        print_line(port, socket_path, pid);
        return 1;
    }
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }
    return 0;
}

/* A descriptor that becomes readable when pid ends, or -1 (then it is polled). */
static int watch_pid(pid_t pid, cp_error_t *err)
{
    if (kill(pid, 0) < 0 && errno == ESRCH)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--exit-with %ld: no such process", (long)pid);
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        fcntl((int)fd, F_SETFD, FD_CLOEXEC);
        return (int)fd;
    }
#endif
    return -1;
}

/* The 403 for a TCP peer whose socket is not this door's uid's (another user of this computer
 * may have read a ticket in a process list), or 0 for our own. */
static size_t peer_refusal(int fd, char *answer, size_t size)
{
    uid_t uid = 0;
    cleanup_error cp_error_t err = NULL;
    if (cp_relay_tcp_peer_uid(fd, &uid, &err) < 0) {
        cp_debug("relay: a connection's owner is unknown: %s", err->msg);
        return cp_relay_refusal(answer, size, 403,
                                "the door cannot tell whose connection this is; refused");
    }
    if (uid == geteuid())
        return 0;
    cp_debug("relay: a connection of uid %ld refused", (long)uid);
    return cp_relay_refusal(answer, size, 403, "this door serves only its own user's connections");
}

/* A place in the budget of the port or of the control socket, each its own. */
static bool take_budget(struct door *d, bool control)
{
    pthread_mutex_lock(&d->lock);
    int *count = control ? &d->control_conns : &d->conns;
    bool room = *count < (control ? CP_RELAY_CONTROL_MAX : CP_RELAY_CONNS_MAX);
    if (room)
        (*count)++;
    d->last_activity = cp_relay_now_s();
    pthread_mutex_unlock(&d->lock);
    return room;
}

/* Who may come in, decided in the loop before a thread or a budget is spent: only this door's
 * own uid, and only while its side's budget lasts; a full one is answered (503, or the control
 * socket's "no"), not closed. Returns false when fd was turned away. */
static bool admit(struct door *d, int fd, bool control)
{
    if (control && !cp_unix_peer_is_us(fd)) {
        close(fd); /* the socket is 0600 in a 0700 folder: this is no mistake of ours */
        return false;
    }
    char answer[512];
    size_t len = control ? 0 : peer_refusal(fd, answer, sizeof(answer));
    if (len == 0 && take_budget(d, control))
        return true;
    if (len == 0 && control)
        len = cp_relay_control_refusal(answer, sizeof(answer),
                                       "the door has too many requests at once; try again");
    else if (len == 0)
        len = cp_relay_refusal(answer, sizeof(answer), 503,
                               "the door has too many connections at once; try again");
    cp_turnaway_add(&d->turned, fd, answer, len);
    return false;
}

/* Starts a connection's thread with the stop signals blocked in it (the loop takes them). */
static void start_conn(struct door *d, int fd, bool control)
{
    if (!admit(d, fd, control))
        return;
    int one = 1;
    if (!control)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    struct conn *c = xcalloc(1, sizeof(*c));
    *c = (struct conn){.door = d, .fd = fd, .control = control};
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    pthread_t t;
    int r = pthread_create(&t, &at, cp_relay_conn_main, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&at);
    if (r != 0) {
        close(fd);
        free(c);
        cp_relay_conn_gone(d, control);
    }
}

static bool idle_over(struct door *d, long idle)
{
    pthread_mutex_lock(&d->lock);
    bool over =
        d->conns == 0 && d->control_conns == 0 && cp_relay_now_s() - d->last_activity >= idle;
    pthread_mutex_unlock(&d->lock);
    return over;
}

/* Serves until a reason to close; says which under -v. */
static void serve_loop(struct door *d, int tcp, int ctl, pid_t exit_with, int pidfd, long idle)
{
    int sig = cp_signals_install();
    for (;;) {
        struct pollfd p[4 + CP_TURNAWAY_MAX] = {{.fd = sig, .events = POLLIN},
                                                {.fd = tcp, .events = POLLIN},
                                                {.fd = ctl, .events = POLLIN},
                                                {.fd = pidfd, .events = POLLIN}};
        size_t turned = cp_turnaway_pollfds(&d->turned, p + 4);
        int r = poll(p, 4 + turned, turned > 0 ? 50 : 1000);
        if (r < 0 && errno != EINTR)
            break;
        if (cp_signals_caught() != 0) {
            cp_debug("relay: signal %d: closing", cp_signals_caught());
            break;
        }
        if ((pidfd >= 0 && p[3].revents != 0) ||
            (exit_with > 0 && pidfd < 0 && kill(exit_with, 0) < 0 && errno == ESRCH)) {
            cp_debug("relay: process %ld ended: closing", (long)exit_with);
            break;
        }
        cp_turnaway_serve(&d->turned, p + 4, turned);
        for (int i = 1; i <= 2; i++) {
            if (r <= 0 || p[i].revents == 0)
                continue;
            int c = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0)
                start_conn(d, c, i == 2);
        }
        if (idle_over(d, idle)) {
            cp_debug("relay: idle for %ld s: closing", idle);
            break;
        }
    }
    cp_turnaway_dispose(&d->turned);
}

/* Stops the runs still going (each removes its box) and waits for every connection; false
 * when some are still going after STOP_WAIT_S (their state must then outlive this). */
static bool close_door(struct door *d)
{
    pthread_mutex_lock(&d->lock);
    d->stopping = true;
    struct cp_child warm = d->warm;
    bool had_warm = d->have_warm;
    d->have_warm = false;
    pthread_mutex_unlock(&d->lock);
    if (had_warm)
        cp_child_dispose(&warm); /* its input ends unread: it leaves */
    pthread_mutex_lock(&d->lock);
    for (int i = 0; i < CP_RELAY_RUNS_MAX; i++)
        if (d->children[i] > 0)
            kill(d->children[i], SIGTERM);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += STOP_WAIT_S;
    while (d->conns + d->control_conns > 0)
        if (pthread_cond_timedwait(&d->changed, &d->lock, &until) == ETIMEDOUT)
            break;
    bool all = d->conns + d->control_conns == 0;
    pthread_mutex_unlock(&d->lock);
    return all;
}

int cp_relay_serve(const struct cp_relay_serve_opts *o, cp_error_t *err)
{
    cleanup_close int lock = -1;
    cleanup_free char *path = NULL;
    unsigned port = 0;
    if (control_path(o->workdir, &lock, &path, err) < 0)
        return cp_error_code(err);
    cleanup_close int tcp = listen_loopback(&port, err);
    if (tcp < 0)
        return cp_error_code(err);
    /* A stale socket at path is replaced: the lock taken in control_path makes it ours. */
    cleanup_close int ctl = cp_unix_listen(path, 0600, 64, err);
    if (ctl < 0)
        return cp_error_code(err);
    if (o->detach) {
        int r = detach(port, path, err);
        if (r != 0)
            return r < 0 ? r : 0;
    } else {
        print_line(port, path, getpid());
    }
    cleanup_close int pidfd = -1;
    if (o->exit_with > 0 && (pidfd = watch_pid(o->exit_with, err)) < 0 && *err != NULL) {
        unlink(path);
        return cp_error_code(err);
    }
    struct door *d = xcalloc(1, sizeof(*d));
    *d = (struct door){.info = {.port = port, .place = o->place, .workdir = o->workdir},
                       .max_runs = o->max_runs,
                       .last_activity = cp_relay_now_s()};
    d->info.tickets = cp_tickets_new();
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->changed, NULL);
    cp_relay_warm_refill(d);
    serve_loop(d, tcp, ctl, o->exit_with, pidfd, o->idle);
    close(steal_fd(&tcp));
    close(steal_fd(&ctl));
    unlink(path);
    if (close_door(d)) { /* else threads still use it until the process exits */
        cp_tickets_free(d->info.tickets);
        free(d);
    }
    return 0;
}
