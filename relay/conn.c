/* One connection to the door, on its own thread. A control connection mints a ticket; an HTTP
 * one is judged (relay/request.c), takes a run slot and its ticket, and is then answered by
 * `conch-place run` itself, started here with pipes for its two streams: the same place code,
 * seal, mirror, lock and words as a direct run, and no second path. When the client goes (or
 * the runner passes on Ctrl-C) the run gets the signal, removes its box and exits 130 or 143,
 * and that status still travels back if anyone is listening. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay/door-int.h"
#include "relay/frames.h"
#include "relay/request.h"
#include "src/base/buf.h"
#include "src/base/clock.h"
#include "src/base/spawn.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

#define HEAD_WAIT_MS 5000 /* the whole request head must arrive within this */
#define PIPE_CHUNK   65536

static int send_all(int fd, const void *buf, size_t len, int flags)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | flags);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads what the client still sends for a moment, so closing does not reset the connection
 * before it has read the answer. */
static void linger_close(int fd)
{
    shutdown(fd, SHUT_WR);
    char sink[4096];
    int64_t until = cp_now_ms() + 200;
    for (int left = 200; left > 0; left = cp_deadline_left_ms(until)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, left) <= 0 || recv(fd, sink, sizeof(sink), 0) <= 0)
            break;
    }
}

static void refuse(int fd, int status, const char *reason)
{
    char answer[512];
    size_t len = cp_relay_refusal(answer, sizeof(answer), status, reason);
    (void)send_all(fd, answer, len, 0);
    linger_close(fd);
}

/* Reads and judges the head; the buffer that held the ticket is wiped before this returns.
 * *early gets the first byte the client sent after the head (a runner's signal), or 0. */
static bool read_request(int fd, unsigned port, struct cp_relay_verdict *v, char *early)
{
    char head[CP_RELAY_HEAD_MAX + 1];
    size_t len = 0;
    int r = 1;
    int64_t until = cp_now_ms() + HEAD_WAIT_MS;
    while (r == 1) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = cp_deadline_left_ms(until);
        if (left <= 0 || poll(&p, 1, left) <= 0) {
            *v = (struct cp_relay_verdict){.status = 408,
                                           .reason = "the request head took too long"};
            break;
        }
        ssize_t n = recv(fd, head + len, CP_RELAY_HEAD_MAX - len, 0);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            explicit_bzero(head, len);
            return false;
        }
        len += n > 0 ? (size_t)n : 0;
        r = cp_relay_judge(head, len, port, v);
    }
    *early = v->status == 0 && len > v->head_len ? head[v->head_len] : 0;
    explicit_bzero(head, sizeof(head));
    return true;
}

static int take_slot(struct door *d)
{
    int slot = -1;
    pthread_mutex_lock(&d->lock);
    if (!d->stopping && d->runs < d->max_runs) {
        for (int i = 0; i < d->max_runs && slot < 0; i++)
            if (d->children[i] == 0)
                slot = i;
        d->children[slot] = -1; /* taken, no process yet */
        d->runs++;
    }
    pthread_mutex_unlock(&d->lock);
    return slot;
}

static void set_slot(struct door *d, int slot, pid_t pid)
{
    pthread_mutex_lock(&d->lock);
    d->children[slot] = pid;
    bool stop = d->stopping;
    pthread_mutex_unlock(&d->lock);
    if (stop && pid > 0)
        kill(pid, SIGTERM);
}

static void release_slot(struct door *d, int slot)
{
    pthread_mutex_lock(&d->lock);
    d->children[slot] = 0;
    d->runs--;
    pthread_mutex_unlock(&d->lock);
}

/* `conch-place relay exec` with a pipe on each stream; every other descriptor of the door is
 * close-on-exec. Its signals are as a fresh process's: the door's threads block the stop
 * signals, and a run must take them. */
int cp_relay_runproc_start(struct cp_child *out)
{
    static char *const argv[] = {"conch-place", "relay", "exec", NULL};
    const struct cp_spawn_opts o = {.in = {.how = CP_STDIO_PIPE},
                                    .out = {.how = CP_STDIO_PIPE},
                                    .err = {.how = CP_STDIO_PIPE},
                                    .file = "/proc/self/exe",
                                    .default_signals = true};
    cleanup_error cp_error_t err = NULL;
    return cp_spawn(argv, &o, out, &err) == 0 ? 0 : -1;
}

