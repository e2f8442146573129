/* `run`: resolve the request, prepare the place, run the command there, pass its status on. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "places/place.h"
#include "src/command.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/run-report.h"
#include "src/base/settings.h"
#include "src/base/signals.h"
#include "src/base/util.h"

#define DEFAULT_PLACE "container"

static const struct cp_option options[] = {
    {"place", 0, "PLACE", "container | ssh:HOST | cloud (default: saved, else container)"},
    {"workdir", 0, "DIR", "the work folder (default: the current directory)"},
    {"chat", 0, "ID", "whose copy or sandbox (default: from the folder's real path)"},
    {"unsealed", 0, NULL, "the command leaves the box: default network, writable .git"},
    {"engine", 0, "NAME", "docker | podman | auto (default: saved, else auto)"},
    {"image", 0, "IMAGE", "the box's image (default: saved, else the work image)"},
    {"interactive", 'i', NULL, "keep standard input open and pass it on"},
    {"hold", 0, NULL, "keep the command's changes for review (changes, land, discard)"},
    {"report", 0, "FILE", "write one JSON object about the run (docs/run-report.schema.json)"},
    {0},
};

extern const struct cp_command cp_cmd_run;

static int check_engine(const char *engine, cp_error_t *err)
{
    if (engine == NULL || strcmp(engine, "docker") == 0 || strcmp(engine, "podman") == 0 ||
        strcmp(engine, "auto") == 0)
        return 0;
    return cp_error_make(err, CP_ERR_USAGE, 0, "--engine '%s' is not docker, podman or auto",
                         engine);
}

/* The chat id derived from the folder: stable per folder, free of path characters. */
static char *derive_chat(const char *workdir)
{
    return cp_folder_key(workdir);
}

/* ADR 0106: only the container keeps the seal. Said under -v, and always when --unsealed
 * asked for what is so anyway. */
static void say_no_seal(const char *place, bool unsealed_asked)
{
    if (unsealed_asked)
        cp_say("--unsealed changes nothing at %s: it does not seal, so the command runs with its "
               "network and files as they are either way",
               place);
    else
        cp_debug("%s does not seal: the command runs with its network and files as they are "
                 "(only --place container seals)",
                 place);
}

static int run_request(const struct cp_parsed *args, cp_error_t *err)
{
    const struct cp_command *c = &cp_cmd_run;
    if (args->nrest == 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "run needs a command after --");
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0) {
        (*err)->code = CP_ERR_FAILED; /* a bad config.json is the place failing: 125 */
        return CP_ERR_FAILED;
    }
    if (check_engine(cp_arg(args, c, "engine"), err) < 0)
        return cp_error_code(err);
    const char *place = cp_arg(args, c, "place");
    if (place == NULL)
        place = cp_config_get(&cfg, "place") ? cp_config_get(&cfg, "place") : DEFAULT_PLACE;
    cp_run_report_set("place", place);
    const struct cp_place_ops *ops = cp_place_find(place, err);
    cleanup_free char *workdir = NULL;
    if (ops == NULL || cp_workdir_resolve(cp_arg(args, c, "workdir"), &workdir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *chat =
        cp_arg(args, c, "chat") ? xstrdup(cp_arg(args, c, "chat")) : derive_chat(workdir);
    struct cp_run_request req = {
        .place = place,
        .argv = args->rest,
        .workdir = workdir,
        .chat = chat,
        .sealed = cp_arg(args, c, "unsealed") == NULL,
        .interactive = cp_arg(args, c, "interactive") != NULL,
        .hold = cp_arg(args, c, "hold") != NULL,
        .engine = cp_arg(args, c, "engine"),
        .image = cp_arg(args, c, "image"),
        .config = &cfg,
    };
    if (!ops->seals)
        say_no_seal(place, !req.sealed);
    /* Only a box's layer can be held: a far copy's changes come back through the mirror. */
    if (req.hold && (!ops->seals || !req.sealed)) {
        cp_error_make(err, CP_ERR_FAILED, 0, "--hold keeps a sealed box's changes, and %s",
                      !ops->seals
                          ? "this place has no box: its changes come back through the mirror"
                          : "--unsealed binds the folder itself: nothing is held");
        cp_error_hint(err, "Run with --place container and without --unsealed, or without --hold.");
        return CP_ERR_FAILED;
    }
    cp_run_report_set("workdir", workdir);
    cp_run_report_set("chat", chat);
    void *state = NULL;
    int status = 0;
    int r = ops->prepare(&req, &state, err);
    cp_run_report_stage("prepare");
    if (r == 0) {
        r = ops->run(state, &req, &status, err);
        cp_run_report_stage("command");
        ops->release(state);
    }
    /* Stopped by the person while the place was being made ready: nothing of it is left. */
    if (r == CP_ERR_INTERRUPTED && cp_signals_caught() != 0) {
        cp_error_free(err);
        return 128 + cp_signals_caught();
    }
    if (r < 0)
        cp_error_hint(err, "Run 'conch-place doctor --place %s' to check the place end to end.",
                      place);
    return r < 0 ? r : status;
}

/* The report is written however the run ended: the place's failures (125) too. */
static int run_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const char *report = cp_arg(args, &cp_cmd_run, "report");
    if (report != NULL && cp_run_report_start(report, err) < 0)
        return cp_error_code(err);
    int status = run_request(args, err);
    cp_run_report_exit(status < 0 ? 125 : status, status < 0 ? "place" : "command", err);
    cleanup_error cp_error_t werr = NULL;
    if (cp_run_report_finish(&werr) < 0)
        cp_say("%s", werr->msg);
    return status;
}

const struct cp_command cp_cmd_run = {
    .name = "run",
    .synopsis = "[OPTIONS] -- COMMAND [ARG...]",
    .summary = "run one command in a sealed work place; its exit status is passed on",
    .options = options,
    .handler = run_handler,
    .failure_status = 125,
    .stop_at_positional = 1,
};
