/* The control socket: the folder and socket made private, the peer checked, and the one
 * request it serves (mint a ticket). The plain ticket passes through here once, on its way to
 * the person's own process, and every copy of it is wiped before this returns. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "relay/control.h"
#include "relay/relay.h"
#include "src/base/digest.h"
#include "src/base/paths.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

#define MAGIC          "conch-relay 1"
#define CONTROL_WAIT_S 5 /* a control peer that says nothing for this long is dropped */

int cp_relay_dir(char **out, cp_error_t *err)
{
    cleanup_free char *wp = NULL;
    if (cp_workplaces_dir(&wp, err) < 0)
        return cp_error_code(err);
    cleanup_free char *dir = xasprintf("%s/relay", wp);
    int r = cp_unix_private_dir(dir, err);
    if (r == CP_ERR_UNSAFE)
        cp_error_hint(err, "Remove it (it holds only the doors' sockets) and try again.");
    if (r < 0)
        return r;
    *out = steal_pointer(&dir);
    return 0;
}

int cp_relay_folder_path(const char *real_folder, const char *suffix, char **out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (cp_relay_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *key = cp_folder_key(real_folder);
    char *p = xasprintf("%s/%s%s", dir, key, suffix);
    if (strlen(p) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        cp_error_make(err, CP_ERR_FAILED, 0, "the door's socket path %s is too long", p);
        cp_error_hint(err, "Set CONCH_HOME to a shorter folder.");
        free(p);
        return CP_ERR_FAILED;
    }
    *out = p;
    return 0;
}

int cp_relay_msg_recv_wait(int fd, struct cp_buf *out, int first_wait_ms)
{
    struct cp_unix_recv how = {.max = CP_RELAY_MSG_MAX,
                               .first_wait_ms = first_wait_ms,
                               .rest_wait_ms = CONTROL_WAIT_S * 1000};
    return cp_unix_msg_recv(fd, out, &how);
}

int cp_relay_msg_recv(int fd, struct cp_buf *out)
{
    return cp_relay_msg_recv_wait(fd, out, CONTROL_WAIT_S * 1000);
}

ssize_t cp_relay_msg_split(const struct cp_buf *b, const char ***out)
{
    return cp_unix_msg_split(b, out);
}

int cp_relay_run_msg(const char *place, const char *workdir, char *const *argv, struct cp_buf *out,
                     cp_error_t *err)
{
    bool fits = cp_unix_msg_put(out, place) == 0 && cp_unix_msg_put(out, workdir) == 0;
    size_t need = strlen(place) + strlen(workdir) + 2, n = 0;
    for (; argv[n] != NULL; n++) {
        fits = fits && cp_unix_msg_put(out, argv[n]) == 0;
        need += strlen(argv[n]) + 1;
    }
    if (fits)
        return 0;
    cp_error_make(err, CP_ERR_TOO_BIG, 0,
                  "the command's %zu arguments come to %zu bytes with the place and folder, over "
                  "the %d a ticket carries whole",
                  n, need, CP_RELAY_MSG_MAX);
    cp_error_hint(err, "Put the long arguments in a file in the work folder and read it there.");
    return CP_ERR_TOO_BIG;
}

/* Sends "ok URL" or "no REASON", then wipes the message (it may hold a ticket). */
static void reply(int fd, const char *word, const char *text)
{
    struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    if (cp_unix_msg_put(&b, word) == 0 && cp_unix_msg_put(&b, text) == 0)
        (void)cp_unix_msg_send(fd, &b, NULL, 0);
    explicit_bzero(b.data, b.len);
    cp_buf_dispose(&b);
}

size_t cp_relay_control_refusal(char *out, size_t size, const char *reason)
{
    uint32_t len = (uint32_t)(strlen("no") + 1 + strlen(reason) + 1);
    if (size < sizeof(len) + len)
        return 0;
    memcpy(out, &len, sizeof(len));
    memcpy(out + sizeof(len), "no", 3);
    memcpy(out + sizeof(len) + 3, reason, strlen(reason) + 1);
    return sizeof(len) + len;
}

/* Mints for the command in v (NULL-ended) once it is known to reach the run whole. */
static int mint_for(const struct cp_relay_door_info *door, long ttl, char *const *argv,
                    char url[128], cp_error_t *err)
{
    cleanup_buf struct cp_buf run;
    cp_buf_init(&run, CP_RELAY_MSG_MAX);
    if (cp_relay_run_msg(door->place, door->workdir, argv, &run, err) < 0)
        return cp_error_code(err);
    char ticket[CP_RELAY_TICKET_HEX + 1];
    int r = cp_tickets_mint(door->tickets, argv, door->place, door->workdir, ttl, cp_tickets_now(),
                            ticket, err);
    if (r == 0)
        snprintf(url, 128, "http://127.0.0.1:%u/run/%s", door->port, ticket);
    explicit_bzero(ticket, sizeof(ticket));
    return r;
}

void cp_relay_control_serve(int fd, const struct cp_relay_door_info *door)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    cleanup_free const char **v = NULL;
    ssize_t n = cp_relay_msg_recv(fd, &b) == 0 ? cp_unix_msg_split(&b, &v) : -1;
    if (n < 5 || strcmp(v[0], MAGIC) != 0 || strcmp(v[1], "mint") != 0) {
        reply(fd, "no", "the door did not understand the request");
        return;
    }
    cleanup_error cp_error_t err = NULL;
    long ttl = 0;
    char url[128];
    if (v[2][0] != '\0' && strcmp(v[2], door->workdir) != 0) {
        cp_error_make(&err, CP_ERR_USAGE, 0, "this door serves %s, not %s", door->workdir, v[2]);
    } else if (cp_parse_long(v[3], 1, CP_TICKET_TTL_MAX, &ttl) < 0) {
        cp_error_make(&err, CP_ERR_USAGE, 0, "a ticket lasts 1 to %d seconds, not '%s'",
                      CP_TICKET_TTL_MAX, v[3]);
    } else if (mint_for(door, ttl, (char *const *)v + 4, url, &err) == 0) {
        reply(fd, "ok", url);
        explicit_bzero(url, sizeof(url));
        return;
    }
    if (err->hint != NULL) {
        cleanup_free char *words = xasprintf("%s. %s", err->msg, err->hint);
        reply(fd, "no", words);
        return;
    }
    reply(fd, "no", err->msg);
}

