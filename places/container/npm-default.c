/* npm's own default registry, asked of the npm on this computer rather than written here:
 * `npm config get registry` with no user or global npmrc, cached by npm's path and mtime (node
 * takes a few hundred milliseconds to start, every sealed run reads the list). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/hostconf.h"
#include "places/container/registries.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define NPM_WAIT_MS 15000

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

static void run_npm_child(const char *npm, int out_fd)
{
    dup2(out_fd, STDOUT_FILENO);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDERR_FILENO);
    }
    /* Nothing of the person's: the answer is npm's built-in default. */
    unsetenv("NPM_CONFIG_REGISTRY");
    unsetenv("npm_config_registry");
    /* Paths that cannot exist: npm reads no file for either (it refuses one file for both). */
    execl(npm, "npm", "config", "get", "registry", "--userconfig", "/dev/null/user",
          "--globalconfig", "/dev/null/global", (char *)NULL);
    _exit(127);
}

/* The first line npm prints, within NPM_WAIT_MS; NULL when it cannot be had. */
static char *ask_npm(const char *npm)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0)
        run_npm_child(npm, p[1]);
    close(p[1]);
    cleanup_close int rd = p[0];
    if (pid < 0)
        return NULL;
    char buf[512] = "";
    size_t len = 0;
    struct pollfd pf = {rd, POLLIN, 0};
    while (len < sizeof(buf) - 1 && poll(&pf, 1, NPM_WAIT_MS) > 0) {
        ssize_t n = read(rd, buf + len, sizeof(buf) - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
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
    return host;
}
