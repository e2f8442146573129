/* Shell quoting and the `sh -c` builder (shell.h), one of each where ssh and cloud each had
 * their own. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/shell.h"
#include "src/base/util.h"

/* A built line is bounded by its input (at most 4 bytes out for 1 in, plus the quotes), which
 * is in memory already; like xasprintf, building it cannot fail but for memory. */
#define COMMAND_MAX (SIZE_MAX / 2)

int cp_shell_quote_word(struct cp_buf *out, const char *s)
{
    if (cp_buf_append(out, "'", 1) < 0)
        return -1;
    for (const char *p = s; *p != '\0';) {
        size_t run = strcspn(p, "'");
        if (cp_buf_append(out, p, run) < 0)
            return -1;
        p += run;
        if (*p == '\'') {
            if (cp_buf_append(out, "'\\''", 4) < 0)
                return -1;
            p++;
        }
    }
    return cp_buf_append(out, "'", 1);
}

char *cp_shell_quoted(const char *s)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, COMMAND_MAX);
    if (cp_shell_quote_word(&b, s) < 0)
        abort(); /* unreachable: COMMAND_MAX is the memory's size */
    return cp_buf_steal(&b);
}

int cp_shell_quote_argv(struct cp_buf *out, const char *const *argv)
{
    for (size_t i = 0; argv[i] != NULL; i++)
        if ((i > 0 && cp_buf_append(out, " ", 1) < 0) || cp_shell_quote_word(out, argv[i]) < 0)
            return -1;
    return 0;
}

static bool plain_word(const char *s)
{
    return s[0] != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                     "0123456789_./+-") == strlen(s);
}

char *cp_shell_command(const char *shell, const char *script, const char *name,
                       const char *const *args)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, COMMAND_MAX);
    bool ok = cp_buf_append(&b, shell, strlen(shell)) == 0 && cp_buf_append(&b, " -c ", 4) == 0 &&
              cp_shell_quote_word(&b, script) == 0;
    if (ok && name != NULL) {
        ok = cp_buf_append(&b, " ", 1) == 0 &&
             (plain_word(name) ? cp_buf_append(&b, name, strlen(name))
                               : cp_shell_quote_word(&b, name)) == 0;
    }
    for (size_t i = 0; ok && args != NULL && args[i] != NULL; i++)
        ok = cp_buf_append(&b, " ", 1) == 0 && cp_shell_quote_word(&b, args[i]) == 0;
    if (!ok)
        abort(); /* unreachable: COMMAND_MAX is the memory's size */
    return cp_buf_steal(&b);
}
