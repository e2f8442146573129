/* Integration driver: ssh_run NAME [--stdin] -- COMMAND [ARG...] runs the command on the
 * ssh:NAME place (resolved from $HOME/.ssh/config) and exits with its status, or 125 with
 * conch-place's paragraph on standard error when the place itself fails. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "places/ssh/config-host.h"
#include "places/ssh/exec.h"
#include "places/ssh/session.h"
#include "src/base/buf.h"
#include "src/base/shell.h"
#include "src/base/util.h"

static int fail(cp_error_t *err)
{
    cp_error_print(err);
    fprintf(stderr, "code=%d\n", cp_error_code(err));
    return 125;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    bool with_stdin = strcmp(argv[2], "--stdin") == 0;
    int sep = with_stdin ? 3 : 2;
    if (strcmp(argv[sep], "--") != 0)
        return 2;
    cleanup_error cp_error_t err = NULL;
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    cleanup_ssh_host struct cp_ssh_host h = {0};
    cleanup_ssh_session struct cp_ssh_session *s = NULL;
    if (cp_ssh_fs_init_default(&fs, &err) < 0 || cp_ssh_place_resolve(&fs, argv[1], &h, &err) < 0 ||
        cp_ssh_connect(&fs, &h, &s, &err) < 0)
        return fail(&err);
    cleanup_buf struct cp_buf command;
    cp_buf_init(&command, (size_t)16 * 1024 * 1024);
    if (cp_shell_quote_argv(&command, (const char *const *)argv + sep + 1) < 0)
        return 2;
    struct cp_ssh_io io = {
        .in_fd = with_stdin ? 0 : -1, .out = cp_ssh_sink_stdout, .err = cp_ssh_sink_stderr};
    int status = 0;
    if (cp_ssh_exec(s, command.data, &io, &status, &err) < 0)
        return fail(&err);
    return status;
}
