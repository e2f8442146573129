/* The proxy's listening socket, from "ADDR:PORT" or "[V6]:PORT" as --listen takes it. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/policy/policy.h"
#include "egress/proxy/proxy.h"
#include "src/base/util.h"

static int split_listen(const char *text, struct cp_ip *ip, long *port, cp_error_t *err)
{
    const char *colon = strrchr(text, ':');
    char addr[64];
    if (colon == NULL || cp_parse_long(colon + 1, 1, 65535, port) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--listen '%s' is not ADDRESS:PORT", text);
    const char *start = text;
    size_t len = (size_t)(colon - text);
    if (len >= 2 && text[0] == '[' && text[len - 1] == ']')
        start++, len -= 2;
    if (len >= sizeof(addr))
        return cp_error_make(err, CP_ERR_USAGE, 0, "--listen '%s': address too long", text);
    memcpy(addr, start, len);
    addr[len] = '\0';
    if (cp_ip_parse(addr, ip) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--listen '%s': '%s' is not an IP address", text,
                             addr);
    return 0;
}

int cp_egress_listen(const char *addr_port, int *fd_out, cp_error_t *err)
{
    struct cp_ip ip;
    long port;
    if (split_listen(addr_port, &ip, &port, err) < 0)
        return cp_error_code(err);
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (ip.family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        memcpy(&in->sin_addr, ip.bytes, 4);
        len = sizeof(*in);
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        memcpy(&in6->sin6_addr, ip.bytes, 16);
        len = sizeof(*in6);
    }
    cleanup_close int fd = socket(ip.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make the listening socket");
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 1024) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot listen on %s", addr_port);
    *fd_out = steal_fd(&fd);
    return 0;
}
