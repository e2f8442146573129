/* doctor --place ssh:HOST: the config, the name, the connection with its host key and login,
 * then the far side's tools and the copy's folder; one line each, a failure with one action. */
#include "config.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "places/ssh/exec.h"
#include "places/ssh/place-ssh.h"
#include "places/ssh/session.h"
#include "src/base/buf.h"
#include "src/base/shell.h"
#include "src/base/util.h"

/* Prints "missing TOOL", "nowrite" or "ok FREE_KB" for the copy's folder. */
static const char probe_script[] =
    "for t in tar find xargs stat mktemp; do\n"
    "  command -v \"$t\" >/dev/null 2>&1 || { echo \"missing $t\"; exit 0; }\n"
    "done\n"
    "d=.conch-place/copies\n"
    "mkdir -p \"$d\" 2>/dev/null && f=$(mktemp \"$d/.doctor.XXXXXX\" 2>/dev/null) && "
    "echo x >\"$f\" 2>/dev/null && rm -f \"$f\" || { rm -f \"${f:-}\"; echo nowrite; exit 0; }\n"
    "k=$(df -Pk \"$d\" 2>/dev/null | awk 'NR==2 {print $4}')\n"
    "echo \"ok ${k:-unknown}\"\n";

static int collect(void *ctx, const void *buf, size_t len)
{
    cp_buf_append(ctx, buf, len);
    return 0;
}

static int discard(void *ctx, const void *buf, size_t len)
{
    return 0;
}

static const char *via(const struct cp_ssh_host *h)
{
    if (h->proxy_command != NULL && strcmp(h->proxy_command, "none") != 0)
        return " through its ProxyCommand";
    if (h->proxy_jump != NULL && strcmp(h->proxy_jump, "none") != 0)
        return " through ProxyJump";
    return "";
}

/* The name as this computer resolves it; with a proxy, the far end resolves it instead. */
static int check_name(const struct cp_ssh_host *h, cp_error_t *err)
{
    if (via(h)[0] != '\0') {
        printf("name: %s is resolved%s: skipped here\n", h->hostname, via(h));
        return 0;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(h->hostname, NULL, &hints, &res);
    if (g != 0) {
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "the name %s is not found: %s", h->hostname,
                      gai_strerror(g));
        cp_error_hint(err,
                      "Check HostName for %s in ~/.ssh/config, or the network's name "
                      "service.",
                      h->alias);
        return CP_ERR_NOT_FOUND;
    }
    char addr[NI_MAXHOST] = "?";
    getnameinfo(res->ai_addr, res->ai_addrlen, addr, sizeof(addr), NULL, 0, NI_NUMERICHOST);
    freeaddrinfo(res);
    printf("name: %s is %s: ok\n", h->hostname, addr);
    return 0;
}

static int far_answer(const char *alias, const char *out, cp_error_t *err)
{
    if (strncmp(out, "missing ", 8) == 0) {
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "%s has no '%.*s' command, which the copy needs",
                      alias, (int)strcspn(out + 8, "\n"), out + 8);
        cp_error_hint(err, "Install it on %s (it is in every POSIX system's base tools).", alias);
        return CP_ERR_NOT_FOUND;
    }
    if (strncmp(out, "nowrite", 7) == 0) {
        cp_error_make(err, CP_ERR_DENIED, 0, "%s cannot write under ~/.conch-place/copies", alias);
        cp_error_hint(err, "Make your home on %s writable, or free space there (`df -h ~`).",
                      alias);
        return CP_ERR_DENIED;
    }
    if (strncmp(out, "ok ", 3) != 0) {
        cp_error_make(err, CP_ERR_FAILED, 0, "%s's login shell did not run a POSIX command", alias);
        cp_error_hint(err, "Give the login on %s a POSIX shell (sh, bash, zsh, dash, ksh).", alias);
        return CP_ERR_FAILED;
    }
    printf("far side: tar, find, xargs, stat, mktemp: ok\n");
    printf("copy folder: ~/.conch-place/copies writable, %.*s KB free: ok\n",
           (int)strcspn(out + 3, "\n"), out + 3);
    return 0;
}

static int check_far(struct cp_ssh_session *session, const char *alias, cp_error_t *err)
{
    cleanup_free char *command =
        cp_shell_command("exec /bin/sh", probe_script, "conch-doctor", NULL);
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 4096);
    struct cp_ssh_io io = {.in_fd = -1, .out = collect, .err = discard, .ctx = &out};
    int status = -1;
    if (cp_ssh_exec(session, command, &io, &status, err) < 0)
        return cp_error_wrap(err, "checking %s's tools", alias);
    return far_answer(alias, out.data != NULL ? out.data : "", err);
}

int cp_ssh_check(const char *place, const struct cp_config *cfg, cp_error_t *err)
{
    cleanup_ssh_fs struct cp_ssh_fs fs = {0};
    cleanup_ssh_host struct cp_ssh_host h = {0};
    const char *alias = place + strlen("ssh:");
    if (cp_ssh_fs_init_default(&fs, err) < 0 || cp_ssh_place_resolve(&fs, alias, &h, err) < 0)
        return cp_error_code(err);
    printf("config: %s is %s@%s port %ld%s: ok\n", place, h.user, h.hostname, h.port, via(&h));
    if (check_name(&h, err) < 0)
        return cp_error_code(err);
    cleanup_ssh_session struct cp_ssh_session *session = NULL;
    if (cp_ssh_connect_words(&fs, &h, &session, err) < 0)
        return cp_error_code(err);
    printf("connection: answered: ok\n");
    printf("host key: matches known_hosts: ok\n");
    printf("login: a key was accepted for %s: ok\n", h.user);
    return check_far(session, alias, err);
}
