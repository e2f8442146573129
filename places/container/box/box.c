/* The box's lifecycle calls, and who owns a box (so a crash's leftovers can be told apart). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/proc-start.h"
#include "src/base/util.h"

#define PODMAN_LOOKS 20

static char *hostname(void)
{
    char h[256] = "";
    if (gethostname(h, sizeof(h) - 1) < 0)
        return xstrdup("unknown");
    return xstrdup(h);
}

char **cp_box_owner_labels(void)
{
    char **v = xcalloc(5, sizeof(char *));
    cleanup_free char *host = hostname();
    cleanup_free char *start = cp_process_start((long)getpid());
    v[0] = xasprintf("conch.owner.host=%s", host);
    v[1] = xasprintf("conch.owner.pid=%ld", (long)getpid());
    v[2] = xasprintf("conch.owner.start=%s", start ? start : "0");
    v[3] = xasprintf("conch.started=%lld", (long long)time(NULL));
    return v;
}

char *cp_box_random_hex(char *buf, size_t len)
{
    unsigned char rnd[32] = {0};
    size_t n = (len - 1 + 1) / 2;
    if (n > sizeof(rnd))
        n = sizeof(rnd);
    cleanup_close int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, rnd, n) != (ssize_t)n)
        memset(rnd, 0, sizeof(rnd));
    for (size_t i = 0; i + 1 < len && i / 2 < n; i++)
        buf[i] = "0123456789abcdef"[(rnd[i / 2] >> ((i % 2) ? 0 : 4)) & 0xf];
    buf[len - 1] = '\0';
    return buf;
}

char *cp_box_name(void)
{
    char rnd[9];
    cleanup_free char *start = cp_process_start((long)getpid());
    return xasprintf("conch-%ld-%s-%s", (long)getpid(), start ? start : "0",
                     cp_box_random_hex(rnd, sizeof(rnd)));
}

static bool pid_alive(long pid, const char *start)
{
    if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
        return false;
    cleanup_free char *now = cp_process_start(pid);
    return now != NULL && start != NULL && strcmp(now, start) == 0;
}

bool cp_box_name_alive(const char *name)
{
    if (name != NULL && name[0] == '/')
        name++;
    long pid = 0;
    char start[32] = "";
    if (name == NULL || sscanf(name, "conch-%ld-%31[0-9]-", &pid, start) != 2 || pid <= 0)
        return false;
    return pid_alive(pid, start);
}

bool cp_box_owner_alive(const char *name, json_object *labels)
{
    const char *host = cp_json_str(labels, "conch.owner.host");
    cleanup_free char *me = hostname();
    /* Another host's box is never ours to judge. */
    if (host == NULL || strcmp(host, me) != 0)
        return true;
    return cp_box_name_alive(name);
}

#define INSPECT_TRIES    5
#define INSPECT_PAUSE_US 200000

int cp_box_inspect_ours(struct cp_engine *e, const char *name, const char *label, json_object **out,
                        cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/%s/json", name);
    cleanup_json json_object *c = NULL;
    long status = 0;
    /* A box the engine is removing (an idle or killed sidecar's auto-remove) can answer 500 for
     * a moment on Podman: asked again, it is gone. A 5xx says nothing of whose box it is. */
    for (int tries = 0;; tries++) {
        json_object_put(c);
        c = NULL;
        if (cp_engine_call_status(e, "GET", path, NULL, &status, &c, err) < 0)
            return cp_error_code(err);
        if (status < 500 || tries == INSPECT_TRIES)
            break;
        usleep(INSPECT_PAUSE_US);
    }
    if (status == 404)
        return 0;
    if (status != 200)
        return cp_error_make(
            err, CP_ERR_FAILED, 0, "the engine could not read box %s (HTTP %ld): %s", name, status,
            cp_json_str(c, "message") ? cp_json_str(c, "message") : "no reason given");
    json_object *config = NULL, *labels = NULL;
    json_object_object_get_ex(c, "Config", &config);
    json_object_object_get_ex(config, "Labels", &labels);
    if (cp_json_str(c, "Id") == NULL || cp_json_str(labels, label) == NULL) {
        cp_error_make(err, CP_ERR_UNSAFE, 0, "a box named %s exists that conch-place did not make",
                      name);
        cp_error_hint(err,
                      "conch-place gives that name to this folder's own box: rename or "
                      "remove the other one (%s rename %s ...), then run again.",
                      e->kind, name);
        return cp_error_code(err);
    }
    *out = steal_pointer(&c);
    return 1;
}

