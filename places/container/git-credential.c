/* Runs `git credential fill` for one remote. git runs from "/" with GIT_DIR and the like
 * removed, so only the person's own settings (~/.gitconfig, the system's) choose the helper:
 * the work folder's .git/config could name a helper that runs anything. It runs in a session
 * of its own (no terminal to prompt on), with prompts and askpass programs turned off, and is
 * killed with its helpers when it takes too long. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "places/container/git-credential.h"
#include "src/base/util.h"

#define ANSWER_MAX (64 * 1024) /* git's answer: a few short lines */

extern char **environ;

/* Taken out of the environment git gets; the ones set after are given anew. */
static const char *const dropped[] = {
    "GIT_ASKPASS=",     "SSH_ASKPASS=",      "GIT_TERMINAL_PROMPT=", "GIT_DIR=",
    "GIT_WORK_TREE=",   "GIT_COMMON_DIR=",   "GIT_CONFIG=",          "GIT_PREFIX=",
    "GCM_INTERACTIVE=", "GIT_TRACE=",        "GIT_TRACE2=",          "GIT_CURL_VERBOSE=",
    "GIT_TRACE_CURL=",  "GIT_TRACE2_EVENT=", "GIT_TRACE2_PERF=",     NULL,
};

/* GIT_ASKPASS empty: git then asks no askpass program, not even SSH_ASKPASS's. GCM_INTERACTIVE
 * is Git Credential Manager's own switch for its windows. The traces would write the password
 * where a log could keep it. */
static const char *const added[] = {"GIT_TERMINAL_PROMPT=0",
                                    "GIT_ASKPASS=", "GCM_INTERACTIVE=never", NULL};

static bool is_dropped(const char *entry)
{
    for (size_t i = 0; dropped[i] != NULL; i++)
        if (strncmp(entry, dropped[i], strlen(dropped[i])) == 0)
            return true;
    return false;
}

/* Built before the fork: the child only calls what is safe after one. */
static char **child_env(void)
{
    size_t n = 0, k = 0;
    while (environ[n] != NULL)
        n++;
    char **env = xcalloc(n + ARRAY_SIZE(added), sizeof(char *));
    for (size_t i = 0; i < n; i++)
        if (!is_dropped(environ[i]))
            env[k++] = environ[i];
    for (size_t i = 0; added[i] != NULL; i++)
        env[k++] = (char *)added[i];
    return env;
}

static void run_git(int in, int out, char **env)
{
    static char *const argv[] = {
        "git",  "-c", "core.askPass=", "-c", "credential.interactive=never", "credential",
        "fill", NULL};
    (void)setsid();
    signal(SIGPIPE, SIG_DFL);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        (null >= 0 && dup2(null, STDERR_FILENO) < 0) || chdir("/") < 0)
        _exit(127);
    execvpe("git", argv, env);
    _exit(127);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* git's answer into buf, until it closes its output; -1 when the deadline passed first. */
static int read_answer(int fd, char *buf, size_t max, size_t *len, int64_t deadline)
{
    *len = 0;
    for (;;) {
        int64_t left = deadline - now_ms();
        struct pollfd pf = {fd, POLLIN, 0};
        int r = left > 0 ? poll(&pf, 1, (int)left) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t n = read(fd, buf + *len, max - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (*len += (size_t)n) >= max)
            return 0; /* an answer past the limit is cut; its lines before it still count */
    }
}

/* username= and password= of git's answer. */
static void parse_answer(char *buf, char **user_out, char **password_out)
{
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l != NULL;
         l = strtok_r(NULL, "\n", &save)) {
        char **slot = strncmp(l, "username=", 9) == 0   ? user_out
                      : strncmp(l, "password=", 9) == 0 ? password_out
                                                        : NULL;
        if (slot != NULL) {
            cp_free_secret(*slot);
            *slot = xstrdup(l + 9);
        }
    }
}

static void reap(pid_t pid, bool kill_it, int *status)
{
    if (kill_it) {
        kill(-pid, SIGKILL); /* its session: the helpers it started too */
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}

static int start(pid_t *pid_out, int *to, int *from, cp_error_t *err)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a pipe for git");
    if (pipe2(out, O_CLOEXEC) < 0) {
        close(in[0]);
        close(in[1]);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make a pipe for git");
    }
    cleanup_free char **env = child_env();
    pid_t pid = fork();
    if (pid == 0)
        run_git(in[0], out[1], env);
    int saved = errno;
    close(in[0]);
    close(out[1]);
    *to = in[1];
    *from = out[0];
    *pid_out = pid;
    return pid < 0 ? cp_error_make(err, CP_ERR_FAILED, saved, "cannot start git") : 0;
}

int cp_git_credential_fill(const char *host, const char *path, int wait_ms, char **user_out,
                           char **password_out, cp_error_t *err)
{
    *user_out = *password_out = NULL;
    if (strpbrk(host, "\n\r") != NULL || strpbrk(path, "\n\r") != NULL)
        return 0; /* git would take the rest as another field of the request */
    int64_t deadline = now_ms() + wait_ms;
    pid_t pid = -1;
    cleanup_close int to = -1, from = -1;
    if (start(&pid, &to, &from, err) < 0)
        return cp_error_code(err);
    cleanup_free char *req = xasprintf("protocol=https\nhost=%s\npath=%s\n\n", host, path);
    (void)cp_write_all(to, req, strlen(req)); /* a git that stops reading answers nothing */
    close(steal_fd(&to));
    char *buf = xmalloc(ANSWER_MAX + 1);
    size_t len = 0;
    bool late = read_answer(from, buf, ANSWER_MAX, &len, deadline) < 0;
    int status = 0;
    reap(pid, late, &status);
    buf[len] = '\0';
    if (!late && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        parse_answer(buf, user_out, password_out);
    explicit_bzero(buf, ANSWER_MAX + 1);
    free(buf);
    if (late)
        return cp_error_make(err, CP_ERR_TIMEOUT, 0,
                             "git credential fill for %s took longer than %d s", host,
                             wait_ms / 1000);
    if (*password_out == NULL) { /* no credential: the fetch goes without one */
        cp_free_secret(steal_pointer(user_out));
        return 0;
    }
    return 0;
}
