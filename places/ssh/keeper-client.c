/* The keeper's client: a run that finds the host's keeper hands it the whole run (its
 * request, its standard streams) and waits for the answer, passing a signal on as one byte
 * (keeper.c says how the keeper serves it). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/ssh/keeper-client.h"
#include "places/ssh/keeper-wire.h"
#include "places/ssh/keeper-request.h"
#include "src/base/buf.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

#define ACK_WAIT_MS 300 /* a keeper busy with another run longer than this: go alone */

/* Starts `conch-place ssh-keeper ALIAS`, detached, its streams on /dev/null. */
void cp_ssh_keeper_spawn(const char *alias)
{
    pid_t pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        closefrom(3);
        execl("/proc/self/exe", "conch-place", "ssh-keeper", alias, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
}

int cp_ssh_keeper_reach(const struct cp_ssh_host *h, int *fd_out)
{
    *fd_out = -1;
    const char *use = getenv("CONCH_SSH_KEEPER");
    if (use != NULL && strcmp(use, "0") == 0)
        return -1;
    cleanup_free char *path = cp_ssh_keeper_path(h, ".sock");
    if (path == NULL)
        return -1;
    cleanup_error cp_error_t e = NULL;
    cleanup_close int fd = cp_unix_connect(path, &e);
    if (fd < 0) {
        cp_debug("ssh:%s: no keeper (%s); going alone", h->alias, strerror(e->sys_errno));
        return 1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char ack = 0;
    if (!cp_unix_peer_is_us(fd) || poll(&p, 1, ACK_WAIT_MS) <= 0 || read(fd, &ack, 1) != 1 ||
        ack != 'K') {
        cp_debug("ssh:%s: the keeper is busy or gone; going alone", h->alias);
        return -1;
    }
    cp_debug("ssh:%s: the keeper serves this run", h->alias);
    *fd_out = steal_fd(&fd);
    return 0;
}

int cp_ssh_keeper_run(int fd, const struct cp_run_request *req, int *status_out, cp_error_t *err)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, KEEPER_MAX_MSG - 1);
    if (cp_ssh_request_encode(req, cp_log_verbose > 0, &b, err) < 0)
        return cp_error_code(err);
    int fds[3] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
    if (cp_unix_msg_send(fd, &b, fds, 3) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot hand the run to the ssh keeper");
    int stop_fd = cp_signals_install();
    for (bool asked = false;;) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
        if (poll(p, asked ? 1 : 2, -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents != 0)
            break;
        if (!asked && p[1].revents != 0) {
            char sig = (char)cp_signals_caught();
            asked = write(fd, &sig, 1) == 1;
        }
    }
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, KEEPER_MAX_MSG);
    cleanup_free const char **v = NULL;
    struct cp_unix_recv how = {.max = KEEPER_MAX_MSG};
    if (cp_unix_msg_recv(fd, &r, &how) < 0 || cp_unix_msg_split(&r, &v) != 6)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the ssh keeper ended during the run");
    long rc = 0, status = 0, code = 0, sys = 0;
    if (cp_parse_long(v[0], -1000, 0, &rc) < 0 || cp_parse_long(v[1], 0, 255, &status) < 0 ||
        cp_parse_long(v[2], -1000, 1000, &code) < 0 || cp_parse_long(v[3], 0, 4096, &sys) < 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the ssh keeper answered nonsense");
    if (rc == 0) {
        *status_out = (int)status;
        return 0;
    }
    cp_error_make(err, (int)code, (int)sys, "%s", v[4]);
    if (v[5][0] != '\0')
        cp_error_hint(err, "%s", v[5]);
    return cp_error_code(err);
}