/* Rootless Podman 4.3 reads the person's subordinate ids through libsubid on each create of a
 * keep-id box, and libsubid is not safe to call from two of the service's threads at once: of two
 * boxes asked for at the same moment one was refused ("keep-id requires additional UIDs or GIDs",
 * rootless.test's gate part), and elsewhere such a box came with a one-id map (Podman's issue
 * 20107). So the creates that ask keep-id are made one at a time per person, across all their
 * runs, under a lock beside the one that starts their service. -1: no lock to be had (the
 * create goes on without it, as it did before). */
static int keep_id_lock(json_object *spec)
{
    json_object *h = NULL;
    json_object_object_get_ex(spec, "HostConfig", &h);
    const char *userns = cp_json_str(h, "UsernsMode");
    cleanup_free char *dir =
        userns != NULL && strcmp(userns, "keep-id") == 0 ? cp_person_dir() : NULL;
    if (dir == NULL)
        return -1;
    cleanup_free char *path = xasprintf("%s/podman-keep-id.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    while (fd >= 0 && flock(fd, LOCK_EX) < 0) {
        if (errno == EINTR)
            continue;
        close(fd);
        return -1;
    }
    return fd;
}

int cp_box_create(struct cp_engine *e, json_object *spec, const char *name, char **id_out,
                  cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/create?name=%s", name);
    cleanup_json json_object *reply = NULL;
    cleanup_close int one_at_a_time = keep_id_lock(spec);
    if (one_at_a_time >= 0)
        cp_debug("%s: the person's one keep-id create at a time", name);
    if (cp_engine_call(e, "POST", path, spec, &reply, err) < 0)
        return cp_error_code(err);
    const char *id = cp_json_str(reply, "Id");
    if (id == NULL || strspn(id, "0123456789abcdef") != strlen(id) || strlen(id) < 12)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine made a box but gave no usable id");
    *id_out = xstrdup(id);
    return 0;
}

/* One limit the spec asked for is in the engine's inspect as asked. NanoCpus stands for the
 * CPUs: Podman also reports it as a quota, Docker as NanoCpus alone. */
static bool limit_kept(json_object *asked, json_object *applied, const char *key)
{
    int64_t want = cp_json_int(asked, key, 0);
    return want <= 0 || cp_json_int(applied, key, 0) == want;
}

int cp_box_limits_missing(struct cp_engine *e, const char *id, json_object *spec, char **out,
                          cp_error_t *err)
{
    static const struct {
        const char *key, *name;
    } limits[] = {{"PidsLimit", "pids"}, {"Memory", "memory"}, {"NanoCpus", "CPUs"}};
    *out = NULL;
    cleanup_free char *path = xasprintf("/containers/%s/json", id);
    cleanup_json json_object *box = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &box, err) < 0)
        return cp_error_wrap(err, "reading the box's limits back");
    json_object *asked = NULL, *applied = NULL;
    json_object_object_get_ex(spec, "HostConfig", &asked);
    json_object_object_get_ex(box, "HostConfig", &applied);
    char missing[64] = "";
    for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
        if (!limit_kept(asked, applied, limits[i].key) ||
            strstr(e->limits_unsupported, limits[i].name) != NULL)
            snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
                     missing[0] != '\0' ? ", " : "", limits[i].name);
    if (missing[0] != '\0')
        *out = xstrdup(missing);
    return 0;
}

int cp_box_create_once(struct cp_engine *e, json_object *spec, const char *name, const char *what,
                       char **id_out, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/create?name=%s", name);
    cleanup_json json_object *reply = NULL;
    long status = 0;
    if (cp_engine_call_status(e, "POST", path, spec, &status, &reply, err) < 0)
        return cp_error_code(err);
    if (status == 409)
        return 0;
    const char *id = cp_json_str(reply, "Id");
    if (status != 201 || id == NULL || strspn(id, "0123456789abcdef") != strlen(id)) {
        const char *msg = cp_json_str(reply, "message");
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine did not make %s (HTTP %ld): %s",
                             what, status, msg != NULL ? msg : "no reason given");
    }
    *id_out = xstrdup(id);
    return 1;
}

int cp_box_start(struct cp_engine *e, const char *id, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/%s/start", id);
    return cp_engine_call(e, "POST", path, NULL, NULL, err);
}

/* After the attach stream ends the box has usually exited already, so a look at its state
 * comes first. Podman says "stopped" (exit code known, clean-up pending) well before "exited":
 * both count. 1 when the status was read. An inspect that meets the box's process exiting can
 * fail on Podman 4.3 (500, "read /proc/PID/cgroup: no such process"): not known yet, so the
 * wait that follows answers. */
