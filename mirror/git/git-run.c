/* The one way the gate starts git here: the landing's checks (cat-file, merge-base, index-pack)
 * and `changes --diff`'s commits read hostile objects, so git gets nothing of the person's
 * settings that could run a program, and its GIT_DIR is a descriptor opened without following
 * a link. */
#include "config.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mirror/git/git-run.h"
#include "src/base/spawn.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

static char **git_argv(char *const *args)
{
    static const char *const fixed[] = {"git",
                                        "-c",
                                        "core.fsmonitor=false",
                                        "-c",
                                        "core.hooksPath=/dev/null",
                                        "-c",
                                        "core.useReplaceRefs=false",
                                        "-c",
                                        "core.pager=cat",
                                        NULL};
    struct cp_strvec argv = {0};
    for (size_t i = 0; fixed[i] != NULL; i++)
        cp_strvec_push(&argv, fixed[i]);
    for (size_t i = 0; args[i] != NULL; i++)
        cp_strvec_push(&argv, args[i]);
    return cp_strvec_steal(&argv);
}

int cp_git_run_here(int gitfd, char *const *args, int outfd, const char *env1)
{
    int dirfd = fcntl(gitfd, F_DUPFD, 10); /* inherited: no close-on-exec */
    if (dirfd < 0)
        return -1;
    cleanup_free char *gitdir = xasprintf("GIT_DIR=/proc/self/fd/%d", dirfd);
    char *env[] = {"PATH=/usr/local/bin:/usr/bin:/bin",
                   "HOME=/nonexistent",
                   "LC_ALL=C",
                   "GIT_CONFIG_NOSYSTEM=1",
                   "GIT_CONFIG_GLOBAL=/dev/null",
                   "GIT_NO_REPLACE_OBJECTS=1",
                   "GIT_OPTIONAL_LOCKS=0",
                   "GIT_TERMINAL_PROMPT=0",
                   gitdir,
                   (char *)env1,
                   NULL};
    cleanup_strv char **v = git_argv(args);
    struct cp_spawn_opts so = {
        .in = {.how = CP_STDIO_NULL},
        .out = {.how = outfd >= 0 ? CP_STDIO_FD : CP_STDIO_NULL, .fd = outfd},
        .err = {.how = CP_STDIO_NULL},
        .path_search = true,
        .env = env,
        .default_signals = true,
        .what = "git"};
    struct cp_child c = CP_CHILD_INIT;
    int status = -1;
    cp_error_t err = NULL;
    if (cp_spawn(v, &so, &c, &err) == 0 && cp_child_wait(&c, &status, &err) == 0)
        status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    else
        status = -1;
    cp_error_free(&err);
    close(dirfd);
    return status;
}
