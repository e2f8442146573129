/* `relay serve|ticket|run`: the loopback door for assistants that run their own shell
 * (relay/). serve opens it, ticket mints a single-use ticket through its control socket and
 * prints the runner's URL, run is the runner. Each has its own option table. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "places/place.h"
#include "relay/relay.h"
#include "src/base/buf.h"
#include "src/base/log.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"
#include "src/command.h"
#include "src/run/run.h"

static const struct cp_option serve_options[] = {
    {"place", 0, "PLACE", "container | ssh:HOST | cloud (default: saved, else container)"},
    {"workdir", 0, "DIR", "the work folder (default: the current directory)"},
    {"exit-with", 0, "PID", "close when this process ends (a turn's lifetime)"},
    {"idle", 0, "SECONDS", "close after this long without a request or a run (default 1800)"},
    {"max-runs", 0, "N", "runs at once; more are refused busy (default 8, at most 64)"},
    {"detach", 0, NULL, "print the line, then serve in the background"},
    {0},
};

static const struct cp_option ticket_options[] = {
    {"socket", 0, "PATH", "the door's control socket (default: this folder's door)"},
    {"workdir", 0, "DIR", "the folder whose door to use (default: the current directory)"},
    {"timeout", 0, "SECONDS", "how long the ticket is good, 1 to 1800 (default 1800)"},
    {"file", 0, NULL,
     "print the path of a new file only you can read that holds the URL, so no "
     "command line shows the ticket (give it to 'relay run --file')"},
    {0},
};

static const struct cp_option run_options[] = {
    {"file", 0, "PATH", "read the URL from this file (yours, closed to others; removed once read)"},
    {0},
};
static const struct cp_option exec_options[] = {{0}};
static const struct cp_option hook_options[] = {{0}};
static const struct cp_option relay_options[] = {{0}};

static int serve_handler(const struct cp_parsed *args, cp_error_t *err);
static int ticket_handler(const struct cp_parsed *args, cp_error_t *err);
static int run_handler(const struct cp_parsed *args, cp_error_t *err);
static int exec_handler(const struct cp_parsed *args, cp_error_t *err);
static int hook_handler(const struct cp_parsed *args, cp_error_t *err);

static const struct cp_command serve_cmd = {
    .name = "relay serve",
    .options = serve_options,
    .handler = serve_handler,
    .failure_status = 1,
};
static const struct cp_command ticket_cmd = {
    .name = "relay ticket",
    .options = ticket_options,
    .handler = ticket_handler,
    .failure_status = 1,
    .stop_at_positional = 1,
};
static const struct cp_command run_cmd = {
    .name = "relay run",
    .options = run_options,
    .handler = run_handler,
    .failure_status = 125,
};

/* Claude Code's PreToolUse hook (relay/hook.h): its JSON call in, its answer out; on any
 * failure one line and status 2, which blocks the call. */
static const struct cp_command hook_cmd = {
    .name = "relay hook",
    .options = hook_options,
    .handler = hook_handler,
    .failure_status = 2,
};

/* Internal: the door's run process (relay/conn.c), started ahead of need. */
static const struct cp_command exec_cmd = {
    .name = "relay exec",
    .options = exec_options,
    .handler = exec_handler,
    .failure_status = 125,
};

static int real_folder(const char *asked, char **out, cp_error_t *err)
{
    const char *dir = asked != NULL ? asked : ".";
    char *real = realpath(dir, NULL);
    if (real == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used", dir);
    *out = real;
    return 0;
}

static int number(const char *s, const char *what, long min, long max, long dflt, long *out,
                  cp_error_t *err)
{
    *out = dflt;
    if (s != NULL && cp_parse_long(s, min, max, out) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s '%s' is not a number from %ld to %ld", what,
                             s, min, max);
    return 0;
}

static int serve_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &serve_cmd;
    if (args->nrest != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "relay serve takes no arguments");
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0)
        return cp_error_code(err);
    const char *place = cp_arg(args, c, "place");
    if (place == NULL)
        place = cp_config_get(&cfg, "place") ? cp_config_get(&cfg, "place") : "container";
    struct cp_relay_serve_opts o = {.place = place, .detach = cp_arg(args, c, "detach") != NULL};
    long pid = 0, runs = 0;
    cleanup_free char *workdir = NULL;
    if (cp_place_find(place, err) == NULL ||
        real_folder(cp_arg(args, c, "workdir"), &workdir, err) < 0 ||
        number(cp_arg(args, c, "exit-with"), "--exit-with", 1, 1L << 22, 0, &pid, err) < 0 ||
        number(cp_arg(args, c, "idle"), "--idle", 1, 86400, CP_RELAY_IDLE_DEFAULT, &o.idle, err) <
            0 ||
        number(cp_arg(args, c, "max-runs"), "--max-runs", 1, CP_RELAY_RUNS_MAX,
               CP_RELAY_RUNS_DEFAULT, &runs, err) < 0)
        return cp_error_code(err);
    o.workdir = workdir;
    o.exit_with = (pid_t)pid;
    o.max_runs = (int)runs;
    return cp_relay_serve(&o, err) < 0 ? cp_error_code(err) : 0;
}