static int exited_status(struct cp_engine *e, const char *id, int *status_out, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/%s/json", id);
    cleanup_json json_object *reply = NULL;
    json_object *st = NULL, *running = NULL; /* borrowed from reply */
    long http = 0;
    if (cp_engine_call_status(e, "GET", path, NULL, &http, &reply, err) < 0)
        return cp_error_code(err);
    if (http >= 500)
        return 0;
    if (http != 200) {
        const char *why = cp_json_str(reply, "message");
        return cp_error_make(err, http == 404 ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, 0,
                             "the engine refused GET %s (HTTP %ld): %s", path, http,
                             why != NULL ? why : "no reason given");
    }
    if (!json_object_object_get_ex(reply, "State", &st))
        return 0;
    json_object_object_get_ex(st, "Running", &running);
    const char *status = cp_json_str(st, "Status");
    int64_t code = cp_json_int(st, "ExitCode", -1);
    bool done = status != NULL && (strcmp(status, "exited") == 0 || strcmp(status, "stopped") == 0);
    if (!done || json_object_get_boolean(running) || code < 0 || code > 255)
        return 0;
    *status_out = (int)code;
    return 1;
}

/* Podman's compatible wait polls every 250 ms; its own (libpod's) wait takes an interval. */
static char *wait_path(const struct cp_engine *e, const char *id)
{
    if (e->quirks.libpod_routes)
        return xasprintf("/libpod/containers/%s/wait?condition=stopped&condition=exited"
                         "&interval=10ms",
                         id);
    return xasprintf("/containers/%s/wait?condition=not-running", id);
}

/* Docker answers {"StatusCode": N}, Podman's own wait a bare N. */
static int64_t wait_code(json_object *reply)
{
    if (json_object_is_type(reply, json_type_int))
        return json_object_get_int64(reply);
    return cp_json_int(reply, "StatusCode", -1);
}

/* Podman records the exit a few ms after the stream ends (conmon reaps, then writes it), and
 * its own wait took 160 ms to see it here: a few quick looks come first. Docker's inspect
 * already waits for the exit it is processing. */
static int look_a_few_times(struct cp_engine *e, const char *id, int *status_out, cp_error_t *err)
{
    int looks = e->quirks.exit_recorded_late ? PODMAN_LOOKS : 1;
    for (int i = 0; i < looks; i++) {
        int r = exited_status(e, id, status_out, err);
        if (r != 0)
            return r;
        if (i + 1 < looks)
            poll(NULL, 0, 5);
    }
    return 0;
}

int cp_box_wait(struct cp_engine *e, const char *id, int *status_out, cp_error_t *err)
{
    int r = look_a_few_times(e, id, status_out, err);
    cp_debug("inspected: %s", r > 0 ? "exited" : "not yet");
    if (r != 0)
        return r < 0 ? r : 0;
    cleanup_free char *path = wait_path(e, id);
    cleanup_json json_object *reply = NULL;
    if (cp_engine_call(e, "POST", path, NULL, &reply, err) < 0)
        return cp_error_code(err);
    int64_t code = wait_code(reply);
    if (code < 0 || code > 255)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine lost the command's exit status");
    *status_out = (int)code;
    return 0;
}

int cp_box_remove(struct cp_engine *e, const char *id, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("/containers/%s?force=1&v=1", id);
    long status = 0;
    if (cp_engine_call_status(e, "DELETE", path, NULL, &status, NULL, err) < 0)
        return cp_error_code(err);
    if (status == 204 || status == 404)
        return 0;
    /* 409: a removal already under way finishes by itself. */
    if (status == 409)
        return 0;
    return cp_error_make(err, CP_ERR_FAILED, 0, "the engine could not remove box %.12s (HTTP %ld)",
                         id, status);
}

#define GONE_TRIES    100
#define GONE_PAUSE_US 100000

int cp_box_remove_gone(struct cp_engine *e, const char *id, cp_error_t *err)
{
    if (cp_box_remove(e, id, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("/containers/%s/json", id);
    for (int i = 0; i < GONE_TRIES; i++) {
        long status = 0;
        if (cp_engine_call_status(e, "GET", path, NULL, &status, NULL, err) < 0)
            return cp_error_code(err);
        if (status == 404)
            return 0;
        usleep(GONE_PAUSE_US);
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "box %.12s was still there 10 s after its removal",
                         id);
}
