/* `net-hold` (internal): the process of a folder's network holder box (places/container/
 * sidecar-hold.c). It does nothing but be there: the box's network namespace, on the folder's
 * internal network, is what the folder's fresh sealed boxes join, so that the engine sets up no
 * endpoint per box. It lives in its sidecar's PID namespace, so it leaves when the sidecar does
 * (idle, replaced or cleaned), and the kernel ends it then; a TERM ends it at once. */
#include "config.h"

#include <signal.h>
#include <unistd.h>

#include "src/command.h"

extern const struct cp_command cp_cmd_net_hold;

static const struct cp_option options[] = {
    {0},
};

static int hold_handler(const struct cp_parsed *args, cp_error_t *err)
{
    (void)args;
    (void)err;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sig = 0;
    sigwait(&set, &sig);
    return 0;
}

const struct cp_command cp_cmd_net_hold = {
    .name = "net-hold",
    .synopsis = "",
    .summary = "(internal) run in a holder box: holds a folder's network namespace",
    .options = options,
    .handler = hold_handler,
    .failure_status = 1,
};