int cp_relay_mint(const char *socket_path, const char *folder, long ttl, char *const *argv,
                  char **out, cp_error_t *err)
{
    cleanup_error cp_error_t reach = NULL;
    cleanup_close int fd = cp_unix_connect(socket_path, &reach);
    if (fd == CP_ERR_USAGE) /* the path is too long */
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s", reach->msg);
    if (fd < 0) {
        cp_error_make(err, CP_ERR_UNREACHABLE, reach->sys_errno, "no relay door answers at %s",
                      socket_path);
        cp_error_hint(err, "Open one with 'conch-place relay serve' (its JSON line names the "
                           "socket), or pass --socket.");
        return CP_ERR_UNREACHABLE;
    }
    if (!cp_unix_peer_is_us(fd))
        return cp_error_make(err, CP_ERR_DENIED, 0, "the door at %s is not yours", socket_path);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    char num[32];
    snprintf(num, sizeof(num), "%ld", ttl);
    bool fits = cp_unix_msg_put(&b, MAGIC) == 0 && cp_unix_msg_put(&b, "mint") == 0 &&
                cp_unix_msg_put(&b, folder != NULL ? folder : "") == 0 &&
                cp_unix_msg_put(&b, num) == 0;
    for (size_t i = 0; fits && argv[i] != NULL; i++)
        fits = cp_unix_msg_put(&b, argv[i]) == 0;
    if (!fits) {
        cp_error_make(err, CP_ERR_TOO_BIG, 0,
                      "the command and its arguments are over the %d bytes a ticket carries "
                      "whole; no ticket was made",
                      CP_RELAY_MSG_MAX);
        cp_error_hint(err,
                      "Put the long arguments in a file in the work folder and read it there.");
        return CP_ERR_TOO_BIG;
    }
    cleanup_buf struct cp_buf r;
    cp_buf_init(&r, CP_RELAY_MSG_MAX);
    cleanup_free const char **v = NULL;
    if (cp_unix_msg_send(fd, &b, NULL, 0) < 0 || cp_relay_msg_recv(fd, &r) < 0 ||
        cp_unix_msg_split(&r, &v) != 2)
        return cp_error_make(err, CP_ERR_FAILED, errno, "the door at %s did not answer",
                             socket_path);
    if (strcmp(v[0], "ok") != 0)
        return cp_error_make(err, CP_ERR_DENIED, 0, "the door refused the ticket: %s", v[1]);
    *out = xstrdup(v[1]);
    explicit_bzero(r.data, r.len);
    return 0;
}
