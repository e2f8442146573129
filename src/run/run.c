/* The run step (src/run/run.h): the request resolved from the saved settings, the place found
 * and readied, the command run there, its status passed on, the report written. */
#include "config.h"

#include <string.h>

#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/places-list.h"
#include "src/base/report.h"
#include "src/base/settings/settings.h"
#include "src/base/signals.h"
#include "src/base/util.h"
#include "src/run/run.h"

static int check_engine(const char *engine, cp_error_t *err)
{
    if (engine == NULL || cp_engine_name_known(engine))
        return 0;
    return cp_error_make(err, CP_ERR_USAGE, 0, "--engine '%s' is not " CP_ENGINE_WORDS, engine);
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

/* Only a box's layer can be held: a far copy's changes come back through the mirror. */
static int check_hold(const struct cp_run_request *req, bool seals, cp_error_t *err)
{
    if (!req->hold || (seals && req->sealed))
        return 0;
    cp_error_make(err, CP_ERR_FAILED, 0, "--hold keeps a sealed box's changes, and %s",
                  !seals ? "this place has no box: its changes come back through the mirror"
                         : "--unsealed binds the folder itself: nothing is held");
    cp_error_hint(err, "Run with --place container and without --unsealed, or without --hold.");
    return CP_ERR_FAILED;
}

int cp_run_resolved(const struct cp_run_request *req, cp_error_t *err)
{
    const struct cp_place_ops *ops = cp_place_find(req->place, err);
    if (ops == NULL)
        return cp_error_code(err);
    if (!ops->seals && req->kept == NULL) /* a kept connection's caller has said it */
        say_no_seal(req->place, !req->sealed);
    if (check_hold(req, ops->seals, err) < 0)
        return cp_error_code(err);
    cp_run_report_set("workdir", req->workdir);
    cp_run_report_set("chat", req->chat);
    void *state = NULL;
    int status = 0;
    int r = ops->prepare(req, &state, err);
    cp_run_report_stage("prepare");
    if (r == 0) {
        r = ops->run(state, req, &status, err);
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
                      req->place);
    return r < 0 ? r : status;
}

/* The ask resolved against the saved settings, then run. */
static int resolve_and_run(const struct cp_run_ask *ask, cp_error_t *err)
{
    if (ask->argv == NULL || ask->argv[0] == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "run needs a command after --");
    cleanup_config struct cp_config cfg = {0};
    if (cp_config_load(&cfg, err) < 0) {
        (*err)->code = CP_ERR_FAILED; /* a bad config.json is the place failing: 125 */
        return CP_ERR_FAILED;
    }
    if (check_engine(ask->engine, err) < 0)
        return cp_error_code(err);
    const char *place = ask->place;
    if (place == NULL)
        place = cp_config_get(&cfg, "place") ? cp_config_get(&cfg, "place") : CP_PLACE_DEFAULT;
    cp_run_report_set("place", place);
    cleanup_free char *workdir = NULL;
    if (cp_place_find(place, err) == NULL || cp_workdir_resolve(ask->workdir, &workdir, err) < 0)
        return cp_error_code(err);
    /* The chat derived from the folder: stable per folder, free of path characters. */
    cleanup_free char *chat = ask->chat ? xstrdup(ask->chat) : cp_folder_key(workdir);
    const struct cp_run_request req = {
        .place = place,
        .argv = ask->argv,
        .workdir = workdir,
        .chat = chat,
        .sealed = !ask->unsealed,
        .interactive = ask->interactive,
        .hold = ask->hold,
        .engine = ask->engine,
        .image = ask->image,
        .config = &cfg,
    };
    return cp_run_resolved(&req, err);
}

/* The report is written however the run ended: the place's failures (125) too. */
int cp_run(const struct cp_run_ask *ask, cp_error_t *err)
{
    if (ask->report != NULL && cp_run_report_start(ask->report, err) < 0)
        return cp_error_code(err);
    int status = resolve_and_run(ask, err);
    cp_run_report_exit(status < 0 ? 125 : status, status < 0 ? "place" : "command", err);
    cleanup_error cp_error_t werr = NULL;
    if (cp_run_report_finish(&werr) < 0)
        cp_say("%s", werr->msg);
    return status;
}
