/* A person without root whose Podman API service is not running: conch-place starts it for
 * them, as `podman system service` with a bounded idle time, so no systemd unit is needed (a
 * laptop without lingering, a machine without systemd). The service leaves by itself once
 * nothing has called it for ENGINE_IDLE_S. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/engine/engine-start.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define ENGINE_IDLE_S  "300"
#define ENGINE_WAIT_MS 15000
#define ENGINE_POLL_MS 50

char *cp_rootless_podman_socket(void)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime != NULL && runtime[0] == '/')
        return xasprintf("%s/podman/podman.sock", runtime);
    /* Without XDG_RUNTIME_DIR (no login session): the person's own 0700 folder, never a
     * shared one where another user could have put a socket of their own first. */
    cleanup_free char *dir = cp_person_dir();
    return dir != NULL ? xasprintf("%s/podman.sock", dir) : NULL;
}

/* PATH's podman, or NULL. */
static char *find_podman(void)
{
    const char *path = getenv("PATH");
    cleanup_free char *copy = xstrdup(path != NULL ? path : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d != NULL; d = strtok_r(NULL, ":", &save)) {
        if (d[0] != '/')
            continue;
        char *p = xasprintf("%s/podman", d);
        if (access(p, X_OK) == 0)
            return p;
        free(p);
    }
    return NULL;
}

static int lock_start(cp_error_t *err)
{
    cleanup_free char *dir = cp_person_dir();
    if (dir == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "no folder of your own to start Podman's service from");
    cleanup_free char *path = xasprintf("%s/podman-service.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return cp_error_make(err, e == EINTR ? CP_ERR_INTERRUPTED : CP_ERR_FAILED, e,
                             "cannot lock %s", path);
    }
    return fd;
}

/* The service's own words go to a log of the person's, for when it does not come up. */
static char *log_path(void)
{
    cleanup_free char *dir = cp_person_dir();
    return dir != NULL ? xasprintf("%s/podman-service.log", dir) : NULL;
}

static void exec_service(const char *podman, const char *socket, const char *log)
{
    int fd = log != NULL ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600) : -1;
    if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    cleanup_free char *uri = xasprintf("unix://%s", socket);
    execl(podman, "podman", "system", "service", "--time=" ENGINE_IDLE_S, uri, (char *)NULL);
    _exit(127);
}

static bool answers(const char *socket, struct cp_engine **out)
{
    cleanup_error cp_error_t err = NULL;
    return cp_engine_open(socket, out, &err) == 0;
}

/* The size of the service's log before this start, so its words about this start are told
 * apart from an earlier one's. */
static off_t log_size(const char *log)
{
    struct stat st;
    return log != NULL && stat(log, &st) == 0 ? st.st_size : 0;
}

/* A logfmt value that starts with a quote, unquoted (\" and \\ as Go's %q writes them). */
static char *quoted_value(const char *q)
{
    char *out = xmalloc(strlen(q) + 1), *o = out;
    for (q++; *q != '\0' && *q != '"'; q++) {
        if (*q == '\\' && q[1] != '\0')
            q++;
        *o++ = *q;
    }
    *o = '\0';
    return out;
}

/* The message of the last error line the service wrote since from: Podman's logrus lines
 * (level=error msg="...") or its "Error: ..." line; NULL when it wrote none. */
static char *last_error(const char *log, off_t from)
{
    cleanup_fclose FILE *f = log != NULL ? fopen(log, "re") : NULL;
    if (f == NULL || fseeko(f, from, SEEK_SET) < 0)
        return NULL;
    char *found = NULL;
    char line[2048];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        const char *msg = NULL;
        if (strstr(line, "level=error") != NULL || strstr(line, "level=fatal") != NULL)
            msg = strstr(line, "msg=\"");
        if (msg != NULL) {
            free(found);
            found = quoted_value(msg + 4);
        } else if (strncmp(line, "Error: ", 7) == 0) {
            free(found);
            found = xstrdup(line + 7);
        }
    }
    return found;
}