void cp_relay_warm_refill(struct door *d)
{
    pthread_mutex_lock(&d->lock);
    bool need = !d->have_warm && !d->stopping;
    pthread_mutex_unlock(&d->lock);
    struct cp_child rp = CP_CHILD_INIT;
    if (!need || cp_relay_runproc_start(&rp) < 0)
        return;
    pthread_mutex_lock(&d->lock);
    bool keep = !d->have_warm && !d->stopping;
    if (keep) {
        d->warm = rp;
        d->have_warm = true;
    }
    pthread_mutex_unlock(&d->lock);
    if (!keep)
        cp_child_dispose(&rp);
}

static bool claim_warm(struct door *d, struct cp_child *out)
{
    pthread_mutex_lock(&d->lock);
    bool have = d->have_warm;
    if (have) {
        *out = d->warm;
        d->have_warm = false;
    }
    pthread_mutex_unlock(&d->lock);
    return have;
}

/* Hands the run its place, folder and command, whole: a message that cannot carry them all is
 * not sent (minting refuses such a command, so this is the second line, never a silent cut). */
static int send_run(struct cp_child *rp, const struct cp_ticket *k)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    cleanup_error cp_error_t err = NULL;
    int r = cp_relay_run_msg(k->place, k->workdir, k->argv, &b, &err) == 0
                ? cp_unix_msg_send(rp->in, &b, NULL, 0)
                : -1;
    close(steal_fd(&rp->in));
    return r;
}

/* A warm runproc when there is one that takes the run, else a new one. */
static int start_run(struct door *d, const struct cp_ticket *k, struct cp_child *rp)
{
    if (claim_warm(d, rp)) {
        if (send_run(rp, k) == 0)
            return 0;
        cp_child_dispose(rp);
    }
    if (cp_relay_runproc_start(rp) < 0)
        return -1;
    if (send_run(rp, k) == 0)
        return 0;
    cp_child_dispose(rp);
    return -1;
}

struct answer {
    int fd;
    enum cp_relay_form form;
    bool gone;      /* the client cannot be written to any more */
    char last_byte; /* plain form: the last byte sent, for the status line */
    bool any;
};

static void answer_bytes(struct answer *a, enum cp_frame_type type, const char *data, size_t len)
{
    if (a->gone)
        return;
    if (a->form == CP_RELAY_FRAMES) {
        char h[CP_FRAME_HEAD];
        cp_frame_head(h, type, len);
        a->gone = send_all(a->fd, h, sizeof(h), MSG_MORE) < 0 || send_all(a->fd, data, len, 0) < 0;
        return;
    }
    if (type != CP_FRAME_OUT && type != CP_FRAME_ERR && type != CP_FRAME_FAIL)
        return;
    a->gone = send_all(a->fd, data, len, 0) < 0;
    if (len > 0) {
        a->last_byte = data[len - 1];
        a->any = true;
    }
}

/* The end of an answer: the status frame, or the plain form's last line. */
static void answer_status(struct answer *a, int status)
{
    char line[64];
    int n;
    if (a->form == CP_RELAY_FRAMES) {
        n = snprintf(line, sizeof(line), "%d", status);
        answer_bytes(a, CP_FRAME_EXIT, line, (size_t)n);
        return;
    }
    n = snprintf(line, sizeof(line), "%sconch-place: exit status %d\n",
                 a->any && a->last_byte != '\n' ? "\n" : "", status);
    answer_bytes(a, CP_FRAME_OUT, line, (size_t)n);
}

/* The client's side while the command runs: a runner's signal byte (SIGINT or SIGTERM), or
 * the end of the connection (SIGTERM). Returns the signal to pass on, or 0. */
static int client_says(int fd, char *c)
{
    ssize_t n = recv(fd, c, 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n == 1)
        return *c == SIGINT ? SIGINT : SIGTERM;
    return SIGTERM;
}

