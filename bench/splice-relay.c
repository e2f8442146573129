/* The proxy's fair floor for bench/egress-proxy: a bare TCP relay with nothing to decide. It
 * listens on one address and carries each connection to one target, one blocking thread per
 * direction, through splice(2) (or read/write with --copy). A proxied transfer crosses
 * loopback TCP twice where a direct one crosses it once; this relay pays the same second
 * crossing, so what the proxy costs beyond it is the proxy's own. Not installed.
 * Usage: bench/splice-relay LISTEN_IP PORT TARGET_IP PORT [--copy] */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/base/util.h"

#define CHUNK     (1024 * 1024)
#define COPY_SIZE (64 * 1024) /* what the proxy copies with when it has no pipe */

static struct sockaddr_in target;
static bool copy_mode;

struct leg {
    int from, to;
};

static void splice_leg(const struct leg *l)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return;
    fcntl(p[1], F_SETPIPE_SZ, CHUNK);
    for (;;) {
        ssize_t n = splice(l->from, NULL, p[1], NULL, CHUNK, SPLICE_F_MOVE);
        if (n <= 0)
            break;
        while (n > 0) {
            ssize_t w = splice(p[0], NULL, l->to, NULL, (size_t)n, SPLICE_F_MOVE);
            if (w <= 0)
                goto out;
            n -= w;
        }
    }
out:
    close(p[0]);
    close(p[1]);
}

static void copy_leg(const struct leg *l)
{
    cleanup_free char *buf = xmalloc(COPY_SIZE);
    for (;;) {
        ssize_t n = read(l->from, buf, COPY_SIZE);
        if (n <= 0)
            return;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = send(l->to, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
            if (w <= 0)
                return;
            off += w;
        }
    }
}

static void *leg_run(void *arg)
{
    const struct leg *l = arg;
    if (copy_mode)
        copy_leg(l);
    else
        splice_leg(l);
    shutdown(l->to, SHUT_WR);
    return NULL;
}

static void *conn_run(void *arg)
{
    int client = (int)(intptr_t)arg;
    int up = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (up >= 0 && connect(up, (struct sockaddr *)&target, sizeof(target)) == 0) {
        struct leg there = {client, up}, back = {up, client};
        pthread_t t;
        if (pthread_create(&t, NULL, leg_run, &there) == 0) {
            leg_run(&back);
            pthread_join(t, NULL);
        }
    }
    if (up >= 0)
        close(up);
    close(client);
    return NULL;
}

static int parse_addr(const char *ip, const char *port, struct sockaddr_in *out)
{
    long p = 0;
    memset(out, 0, sizeof(*out));
    out->sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &out->sin_addr) != 1 || cp_parse_long(port, 1, 65535, &p) < 0)
        return -1;
    out->sin_port = htons((uint16_t)p);
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in listen_at;
    if (argc < 5 || parse_addr(argv[1], argv[2], &listen_at) < 0 ||
        parse_addr(argv[3], argv[4], &target) < 0) {
        fprintf(stderr, "usage: splice-relay LISTEN_IP PORT TARGET_IP PORT [--copy]\n");
        return 2;
    }
    copy_mode = argc > 5 && strcmp(argv[5], "--copy") == 0;
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (fd < 0 || bind(fd, (struct sockaddr *)&listen_at, sizeof(listen_at)) < 0 ||
        listen(fd, 4096) < 0) {
        perror("splice-relay: cannot listen");
        return 1;
    }
    for (;;) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            perror("splice-relay: accept");
            return 1;
        }
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&t, &attr, conn_run, (void *)(intptr_t)c) != 0)
            close(c);
        pthread_attr_destroy(&attr);
    }
}
