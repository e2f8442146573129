/* The control socket: the folder and socket made private, the peer checked, and the one
 * request it serves (mint a ticket). The plain ticket passes through here once, on its way to
 * the person's own process, and every copy of it is wiped before this returns. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "relay/control.h"
#include "src/base/digest.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define MAGIC          "conch-relay 1"
#define CONTROL_WAIT_S 5 /* a control peer that says nothing for this long is dropped */

int cp_relay_dir(char **out, cp_error_t *err)
{
    cleanup_free char *wp = NULL;
    if (cp_workplaces_dir(&wp, err) < 0)
        return cp_error_code(err);
    cleanup_free char *dir = xasprintf("%s/relay", wp);
    struct stat st;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0) {
        cp_error_make(err, CP_ERR_UNSAFE, 0, "%s is not a folder only you can enter", dir);
        cp_error_hint(err, "Remove it (it holds only the doors' sockets) and try again.");
        return CP_ERR_UNSAFE;
    }
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

static int unix_addr(const char *path, struct sockaddr_un *a, cp_error_t *err)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a->sun_path))
        return cp_error_make(err, CP_ERR_USAGE, 0, "the socket path %s is too long", path);
    memcpy(a->sun_path, path, strlen(path) + 1);
    return 0;
}

int cp_relay_control_listen(const char *path, cp_error_t *err)
{
    struct sockaddr_un a;
    if (unix_addr(path, &a, err) < 0)
        return cp_error_code(err);
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    unlink(path);
    mode_t old = umask(077);
    int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&a, sizeof(a));
    umask(old);
    if (r < 0 || chmod(path, 0600) < 0 || listen(fd, 64) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot listen on %s", path);
    return steal_fd(&fd);
}

bool cp_relay_peer_is_us(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == geteuid();
}

int cp_relay_msg_put(struct cp_buf *b, const char *s)
{
    return cp_buf_append(b, s, strlen(s) + 1);
}

int cp_relay_msg_send(int fd, const struct cp_buf *b)
{
    uint32_t len = (uint32_t)b->len;
    if (cp_write_all(fd, &len, sizeof(len)) < 0)
        return -1;
    return cp_write_all(fd, b->data, b->len);
}

int cp_relay_msg_recv_wait(int fd, struct cp_buf *out, int first_wait_ms)
{
    uint32_t len = 0;
    if (cp_read_full(fd, &len, sizeof(len), first_wait_ms) < 0 || len > CP_RELAY_MSG_MAX)
        return -1;
    cleanup_free char *data = xmalloc((size_t)len + 1);
    if (cp_read_full(fd, data, len, CONTROL_WAIT_S * 1000) < 0)
        return -1;
    return cp_buf_append(out, data, len);
}

int cp_relay_msg_recv(int fd, struct cp_buf *out)
{
    return cp_relay_msg_recv_wait(fd, out, CONTROL_WAIT_S * 1000);
}

ssize_t cp_relay_msg_split(const struct cp_buf *b, const char ***out)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->data[i] == '\0';
    if (b->len > 0 && b->data[b->len - 1] != '\0')
        return -1;
    const char **v = xcalloc(n + 1, sizeof(char *));
    size_t k = 0;
    for (size_t off = 0; off < b->len; k++) {
        v[k] = b->data + off;
        off += strlen(v[k]) + 1;
    }
    *out = v;
    return (ssize_t)k;
}

int cp_relay_run_msg(const char *place, const char *workdir, char *const *argv, struct cp_buf *out,
                     cp_error_t *err)
{
    bool fits = cp_relay_msg_put(out, place) == 0 && cp_relay_msg_put(out, workdir) == 0;
    size_t need = strlen(place) + strlen(workdir) + 2, n = 0;
    for (; argv[n] != NULL; n++) {
        fits = fits && cp_relay_msg_put(out, argv[n]) == 0;
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
    if (cp_relay_msg_put(&b, word) == 0 && cp_relay_msg_put(&b, text) == 0)
        (void)cp_relay_msg_send(fd, &b);
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
    ssize_t n = cp_relay_msg_recv(fd, &b) == 0 ? cp_relay_msg_split(&b, &v) : -1;
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
    struct sockaddr_un a;
    if (unix_addr(socket_path, &a, err) < 0)
        return cp_error_code(err);
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        cp_error_make(err, CP_ERR_UNREACHABLE, errno, "no relay door answers at %s", socket_path);
        cp_error_hint(err, "Open one with 'conch-place relay serve' (its JSON line names the "
                           "socket), or pass --socket.");
        return CP_ERR_UNREACHABLE;
    }
    if (!cp_relay_peer_is_us(fd))
        return cp_error_make(err, CP_ERR_DENIED, 0, "the door at %s is not yours", socket_path);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, CP_RELAY_MSG_MAX);
    char num[32];
    snprintf(num, sizeof(num), "%ld", ttl);
    bool fits = cp_relay_msg_put(&b, MAGIC) == 0 && cp_relay_msg_put(&b, "mint") == 0 &&
                cp_relay_msg_put(&b, folder != NULL ? folder : "") == 0 &&
                cp_relay_msg_put(&b, num) == 0;
    for (size_t i = 0; fits && argv[i] != NULL; i++)
        fits = cp_relay_msg_put(&b, argv[i]) == 0;
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
    if (cp_relay_msg_send(fd, &b) < 0 || cp_relay_msg_recv(fd, &r) < 0 ||
        cp_relay_msg_split(&r, &v) != 2)
        return cp_error_make(err, CP_ERR_FAILED, errno, "the door at %s did not answer",
                             socket_path);
    if (strcmp(v[0], "ok") != 0)
        return cp_error_make(err, CP_ERR_DENIED, 0, "the door refused the ticket: %s", v[1]);
    *out = xstrdup(v[1]);
    explicit_bzero(r.data, r.len);
    return 0;
}