static int ticket_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &ticket_cmd;
    if (args->nrest == 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "relay ticket needs a command after --");
    long ttl = 0;
    if (number(cp_arg(args, c, "timeout"), "--timeout", 1, CP_TICKET_TTL_MAX, CP_TICKET_TTL_MAX,
               &ttl, err) < 0)
        return cp_error_code(err);
    cleanup_free char *folder = NULL;
    cleanup_free char *path = NULL;
    const char *socket = cp_arg(args, c, "socket");
    if (socket == NULL || cp_arg(args, c, "workdir") != NULL)
        if (real_folder(cp_arg(args, c, "workdir"), &folder, err) < 0)
            return cp_error_code(err);
    if (socket == NULL && cp_relay_folder_path(folder, ".sock", &path, err) < 0)
        return cp_error_code(err);
    cleanup_free char *url = NULL;
    if (cp_relay_mint(socket != NULL ? socket : path, folder, ttl, args->rest, &url, err) < 0)
        return cp_error_code(err);
    cleanup_free char *file = NULL;
    int r = cp_arg(args, c, "file") != NULL ? cp_relay_url_file_write(url, &file, err) : 0;
    if (r == 0)
        printf("%s\n", file != NULL ? file : url);
    explicit_bzero(url, strlen(url));
    if (r < 0)
        return r;
    return fflush(stdout) == 0 ? 0 : cp_error_make(err, CP_ERR_FAILED, errno, "cannot print");
}

/* The URL from --file, standard input (-), or the argument, whose bytes in this process's
 * argv (public in /proc) are wiped once copied: the runner may wait minutes on a busy door. */
static int runner_url(const struct cp_parsed *args, char **out, cp_error_t *err)
{
    const char *file = cp_arg(args, &run_cmd, "file");
    if ((file != NULL) == (args->nrest == 1))
        return cp_error_make(err, CP_ERR_USAGE, 0, "relay run takes one URL, '-' or --file PATH");
    if (file != NULL)
        return cp_relay_url_file_take(file, out, err);
    if (strcmp(args->rest[0], "-") == 0)
        return cp_relay_url_read(STDIN_FILENO, out, err);
    *out = xstrdup(args->rest[0]);
    explicit_bzero(args->rest[0], strlen(args->rest[0]));
    return 0;
}

static int run_handler(const struct cp_parsed *args, cp_error_t *err)
{
    cleanup_free char *url = NULL;
    if (runner_url(args, &url, err) < 0)
        return cp_error_code(err);
    int status = 0;
    int r = cp_relay_runner(url, &status, err);
    explicit_bzero(url, strlen(url));
    if (r < 0) {
        (*err)->code = CP_ERR_FAILED; /* a refused or broken run is the place failing: 125 */
        return CP_ERR_FAILED;
    }
    return status;
}

/* The door's run process: it waits (its libraries loaded) for one run's place, folder and
 * command on standard input, then asks the run step for it, with main()'s words and 125 on
 * failure. Standard input is /dev/null for the command. */
static int exec_handler(const struct cp_parsed *args, cp_error_t *err)
{
    (void)args;
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    if (cp_relay_msg_recv_wait(STDIN_FILENO, &b, -1) < 0 || b.len == 0)
        return 0; /* the door closed without a run: nothing to do */
    cleanup_free const char **v = NULL;
    ssize_t n = cp_relay_msg_split(&b, &v);
    if (n < 3)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the door's run message is malformed");
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "no /dev/null for the command's input");
    close(null);
    const struct cp_run_ask ask = {.place = v[0], .workdir = v[1], .argv = (char *const *)&v[2]};
    int status = cp_run(&ask, err);
    if (status >= 0)
        return status;
    cp_error_print(err);
    return 125;
}

static int hook_handler(const struct cp_parsed *args, cp_error_t *err)
{
    (void)err;
    if (args->nrest != 0) {
        fprintf(stderr, "conch-place relay hook: takes no arguments. Nothing was run.\n");
        return 2;
    }
    return cp_relay_hook();
}

static const struct cp_command *const subs[] = {&serve_cmd, &ticket_cmd, &run_cmd, &exec_cmd,
                                                &hook_cmd};

static int relay_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest == 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "relay needs serve, ticket, run or hook");
    for (size_t i = 0; i < ARRAY_SIZE(subs); i++) {
        if (strcmp(subs[i]->name + strlen("relay "), args->rest[0]) != 0)
            continue;
        struct cp_parsed sub;
        int r = cp_command_parse(subs[i], args->nrest, args->rest, &sub, err);
        if (r == 0)
            r = subs[i]->handler(&sub, err);
        free(sub.rest);
        /* the runner's failures are all 125, as run's are; serve's and ticket's are 1 */
        if (r < 0 && subs[i]->failure_status == 125) {
            cp_error_print(err);
            return 125;
        }
        return r;
    }
    return cp_error_make(err, CP_ERR_USAGE, 0, "relay: '%s' is not serve, ticket, run or hook",
                         args->rest[0]);
}

const struct cp_command cp_cmd_relay = {
    .name = "relay",
    .synopsis = "serve [--place P] [--workdir DIR] [--exit-with PID] [--idle S] [--max-runs N] "
                "[--detach] | ticket [--socket PATH] [--workdir DIR] [--timeout S] [--file] -- "
                "COMMAND [ARG...] | run URL|-|--file PATH | hook",
    .summary = "the loopback door for assistants that run their own shell (single-use tickets)",
    .options = relay_options,
    .handler = relay_handler,
    .failure_status = 1,
    .stop_at_positional = 1,
};
