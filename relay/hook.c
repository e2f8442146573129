/* `relay hook`, the half that touches the computer: the call from standard input, the
 * person's settings files, the assistant's process found above the hook's shells, this
 * folder's door opened when it is not there, a ticket minted, and the answer printed. Any
 * failure ends in one line on standard error and status 2, the only status on which Claude
 * Code blocks a call: the command the model wrote never runs on this computer. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "relay/hook.h"
#include "relay/relay.h"
#include "src/base/paths.h"
#include "src/base/shell.h"
#include "src/base/spawn.h"
#include "src/base/util.h"

#define TICKET_TTL  120 /* seconds: Claude Code runs the swapped command at once */
#define SHELLS_DEEP 16  /* shells between the assistant and the hook, at most */

static void add_file(struct cp_hook_rules *r, const char *path, cp_error_t *err)
{
    cleanup_free char *data = NULL;
    size_t len = 0;
    cleanup_error cp_error_t e = NULL;
    if (cp_read_file(path, CP_HOOK_SETTINGS_MAX, &data, &len, &e) < 0) {
        if (e->code != CP_ERR_NOT_FOUND)
            cp_error_make(err, e->code, e->sys_errno, "%s", e->msg);
        return;
    }
    cp_hook_rules_add(r, path, data, len, err);
}

/* The settings files Claude Code reads its permission rules from, all of them. */
static int load_rules(const char *cwd, struct cp_hook_rules *r, cp_error_t *err)
{
    const char *project = getenv("CLAUDE_PROJECT_DIR");
    const char *config = getenv("CLAUDE_CONFIG_DIR");
    const char *home = getenv("HOME");
    project = project != NULL && *project != '\0' ? project : cwd;
    cleanup_strvec struct cp_strvec files = {0};
    cp_strvec_push(&files, "/etc/claude-code/managed-settings.json");
    if (config != NULL && *config != '\0')
        cp_strvec_pushf(&files, "%s/settings.json", config);
    else if (home != NULL && *home != '\0')
        cp_strvec_pushf(&files, "%s/.claude/settings.json", home);
    if (project != NULL) {
        cp_strvec_pushf(&files, "%s/.claude/settings.json", project);
        cp_strvec_pushf(&files, "%s/.claude/settings.local.json", project);
    }
    for (size_t i = 0; i < files.n && *err == NULL; i++)
        add_file(r, files.v[i], err);
    return *err != NULL ? cp_error_code(err) : 0;
}

static bool is_shell(const char *comm)
{
    static const char *const shells[] = {"sh",  "dash", "bash", "ash",
                                         "zsh", "ksh",  "mksh", "busybox"};
    for (size_t i = 0; i < ARRAY_SIZE(shells); i++)
        if (strcmp(comm, shells[i]) == 0)
            return true;
    return false;
}

/* pid's name and parent from /proc/PID/stat (the name is in parentheses and may hold any
 * byte, so the fields are read after its last ')'). */
static int proc_stat(pid_t pid, char *comm, size_t size, pid_t *ppid_out)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
    long ppid = 0;
    if (open_p == NULL || close_p == NULL || close_p < open_p ||
        sscanf(close_p + 1, " %*c %ld", &ppid) != 1)
        return -1;
    snprintf(comm, size, "%.*s", (int)(close_p - open_p - 1), open_p + 1);
    *ppid_out = (pid_t)ppid;
    return 0;
}

/* The assistant's process: the first above this one that is not a shell. Claude Code starts a
 * hook through /bin/sh -c, and a registered `sh HOOK` adds one more; under dash neither execs
 * its last command, so the parent alone is a shell that ends with the call. */
static int find_turn(pid_t *out, cp_error_t *err)
{
    const char *given = getenv("CONCH_RELAY_EXIT_WITH");
    long v = 0;
    if (given != NULL && *given != '\0') {
        if (cp_parse_long(given, 2, 1L << 22, &v) < 0)
            return cp_error_make(err, CP_ERR_USAGE, 0, "CONCH_RELAY_EXIT_WITH '%s' is no pid",
                                 given);
        *out = (pid_t)v;
        return 0;
    }
    pid_t pid = getppid();
    for (int i = 0; i < SHELLS_DEEP && pid > 1; i++) {
        char comm[64];
        pid_t ppid = 0;
        if (proc_stat(pid, comm, sizeof(comm), &ppid) < 0)
            break;
        if (!is_shell(comm)) {
            *out = pid;
            return 0;
        }
        pid = ppid;
    }
    cp_error_make(err, CP_ERR_NOT_FOUND, 0, "cannot find the assistant's process above the hook");
    cp_error_hint(err, "Register the hook as docs/relay.md shows, or set "
                       "CONCH_RELAY_EXIT_WITH to the assistant's pid.");
    return CP_ERR_NOT_FOUND;
}

