/* A self-pipe: the handler only records the signal and writes one byte. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "src/base/signals.h"

static int pipe_fds[2] = {-1, -1};
static volatile sig_atomic_t caught = 0;

static void on_signal(int sig)
{
    int saved = errno;
    if (caught == 0)
        caught = sig;
    if (pipe_fds[1] >= 0)
        (void)!write(pipe_fds[1], "x", 1);
    errno = saved;
}

int cp_signals_install(void)
{
    if (pipe_fds[0] >= 0)
        return pipe_fds[0];
    if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return pipe_fds[0];
}

int cp_signals_caught(void)
{
    return caught;
}
