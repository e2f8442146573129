/* `key set|remove daytona`: the key comes from standard input, never from argv. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/command.h"
#include "src/base/secrets.h"
#include "src/base/util.h"

/* Reads at most CP_SECRET_MAX + 2 bytes: a key, one newline, and one byte to tell "too long". */
static int read_key(char **out, cp_error_t *err)
{
    size_t cap = CP_SECRET_MAX + 2, len = 0;
    cleanup_secret char *buf = xcalloc(1, cap + 1);
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno,
                                 "cannot read the key from standard input");
        if (n == 0 || (len += (size_t)n) == cap)
            break;
    }
    if (len == cap)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the key is longer than %d bytes",
                             CP_SECRET_MAX);
    /* Exactly one trailing newline is the terminal's, not the key's (abuse case 121). */
    if (len > 0 && buf[len - 1] == '\n')
        buf[--len] = '\0';
    if (cp_secret_check(buf, len, err) < 0)
        return cp_error_code(err);
    *out = steal_pointer(&buf);
    return 0;
}

static int key_handler(const struct cp_parsed *args, cp_error_t *err)
{
    if (args->nrest != 2 ||
        (strcmp(args->rest[0], "set") != 0 && strcmp(args->rest[0], "remove") != 0))
        return cp_error_make(err, CP_ERR_USAGE, 0, "key needs 'set daytona' or 'remove daytona'");
    if (strcmp(args->rest[1], "daytona") != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a key conch-place keeps (daytona)",
                             args->rest[1]);
    if (strcmp(args->rest[0], "remove") == 0)
        return cp_secrets_put("daytona", NULL, err) < 0 ? cp_error_code(err) : 0;
    if (isatty(STDIN_FILENO))
        fprintf(stderr, "conch-place: paste the Daytona API key, then press Enter and Ctrl-D\n");
    cleanup_secret char *key = NULL;
    if (read_key(&key, err) < 0 || cp_secrets_put("daytona", key, err) < 0)
        return cp_error_code(err);
    return 0;
}

static const struct cp_option options[] = {{0}};

const struct cp_command cp_cmd_key = {
    .name = "key",
    .synopsis = "set|remove daytona",
    .summary = "store the Daytona API key (read from standard input) or remove it",
    .options = options,
    .handler = key_handler,
    .failure_status = 1,
    .words = {"set remove", "daytona"},
};