/* `relay serve --detach` for folder, closing with turn: its words when it fails. */
static int open_door(const char *folder, pid_t turn, cp_error_t *err)
{
    char pid[24];
    snprintf(pid, sizeof(pid), "%ld", (long)turn);
    char *const argv[] = {"conch-place",  "relay",       "serve", "--detach", "--workdir",
                          (char *)folder, "--exit-with", pid,     NULL};
    struct cp_spawn_opts o = {.in = {.how = CP_STDIO_NULL},
                              .out = {.how = CP_STDIO_NULL},
                              .err = {.how = CP_STDIO_PIPE},
                              .file = "/proc/self/exe",
                              .what = "the relay's door"};
    cleanup_child struct cp_child c = CP_CHILD_INIT;
    if (cp_spawn(argv, &o, &c, err) < 0)
        return cp_error_code(err);
    cleanup_free char *words = NULL;
    cleanup_error cp_error_t ignored = NULL;
    if (cp_read_fd("the door's words", c.err, 4096, &words, NULL, &ignored) < 0)
        words = NULL;
    int status = 0;
    if (cp_child_wait(&c, &status, err) < 0)
        return cp_error_code(err);
    if (cp_wait_status_code(status) != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "this folder's relay door did not open: %s",
                             words != NULL ? cp_trim_blanks(words) : "(no words)");
    return 0;
}

static void take_error(cp_error_t *err, const cp_error_t *from)
{
    cp_error_make(err, (*from)->code, (*from)->sys_errno, "%s", (*from)->msg);
    if ((*from)->hint != NULL)
        cp_error_hint(err, "%s", (*from)->hint);
}

/* A ticket for `sh -c command` from folder's door, opened first when none answers. */
static int mint(const char *folder, const char *command, char **out, cp_error_t *err)
{
    cleanup_free char *sock = NULL;
    if (cp_relay_folder_path(folder, ".sock", &sock, err) < 0)
        return cp_error_code(err);
    char *const argv[] = {"sh", "-c", (char *)command, NULL};
    cleanup_error cp_error_t first = NULL;
    if (cp_relay_mint(sock, folder, TICKET_TTL, argv, out, &first) == 0)
        return 0;
    if (first->code != CP_ERR_UNREACHABLE) {
        take_error(err, &first);
        return cp_error_code(err);
    }
    pid_t turn = 0;
    if (find_turn(&turn, err) < 0 || open_door(folder, turn, err) < 0)
        return cp_error_code(err);
    return cp_relay_mint(sock, folder, TICKET_TTL, argv, out, err);
}

/* The runner that replaces the command: this binary by its own path, the URL in a file. */
static int swapped_command(const char *url, char **out, cp_error_t *err)
{
    cleanup_free char *file = NULL;
    if (cp_relay_url_file_write(url, &file, err) < 0)
        return cp_error_code(err);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot tell where conch-place is");
    self[n] = '\0';
    cleanup_free char *qs = cp_shell_quoted(self);
    cleanup_free char *qf = cp_shell_quoted(file);
    *out = xasprintf("%s relay run --file %s", qs, qf);
    return 0;
}

static int answer(struct cp_hook_call *c, enum cp_hook_verdict v, const char *rule, cp_error_t *err)
{
    cleanup_free char *reason = NULL;
    cleanup_free char *swapped = NULL;
    if (v == CP_HOOK_DENY) {
        reason = xasprintf("your rule Bash(%s) denies this command; it was not run",
                           rule != NULL ? rule : "");
    } else {
        cleanup_free char *folder = realpath(c->cwd != NULL ? c->cwd : ".", NULL);
        cleanup_free char *url = NULL;
        if (folder == NULL)
            return cp_error_make(err, CP_ERR_FAILED, errno, "the work folder '%s' cannot be used",
                                 c->cwd != NULL ? c->cwd : ".");
        if (mint(folder, c->command, &url, err) < 0 || swapped_command(url, &swapped, err) < 0)
            return cp_error_code(err);
        explicit_bzero(url, strlen(url));
        reason = xasprintf("conch-place relay: runs in the sealed work place: %s", c->command);
    }
    cleanup_free char *line = cp_hook_answer(c, v, reason, swapped);
    if (printf("%s\n", line) < 0 || fflush(stdout) != 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the hook's answer");
    return 0;
}

static int hook(cp_error_t *err)
{
    cleanup_free char *data = NULL;
    size_t len = 0;
    if (cp_read_fd("the hook's input", STDIN_FILENO, CP_HOOK_INPUT_MAX, &data, &len, err) < 0)
        return cp_error_code(err);
    struct cp_hook_call c;
    int r = cp_hook_call_parse(data, len, &c, err);
    struct cp_hook_rules rules = {0};
    if (r == 0)
        r = load_rules(c.cwd, &rules, err);
    const char *rule = NULL;
    if (r == 0) {
        enum cp_hook_verdict v = cp_hook_judge(&rules, c.command, c.mode, &rule);
        r = answer(&c, v, rule, err);
    }
    cp_hook_rules_dispose(&rules);
    cp_hook_call_dispose(&c);
    return r;
}

int cp_relay_hook(void)
{
    cleanup_error cp_error_t err = NULL;
    if (hook(&err) == 0)
        return 0;
    cleanup_free char *line =
        xasprintf("conch-place relay hook: %s.%s%s Nothing was run.", err->msg,
                  err->hint != NULL ? " " : "", err->hint != NULL ? err->hint : "");
    for (char *p = line; *p != '\0'; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "%s\n", line);
    return 2;
}
