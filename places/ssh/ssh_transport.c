/* The byte streams a session rides on: a TCP connection with a time limit, a ProxyCommand
 * run by /bin/sh over a socket pair, or a direct-tcpip channel of a ProxyJump hop. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/ssh/ssh_session_int.h"
#include "src/base/util.h"

static int connect_one(const struct addrinfo *ai, long timeout, int *fd_out)
{
    cleanup_close int fd =
        socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0)
        return -errno;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)
        return -errno;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int r = poll(&p, 1, (int)(timeout * 1000));
    if (r == 0)
        return -ETIMEDOUT;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        return -errno;
    if (soerr != 0)
        return -soerr;
    int flags = fcntl(fd, F_GETFL);
    int on = 1;
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) < 0)
        return -errno;
    /* A run is a chain of small requests (a channel, its command, a lock's answer): with
     * Nagle each waited for the last one's acknowledgement, which the far side delays up to
     * 40 ms. Best effort: a socket without it is only slower. */
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    *fd_out = steal_fd(&fd);
    return 0;
}

int ssh_transport_tcp(const char *host, long port, long timeout, int *fd_out, cp_error_t *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    char service[16];
    snprintf(service, sizeof(service), "%ld", port);
    int g = getaddrinfo(host, service, &hints, &res);
    if (g != 0)
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "cannot resolve %s: %s", host,
                             gai_strerror(g));
    int last = -EHOSTUNREACH;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next)
        if ((last = connect_one(ai, timeout, fd_out)) == 0)
            break;
    freeaddrinfo(res);
    if (last == -ETIMEDOUT)
        return cp_error_make(err, CP_ERR_TIMEOUT, 0, "%s port %ld did not answer within %ld s",
                             host, port, timeout);
    if (last < 0)
        return cp_error_make(err, CP_ERR_UNREACHABLE, -last, "cannot connect to %s port %ld", host,
                             port);
    return 0;
}

/* The child: the socket on its stdin and stdout, stderr kept, then /bin/sh -c command. */
static void exec_proxy(int fd, const char *command)
{
    if (dup2(fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0)
        _exit(127);
    if (fd > STDERR_FILENO)
        close(fd);
    signal(SIGPIPE, SIG_DFL);
    execl("/bin/sh", "sh", "-c", command, (char *)NULL);
    _exit(127);
}

int ssh_transport_command(const char *command, int *fd_out, pid_t *pid_out, cp_error_t *err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a socket pair");
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot start the ProxyCommand");
    }
    if (pid == 0) {
        close(sv[0]);
        exec_proxy(sv[1], command);
    }
    close(sv[1]);
    *fd_out = sv[0];
    *pid_out = pid;
    return 0;
}

void ssh_proxy_reap(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}
