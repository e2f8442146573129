/* The ssh:HOST place's ops: the work folder mirrored into a copy on the far side, the command
 * run there, what changed brought back: the shared remote run (mirror/remote-run.h) with the
 * ssh far side (far-side.c), done here or by the host's keeper (keeper-client.c), which holds
 * a session open for later runs; and each literal Host listed as a place. Here, a flock on
 * $CONCH_HOME/workplaces/PLACE/CHAT.manifest.lock keeps two commands of this computer apart
 * before either connects; there, the copy's lock. A second command waits its turn at either. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "places/place.h"
#include "places/ssh/far-side.h"
#include "places/ssh/keeper-client.h"
#include "places/ssh/known-hosts.h"
#include "places/ssh/place-ssh.h"
#include "src/base/util.h"
#include "src/base/report.h"

struct ssh_state {
    struct cp_ssh_fs fs;
    struct cp_ssh_host host;
    int keeper;                     /* a connection to a keeper that runs it all, or -1 */
    bool start_keeper;              /* none answered: start one once this run is connected */
    const struct cp_run_kept *kept; /* we are the keeper: its session */
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

/* The host resolved, and a keeper reached if one serves; nothing taken yet. In the keeper, its
 * kept session's host key is checked against known_hosts again, as the run asked it. */
static int ssh_prepare(const struct cp_run_request *req, void **state_out, cp_error_t *err)
{
    cleanup_state struct ssh_state *s = xcalloc(1, sizeof(*s));
    s->keeper = -1;
    if (cp_ssh_remote_resolve(req->place, &s->fs, &s->host, err) < 0)
        return cp_error_code(err);
    if (req->kept != NULL) {
        if (cp_ssh_recheck_host_key(req->kept->session, &s->host, err) < 0)
            return cp_error_code(err);
        s->kept = req->kept;
        *state_out = steal_pointer(&s);
        return 0;
    }
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
                                       .kept = s->kept ? s->kept->session : NULL,
                                       .stop_fd = s->kept ? s->kept->stop_fd : -1,
                                       .connected = s->start_keeper ? cp_ssh_keeper_spawn : NULL};
    return cp_ssh_remote_run(req, &reach, status_out, err);
}

static void ssh_release(void *state)
{
    state_free(state);
}

/* ---- `conch-place places`: one entry per literal Host, ready or with its next step ---- */

static json_object *entry(const char *place, bool ready, const char *next)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "place", json_object_new_string(place));
    json_object_object_add(o, "ready", json_object_new_boolean(ready));
    json_object_object_add(o, "next", next != NULL ? json_object_new_string(next) : NULL);
    return o;
}

/* Whether a known_hosts file the host uses names it at all (its key is checked on connect). */
static bool host_known(const struct cp_ssh_host *h)
{
    size_t nu = cp_strv_len(h->user_known_hosts), ng = cp_strv_len(h->global_known_hosts);
    cleanup_free char **files = xcalloc(nu + ng + 1, sizeof(char *));
    memcpy(files, h->user_known_hosts, nu * sizeof(char *));
    memcpy(files + nu, h->global_known_hosts, ng * sizeof(char *));
    cleanup_free char *name = h->host_key_alias != NULL ? xstrdup(h->host_key_alias)
                                                        : cp_known_hosts_name(h->hostname, h->port);
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    return cp_known_hosts_check(files, name, NULL, 0, &v, &err) == 0 && v.known_types[0] != '\0';
}

static json_object *describe_one(const struct cp_ssh_fs *fs, const char *name)
{
    cleanup_free char *place = xasprintf("ssh:%s", name);
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_error cp_error_t err = NULL;
    if (cp_ssh_place_resolve(fs, name, &h, &err) < 0)
        return entry(place, false, err->msg);
    bool known = host_known(&h);
    cleanup_free char *next =
        known
            ? NULL
            : xasprintf("connect once from a terminal (`ssh %s`) to check and save its key", name);
    json_object *o = entry(place, known, next);
    json_object_object_add(o, "host", json_object_new_string(h.hostname));
    json_object_object_add(o, "user", json_object_new_string(h.user));
    json_object_object_add(o, "port", json_object_new_int((int)h.port));
    return o;
}

int cp_ssh_places_describe(const struct cp_ssh_fs *fs, const char *path, json_object *places,
                           cp_error_t *err)
{
    cleanup_strv char **names = NULL;
    cp_error_t inner = NULL;
    if (cp_ssh_config_hosts(fs, path, &names, &inner) < 0) {
        json_object_array_add(places, entry("ssh:", false, inner->msg));
        cp_error_free(&inner);
        return 0;
    }
    for (size_t i = 0; names[i] != NULL; i++)
        json_object_array_add(places, describe_one(fs, names[i]));
    return 0;
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
