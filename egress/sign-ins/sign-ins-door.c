/* The sign-ins' second door (sign-ins-door.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "egress/sign-ins/sign-ins-door.h"
#include "egress/sign-ins/sign-ins-feed.h"
#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

#define ANSWER_MAX   256
#define DOOR_STEP_MS 20

struct door {
    int fd;
    struct cp_egress_sign_ins_holder *table;
    FILE *log;
};

static socklen_t door_address(struct sockaddr_un *a)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    size_t n = strlen(CP_EGRESS_SIGN_INS_DOOR_NAME);
    memcpy(a->sun_path + 1, CP_EGRESS_SIGN_INS_DOOR_NAME, n); /* sun_path[0] == 0: abstract */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* One message, read until the sender's end or the deadline. */
static void serve(struct door *d, int c)
{
    struct cp_egress_sign_ins_feed f;
    cleanup_error cp_error_t err = NULL;
    /* Only the proxy's own user: in the sidecar, that is what the engine's exec runs as. */
    if (!cp_unix_peer_is_us(c) || cp_egress_sign_ins_feed_init(&f, c, d->table, d->log, &err) < 0)
        return;
    f.answer_fd = c;
    int64_t end = cp_now_ms() + CP_EGRESS_SIGN_INS_DOOR_MS;
    for (int left; (left = cp_deadline_left_ms(end)) > 0;) {
        struct pollfd p = {.fd = c, .events = POLLIN};
        if (poll(&p, 1, left) <= 0 || cp_egress_sign_ins_feed_read(&f) == 1)
            break;
    }
    cp_egress_sign_ins_feed_dispose(&f);
}

static void *door_main(void *arg)
{
    struct door *d = arg;
    for (;;) {
        int c = accept4(d->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno != EINTR && errno != ECONNABORTED)
                usleep(100 * 1000); /* out of descriptors: the loop's own limits apply */
            continue;
        }
        serve(d, c);
        close(c);
    }
    return NULL;
}

int cp_egress_sign_ins_door_open(struct cp_egress_sign_ins_holder *table, FILE *log,
                                 cp_error_t *err)
{
    struct sockaddr_un a;
    socklen_t len = door_address(&a);
    cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, 8) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the sign-ins' door");
    struct door *d = xmalloc(sizeof(*d));
    *d = (struct door){.fd = fd, .table = table, .log = log};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int r = pthread_create(&t, &attr, door_main, d);
    pthread_attr_destroy(&attr);
    if (r != 0) {
        free(d);
        return cp_error_make(err, CP_ERR_FAILED, r, "cannot start the sign-ins' door");
    }
    steal_fd(&fd);
    return 0;
}

static int read_answer(int fd, char *buf, size_t cap, size_t *len, cp_error_t *err)
{
    int64_t end = cp_now_ms() + CP_EGRESS_SIGN_INS_DOOR_MS;
    *len = 0;
    for (int left; (left = cp_deadline_left_ms(end)) > 0 && *len < cap;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, left) <= 0)
            break;
        ssize_t n = read(fd, buf + *len, cap - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        *len += (size_t)n;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "the proxy did not answer through the door");
}

/* A sidecar just started may not have bound its door yet (it does first thing): it is asked
 * again for a while. An abstract name cannot be watched for (no file), hence the short steps. */
static int door_connect(cp_error_t *err)
{
    struct sockaddr_un a;
    socklen_t alen = door_address(&a);
    int64_t end = cp_now_ms() + CP_EGRESS_SIGN_INS_DOOR_WAIT_MS;
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot reach the sign-ins' door");
        if (connect(fd, (struct sockaddr *)&a, alen) == 0)
            return fd;
        int e = errno;
        close(fd);
        if (e != ECONNREFUSED || cp_deadline_left_ms(end) <= 0)
            return cp_error_make(err, CP_ERR_FAILED, e, "no sign-ins' door here");
        usleep(DOOR_STEP_MS * 1000);
    }
}

int cp_egress_sign_ins_door_send(const char *line, size_t len, int out_fd, cp_error_t *err)
{
    cleanup_close int fd = door_connect(err);
    if (fd < 0)
        return cp_error_code(err);
    if (cp_write_all(fd, line, len) < 0 || shutdown(fd, SHUT_WR) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write through the door");
    char answer[ANSWER_MAX];
    size_t n = 0;
    if (read_answer(fd, answer, sizeof(answer), &n, err) < 0)
        return cp_error_code(err);
    if (n == 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the proxy refused the message (see its log)");
    return cp_write_all(out_fd, answer, n) < 0
               ? cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the answer")
               : 0;
}
