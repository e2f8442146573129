/* A self-pipe: the handler only records the signal and writes one byte. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/signals.h"

static int pipe_fds[2] = {-1, -1};
static volatile sig_atomic_t caught = 0;
static int64_t caught_at_ms;

static void on_signal(int sig)
{
    int saved = errno;
    if (caught == 0) {
        caught_at_ms = cp_now_ms(); /* async-signal-safe: clock_gettime only */
        caught = sig;
    }
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
    /* No SA_RESTART: a read or write blocked in the kernel returns EINTR, so the loop around it
     * sees the signal instead of waiting on a peer that may never move. */
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

long cp_signals_since_ms(void)
{
    if (caught == 0)
        return -1;
    return (long)(cp_now_ms() - caught_at_ms);
}