/* Passes the run's two streams on until both end; stops the run when the client asks or goes. */
static void relay_streams(struct answer *a, struct cp_child *rp, int out_r, int err_r, char early)
{
    struct pollfd p[3] = {{.fd = out_r, .events = POLLIN},
                          {.fd = err_r, .events = POLLIN},
                          {.fd = a->fd, .events = POLLIN | POLLRDHUP}};
    bool asked = false;
    if (early != 0) {
        cp_child_kill(rp, early == SIGINT ? SIGINT : SIGTERM);
        asked = true;
        p[2].fd = -1;
    }
    char *buf = xmalloc(PIPE_CHUNK);
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        if (poll(p, 3, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || p[i].revents == 0)
                continue;
            ssize_t n = read(p[i].fd, buf, PIPE_CHUNK);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                continue;
            }
            answer_bytes(a, i == 0 ? CP_FRAME_OUT : CP_FRAME_ERR, buf, (size_t)n);
        }
        char c = 0;
        int sig = p[2].fd >= 0 && p[2].revents != 0 ? client_says(a->fd, &c) : 0;
        if (a->gone && !asked)
            sig = SIGTERM;
        if (sig != 0 && !asked) {
            cp_child_kill(rp, sig);
            asked = true;
        }
        if (asked)
            p[2].fd = -1;
    }
    free(buf);
}

static int wait_status(struct cp_child *rp, struct answer *a)
{
    int ws = 0;
    cleanup_error cp_error_t err = NULL;
    (void)cp_child_wait(rp, &ws, &err); /* it is ours: only EINTR, retried, can happen */
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    char words[128];
    int n = snprintf(words, sizeof(words),
                     "conch-place: the run ended on signal %d before it could answer\n",
                     WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    answer_bytes(a, a->form == CP_RELAY_FRAMES ? CP_FRAME_FAIL : CP_FRAME_ERR, words, (size_t)n);
    return 125;
}

static void run_ticket(struct door *d, int slot, int fd, const struct cp_ticket *k,
                       enum cp_relay_form form, char early)
{
    struct answer a = {.fd = fd, .form = form};
    char head[256];
    int hlen = snprintf(head, sizeof(head),
                        "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nCache-Control: no-store\r\n"
                        "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                        form == CP_RELAY_FRAMES ? CP_RELAY_FRAMES_TYPE : "text/plain");
    a.gone = send_all(fd, head, (size_t)hlen, 0) < 0;
    cleanup_child struct cp_child rp = CP_CHILD_INIT;
    if (start_run(d, k, &rp) < 0) {
        static const char words[] = "conch-place: the door could not start conch-place run\n";
        answer_bytes(&a, form == CP_RELAY_FRAMES ? CP_FRAME_FAIL : CP_FRAME_ERR, words,
                     sizeof(words) - 1);
        answer_status(&a, 125);
        return;
    }
    set_slot(d, slot, rp.pid);
    int out_r = steal_fd(&rp.out), err_r = steal_fd(&rp.err);
    relay_streams(&a, &rp, out_r, err_r, early); /* closes both */
    answer_status(&a, wait_status(&rp, &a));
}

static void serve_http(struct door *d, int fd)
{
    struct cp_relay_verdict v;
    char early = 0;
    if (!read_request(fd, d->info.port, &v, &early))
        return;
    if (v.status != 0) {
        refuse(fd, v.status, v.reason);
        return;
    }
    int slot = take_slot(d);
    if (slot < 0) {
        refuse(fd, 503, "the door is busy (its runs at once are all taken); try again");
        return;
    }
    struct cp_ticket *k = NULL;
    enum cp_ticket_state st = cp_tickets_take(d->info.tickets, v.ticket_hash, cp_tickets_now(), &k);
    if (st != CP_TICKET_GOOD) {
        release_slot(d, slot);
        refuse(fd, st == CP_TICKET_UNKNOWN ? 404 : 410,
               st == CP_TICKET_USED      ? "this ticket was already used"
               : st == CP_TICKET_EXPIRED ? "this ticket has expired"
                                         : "no such ticket");
        return;
    }
    run_ticket(d, slot, fd, k, v.form, early);
    cp_ticket_free(k);
    release_slot(d, slot);
}

void cp_relay_conn_gone(struct door *d, bool control)
{
    pthread_mutex_lock(&d->lock);
    if (control)
        d->control_conns--;
    else
        d->conns--;
    d->last_activity = cp_relay_now_s();
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
}

void *cp_relay_conn_main(void *arg)
{
    struct conn *c = arg;
    struct door *d = c->door;
    bool control = c->control;
    if (!control)
        serve_http(d, c->fd);
    else
        cp_relay_control_serve(c->fd, &d->info); /* its peer was checked before (door.c) */
    close(c->fd);
    if (!control)
        cp_relay_warm_refill(d); /* after the answer: the next run's process, off its path */
    free(c);
    cp_relay_conn_gone(d, control);
    return NULL;
}
