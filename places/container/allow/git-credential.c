/* Runs `git credential fill` for one remote. git runs from "/" with GIT_DIR and the like
 * removed, so only the person's own settings (~/.gitconfig, the system's) choose the helper:
 * the work folder's .git/config could name a helper that runs anything. It runs in a session
 * of its own (no terminal to prompt on), with prompts and askpass programs turned off, and is
 * killed with its helpers when it takes too long. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "places/container/allow/git-credential.h"
#include "src/base/clock.h"
#include "src/base/spawn.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define ANSWER_MAX (64 * 1024) /* git's answer: a few short lines */

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

/* git in a session of its own, from "/", its standard error dropped, with the environment
 * above. */
static int start(struct cp_child *git, cp_error_t *err)
{
    static char *const argv[] = {
        "git",  "-c", "core.askPass=", "-c", "credential.interactive=never", "credential",
        "fill", NULL};
    cleanup_strvec struct cp_strvec env = {0};
    cp_spawn_env(&env, dropped, added);
    struct cp_spawn_opts opts = {.in = {.how = CP_STDIO_PIPE},
                                 .out = {.how = CP_STDIO_PIPE},
                                 .err = {.how = CP_STDIO_NULL},
                                 .path_search = true,
                                 .env = env.v,
                                 .cwd = "/",
                                 .new_session = true,
                                 .default_signals = true,
                                 .stop_signal = SIGKILL, /* its session: its helpers too */
                                 .what = "git"};
    return cp_spawn(argv, &opts, git, err);
}

/* git's answer into buf, until it closes its output; -1 when the deadline passed first. */
static int read_answer(int fd, char *buf, size_t max, size_t *len, int64_t deadline)
{
    *len = 0;
    for (;;) {
        int64_t left = deadline - cp_now_ms();
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

int cp_git_credential_fill(const char *host, const char *path, int wait_ms, char **user_out,
                           char **password_out, cp_error_t *err)
{
    *user_out = *password_out = NULL;
    if (strpbrk(host, "\n\r") != NULL || strpbrk(path, "\n\r") != NULL)
        return 0; /* git would take the rest as another field of the request */
    int64_t deadline = cp_now_ms() + wait_ms;
    cleanup_child struct cp_child git = CP_CHILD_INIT;
    if (start(&git, err) < 0)
        return cp_error_code(err);
    cleanup_free char *req = xasprintf("protocol=https\nhost=%s\npath=%s\n\n", host, path);
    (void)cp_write_all(git.in, req, strlen(req)); /* a git that stops reading answers nothing */
    close(steal_fd(&git.in));
    char *buf = xmalloc(ANSWER_MAX + 1);
    size_t len = 0;
    bool late = read_answer(git.out, buf, ANSWER_MAX, &len, deadline) < 0;
    int status = 0;
    if (late)
        cp_child_kill(&git, SIGKILL);
    cleanup_error cp_error_t werr = NULL;
    (void)cp_child_wait(&git, &status, &werr);
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