/* The step for a service that did not come up, where Podman said nothing we know. */
static void hint_log(const char *log, cp_error_t *err)
{
    cp_error_hint(err,
                  "Its own words are in %s; 'conch-place doctor' names the step rootless "
                  "Podman still needs (a subuid range, newuidmap, a runtime folder).",
                  log != NULL ? log : "its log");
}

static int said_stopped(const char *log, off_t from, cp_error_t *err)
{
    cleanup_free char *words = last_error(log, from);
    cp_error_make(err, CP_ERR_UNREACHABLE, 0,
                  "started Podman's API service for you, but it stopped at once%s%s",
                  words != NULL ? ": " : "", words != NULL ? words : "");
    if (words != NULL && strstr(words, "system migrate") != NULL)
        cp_error_hint(err, "Podman's own record says boxes are running whose processes are gone "
                           "(killed, not stopped, on a machine that kept its runtime folder). "
                           "'podman system migrate' resets that record; then run again.");
    else
        hint_log(log, err);
    return CP_ERR_UNREACHABLE;
}

/* Waits for the socket to answer, or for the service to leave, whichever comes first: a
 * service that stopped at once says why now, not after the whole wait. */
static int wait_up(const char *socket, pid_t service, const char *log, off_t from,
                   struct cp_engine **out, cp_error_t *err)
{
    cleanup_close int gone = service > 0 ? pidfd_open(service, 0) : -1;
    if (service > 0 && gone < 0 && errno == ESRCH)
        return said_stopped(log, from, err);
    for (int waited = 0; waited < ENGINE_WAIT_MS; waited += ENGINE_POLL_MS) {
        if (answers(socket, out))
            return 0;
        struct pollfd p = {.fd = gone, .events = POLLIN};
        if (poll(&p, gone >= 0 ? 1 : 0, ENGINE_POLL_MS) > 0 && !answers(socket, out))
            return said_stopped(log, from, err);
        if (*out != NULL)
            return 0;
    }
    cp_error_make(err, CP_ERR_UNREACHABLE, 0,
                  "started Podman's API service for you on %s, but it did not answer within %d s",
                  socket, ENGINE_WAIT_MS / 1000);
    hint_log(log, err);
    return CP_ERR_UNREACHABLE;
}

int cp_engine_start_rootless(struct cp_engine **out, cp_error_t *err)
{
    if (geteuid() == 0)
        return 0;
    cleanup_free char *podman = find_podman();
    cleanup_free char *socket = cp_rootless_podman_socket();
    if (podman == NULL || socket == NULL)
        return 0;
    cleanup_close int lock = lock_start(err);
    if (lock < 0)
        return cp_error_code(err);
    if (answers(socket, out)) /* another run started it while this one waited */
        return 1;
    cleanup_free char *dir = xstrdup(socket);
    *strrchr(dir, '/') = '\0';
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    unlink(socket); /* a socket left by a service that has left */
    cleanup_free char *log = log_path();
    off_t from = log_size(log);
    pid_t service = -1;
    int r = cp_detach(&service);
    if (r < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot start Podman's API service");
    if (r == 0)
        exec_service(podman, socket, log);
    if (wait_up(socket, service, log, from, out, err) < 0)
        return cp_error_code(err);
    (*out)->started = true;
    cp_debug("started Podman's API service on %s (it leaves after %s idle seconds)", socket,
             ENGINE_IDLE_S);
    return 1;
}

int cp_engine_keep_up(struct cp_engine *e, cp_error_t *err)
{
    cleanup_engine struct cp_engine *again = NULL;
    if (!e->started || answers(e->socket, &again))
        return 0;
    cp_debug("Podman's API service on %s left while idle: starting it again", e->socket);
    if (cp_engine_start_rootless(&again, err) < 0)
        return cp_error_code(err);
    return 0;
}
