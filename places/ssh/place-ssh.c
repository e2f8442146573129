/* The ssh:HOST place: the work folder mirrored into a copy on the far side, the command run
 * there, what changed brought back: the shared remote run (mirror/remote-run.h) with the ssh
 * ops (ssh_remote.c), done here or by the host's keeper (ssh_keeper_client.c), which holds
 * a session open for later runs. Here, a flock on
 * $CONCH_HOME/workplaces/PLACE/CHAT.manifest.lock keeps two commands of this computer apart
 * before either connects; there, the copy's lock. A second command waits its turn at either. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "places/place.h"
#include "places/ssh/place-ssh-int.h"
#include "places/ssh/ssh_place.h"
#include "places/ssh/ssh_remote.h"
#include "src/base/util.h"
#include "src/base/run-report.h"

struct ssh_state {
    struct cp_ssh_fs fs;
    struct cp_ssh_host host;
    int keeper;        /* a connection to a keeper that runs it all, or -1 */
    bool start_keeper; /* none answered: start one once this run is connected */
};

static void state_free(struct ssh_state *s)
{
    if (s == NULL)
        return;
    if (s->keeper >= 0)
        close(s->keeper);
    cp_ssh_host_dispose(&s->host);
    cp_ssh_fs_dispose(&s->fs);
    free(s);
}

static void state_cleanup(struct ssh_state **s)
{
    state_free(*s);
}
#define cleanup_state __attribute__((cleanup(state_cleanup)))

/* The host resolved, and a keeper reached if one serves; nothing taken yet. */
static int ssh_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err)
{
    cleanup_state struct ssh_state *s = xcalloc(1, sizeof(*s));
    s->keeper = -1;
    if (cp_ssh_remote_resolve(req->place, &s->fs, &s->host, err) < 0)
        return cp_error_code(err);
    cp_run_report_remote("host", s->host.alias, "resolve");
    /* The keeper's process would sync the files, out of the report's sight: not with one. */
    int k = cp_run_report_on() ? -1 : cp_ssh_keeper_reach(&s->host, &s->keeper);
    s->start_keeper = k > 0;
    *state_out = steal_pointer(&s);
    return 0;
}

static int ssh_run(void *state, const struct cp_run_request *req, int *status_out, cp_error_t *err)
{
    struct ssh_state *s = state;
    if (s->keeper >= 0)
        return cp_ssh_keeper_run(s->keeper, req, status_out, err);
    const struct cp_ssh_reach reach = {.fs = &s->fs,
                                       .host = &s->host,
                                       .stop_fd = -1,
                                       .connected = s->start_keeper ? cp_ssh_keeper_spawn : NULL};
    return cp_ssh_remote_run(req, &reach, status_out, err);
}

static void ssh_release(void *state)
{
    state_free(state);
}

static int ssh_describe(const struct cp_config *cfg, json_object *places, cp_error_t *err)
{
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    if (cp_ssh_fs_init_default(&fs, err) < 0) {
        cp_error_free(err);
        return 0;
    }
    cleanup_free char *path = xasprintf("%s/.ssh/config", fs.home);
    if (access(path, F_OK) != 0)
        return 0;
    return cp_ssh_places_describe(&fs, path, places, err);
}

/* Nothing to remove: the far lock ends with its connection, the flock here with its process.
 * Copies stay: they are the person's files, and the next run of the chat reuses them. */
static int ssh_clean(const struct cp_config *cfg, cp_error_t *err)
{
    return 0;
}

const struct cp_place_ops cp_place_ssh = {
    .name = "ssh:",
    .is_prefix = true,
    .prepare = ssh_prepare,
    .run = ssh_run,
    .release = ssh_release,
    .check = cp_ssh_check,
    .describe = ssh_describe,
    .clean = ssh_clean,
};
