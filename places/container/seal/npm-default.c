/* npm's own default registry, asked of the npm on this computer rather than written here:
 * `npm config get registry` with no user or global npmrc, cached by npm's path and mtime (node
 * takes a few hundred milliseconds to start, every sealed run reads the list). With no npm
 * here, the work image's npm is asked once, in a one-shot box with no network, and the answer
 * cached by the image's id. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/engine/engine.h"
#include "src/base/buf.h"
#include "places/container/allow/allow.h"
#include "src/base/http.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/spawn.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define NPM_WAIT_MS 15000

static char *learned;     /* from the work image, when this computer has no npm */
static char *missing_why; /* why neither could be asked */
static bool done_learning, answered;

static char *find_npm(struct stat *st)
{
    const char *path = getenv("PATH");
    cleanup_free char *copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir != NULL;
         dir = strtok_r(NULL, ":", &save)) {
        char *cand = xasprintf("%s/npm", dir);
        if (dir[0] == '/' && stat(cand, st) == 0 && S_ISREG(st->st_mode) && access(cand, X_OK) == 0)
            return cand;
        free(cand);
    }
    return NULL;
}

/* The first line npm prints, within NPM_WAIT_MS; NULL when it cannot be had. */
static char *ask_npm(const char *npm)
{
    /* Paths that cannot exist: npm reads no file for either (it refuses one file for both). */
    static char *const argv[] = {"npm",
                                 "config",
                                 "get",
                                 "registry",
                                 "--userconfig",
                                 "/dev/null/user",
                                 "--globalconfig",
                                 "/dev/null/global",
                                 NULL};
    /* Nothing of the person's: the answer is npm's built-in default. */
    static const char *const drop[] = {"NPM_CONFIG_REGISTRY=", "npm_config_registry=", NULL};
    cleanup_strvec struct cp_strvec env = {0};
    cp_spawn_env(&env, drop, NULL);
    struct cp_spawn_opts opts = {.in = {.how = CP_STDIO_NULL},
                                 .out = {.how = CP_STDIO_PIPE},
                                 .err = {.how = CP_STDIO_NULL},
                                 .file = npm,
                                 .env = env.v,
                                 .stop_signal = SIGKILL};
    cleanup_child struct cp_child child = CP_CHILD_INIT;
    cleanup_error cp_error_t err = NULL;
    if (cp_spawn(argv, &opts, &child, &err) < 0)
        return NULL;
    char buf[512] = "";
    size_t len = 0;
    struct pollfd pf = {child.out, POLLIN, 0};
    while (len < sizeof(buf) - 1 && poll(&pf, 1, NPM_WAIT_MS) > 0) {
        ssize_t n = read(child.out, buf + len, sizeof(buf) - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    cp_child_dispose(&child); /* killed (SIGKILL) and reaped */
    buf[len] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return cp_url_host(buf);
}

static char *cache_path(void)
{
    cleanup_free char *dir = NULL;
    if (cp_workplaces_dir(&dir, NULL) < 0)
        return NULL;
    return xasprintf("%s/npm-default-registry", dir);
}

static char *image_cache_path(void)
{
    cleanup_free char *dir = NULL;
    if (cp_workplaces_dir(&dir, NULL) < 0)
        return NULL;
    return xasprintf("%s/npm-default-registry-image", dir);
}

static char *cached(const char *cache, const char *stamp)
{
    cleanup_free char *text = NULL;
    if (cache == NULL || cp_read_file(cache, 4096, &text, NULL, NULL) < 0)
        return NULL;
    size_t sl = strlen(stamp);
    if (strncmp(text, stamp, sl) != 0 || text[sl] != '\n')
        return NULL;
    char *host = text + sl + 1;
    host[strcspn(host, "\n")] = '\0';
    return host[0] ? xstrdup(host) : NULL;
}

static char *cached_answer(const char *cache, const char *stamp)
{
    cleanup_free char *text = NULL;
    answered = false;
    if (cache == NULL || cp_read_file(cache, 4096, &text, NULL, NULL) < 0)
        return NULL;
    size_t sl = strlen(stamp);
    if (strncmp(text, stamp, sl) != 0 || text[sl] != '\n')
        return NULL;
    answered = true;
    char *host = text + sl + 1;
    host[strcspn(host, "\n")] = '\0';
    return host[0] ? xstrdup(host) : NULL;
}

static char *derive(void)
{
    const char *given = getenv("CONCH_NPM_DEFAULT_REGISTRY");
    if (given != NULL && given[0] != '\0')
        return cp_url_host(given);
    struct stat st;
    cleanup_free char *npm = find_npm(&st);
    if (npm == NULL)
        return NULL;
    cleanup_free char *stamp =
        xasprintf("%s %lld.%09ld", npm, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    cleanup_free char *cache = cache_path();
    char *host = cached(cache, stamp);
    if (host != NULL)
        return host;
    host = ask_npm(npm);
    if (host != NULL && cache != NULL) {
        cleanup_free char *line = xasprintf("%s\n%s\n", stamp, host);
        (void)cp_write_file_atomic(cache, line, strlen(line), 0600, NULL);
    }
    return host;
}

const char *cp_npm_default_host(void)
{
    static char *host;
    static bool done;
    if (!done) {
        host = derive();
        done = true;
    }
    return host ? host : learned;
}

/* ---- the work image's npm ---- */

/* The one-shot box: the same npm question, sealed tighter than a work box (no network at all,
 * nothing of the person's mounted, nobody's uid), from the seal's body (create-body.c). It stays
 * once ended, so its status can be read. */
static json_object *oneshot_spec(const struct cp_engine *e, const char *image_id)
{
    /* 127 tells an image without npm from a failure: both engines fail the start otherwise. */
    static char *const cmd[] = {
        "sh", "-c",
        "command -v npm >/dev/null || exit 127; exec npm config get registry "
        "--userconfig /dev/null/user --globalconfig /dev/null/global",
        NULL};
    cleanup_strv char **owner = cp_box_owner_labels();
    struct cp_sealed_body_opts o = {
        .image = image_id,
        .entrypoint = (char *[]){NULL},
        .cmd = cmd,
        .env = cp_body_strv((char *[]){"HOME=/tmp", NULL}),
        .user = "65534:65534",
        .labels = cp_body_work_labels(owner),
        .pids = 64,
        .memory = 512LL << 20,
        .cpus = cp_sealed_cpus(),
        .tmp = "rw,nosuid,nodev,size=64m",
        .tmpfs_copies_up = e->quirks.tmpfs_copies_up,
        .keep_log = true,
        .network = "none",
    };
    return cp_sealed_create_body(&o);
}

/* The first http(s) address in the box's output (frame headers and all). */
static char *first_url_host(const char *out, size_t len)
{
    for (size_t i = 0; i + 7 < len; i++) {
        if (strncmp(out + i, "http://", 7) != 0 && strncmp(out + i, "https://", 8) != 0)
            continue;
        size_t n = 0;
        while (i + n < len && (unsigned char)out[i + n] > 0x20 && out[i + n] != 0x7f)
            n++;
        cleanup_free char *url = strndup(out + i, n);
        return cp_url_host(url);
    }
    return NULL;
}

/* The box's standard output, read from its attach stream, opened before it starts: the engine's
 * log read after the box ended can come back empty on Podman (its issues 18613 and 18501: a
 * `podman wait` then `podman logs` race). Into a memfd, since it is read once the stream ends. */
static int oneshot_attach(struct cp_engine *e, const char *id, int *fd_out, struct cp_buf *early,
                          cp_error_t *err)
{
    cleanup_free char *path =
        xasprintf("/containers/%s/attach?stream=1&stdin=0&stdout=1&stderr=0", id);
    if (cp_stream_hijack(e, "POST", path, NULL, fd_out, early, err) < 0)
        return cp_error_wrap(err, "attaching to the one-shot box");
    return 0;
}

static int oneshot_read(int fd, struct cp_buf *early, char **host_out, cp_error_t *err)
{
    cleanup_close int out = memfd_create("npm-answer", MFD_CLOEXEC);
    if (out < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot hold the image's npm's answer");
    struct cp_demux d;
    cp_demux_init(&d, out, -1);
    if (cp_stream_pump(fd, &d, early, -1, -1, err) < 0 || cp_demux_finish(&d) < 0)
        return cp_error_wrap(err, "reading what the image's npm said");
    char buf[64 * 1024];
    ssize_t n = pread(out, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    *host_out = first_url_host(buf, n > 0 ? (size_t)n : 0);
    return 0;
}

static int ask_image(struct cp_engine *e, const char *image_id, char **host_out, cp_error_t *err)
{
    cleanup_json json_object *spec = oneshot_spec(e, image_id);
    cleanup_free char *name = cp_box_name(), *id = NULL;
    int status = -1;
    cp_debug("no npm here: asking the npm of image %.19s in a one-shot box", image_id);
    if (cp_box_create(e, spec, name, &id, err) < 0)
        return cp_error_wrap(err, "asking the work image's npm");
    cleanup_close int fd = -1;
    cleanup_buf struct cp_buf early = {0};
    cleanup_free char *host = NULL;
    int r = oneshot_attach(e, id, &fd, &early, err);
    if (r == 0)
        r = cp_box_start(e, id, err);
    if (r == 0)
        r = oneshot_read(fd, &early, &host, err);
    if (r == 0)
        r = cp_box_wait(e, id, &status, err);
    if (r == 0 && status == 0 && host == NULL)
        /* npm that ran well always names a registry: no address is the engine's loss, not the
         * image's answer, and must not be cached as "no npm" for the image's life. */
        r = cp_error_make(err, CP_ERR_FAILED, 0,
                          "the image's npm ran, but its answer did not reach us");
    else if (r == 0 && status != 0 && status != 127) /* 127: no npm in the image, an answer too */
        r = cp_error_make(err, CP_ERR_FAILED, 0, "the image's npm exited with %d", status);
    if (r == 0 && status == 0)
        *host_out = steal_pointer(&host);
    cleanup_error cp_error_t rm_err = NULL;
    if (cp_box_remove(e, id, &rm_err) < 0)
        cp_debug("%s", rm_err->msg);
    return r;
}

int cp_npm_default_learn(struct cp_engine *e, const char *image_id, cp_error_t *err)
{
    if (cp_npm_default_host() != NULL)
        return 0;
    cleanup_free char *cache = image_cache_path();
    cleanup_free char *stamp = xasprintf("image %s", image_id);
    done_learning = true;
    free(learned);
    learned = cached_answer(cache, stamp);
    if (learned != NULL || answered)
        return 0;
    cleanup_free char *host = NULL;
    if (ask_image(e, image_id, &host, err) < 0) {
        free(missing_why);
        missing_why = xasprintf("no npm on this computer, and the work image's could not be "
                                "asked: %s",
                                (*err)->msg);
        return cp_error_code(err);
    }
    /* An image without npm is an answer too: asked once, cached, not asked again. */
    if (cache != NULL) {
        cleanup_free char *line = xasprintf("%s\n%s\n", stamp, host ? host : "");
        (void)cp_write_file_atomic(cache, line, strlen(line), 0600, NULL);
    }
    learned = steal_pointer(&host);
    return 0;
}

int cp_npm_default_learn_for(const struct cp_config *cfg, cp_error_t *err)
{
    if (cp_npm_default_host() != NULL)
        return 0;
    cleanup_engine struct cp_engine *e = NULL;
    cleanup_free char *image = NULL, *image_id = NULL;
    const char *engine = cfg ? cp_config_get(cfg, "engine") : NULL;
    const char *saved = cfg ? cp_config_get(cfg, "image") : NULL;
    if (cp_engine_connect(engine ? engine : "auto", &e, err) < 0 ||
        cp_image_choose(e, NULL, saved, &image, &image_id, err) < 0) {
        free(missing_why);
        missing_why =
            xasprintf("no npm on this computer, and no work image to ask: %s", (*err)->msg);
        return cp_error_code(err);
    }
    return cp_npm_default_learn(e, image_id, err);
}

const char *cp_npm_default_missing(void)
{
    if (cp_npm_default_host() != NULL)
        return NULL;
    if (missing_why != NULL)
        return missing_why;
    return learned == NULL && done_learning ? "neither this computer nor the work image has npm"
                                            : "no npm on this computer to ask";
}
