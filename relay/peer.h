/* Who is at the other end of a connection to the door. The port is open to every user of this
 * computer, and the URL that carries a ticket can be read by anyone who sees it (a process's
 * argv is public in /proc), so the door serves only connections whose socket its own uid owns:
 * for loopback TCP the kernel says who owns the peer's socket (NETLINK_SOCK_DIAG, else
 * /proc/net/tcp); for the control socket, SO_PEERCRED. */
#ifndef CONCH_RELAY_PEER_H
#define CONCH_RELAY_PEER_H

#include <netinet/in.h>
#include <sys/types.h>

#include "src/base/error.h"

/* The uid owning the socket at the far end of the accepted loopback TCP connection fd: asked of
 * the kernel's socket diagnostics, and of /proc/net/tcp (and tcp6) only when that fails. A
 * socket found nowhere (its owner closed it meanwhile) is an error: the caller refuses. */
int cp_relay_tcp_peer_uid(int fd, uid_t *out, cp_error_t *err);

/* The same, from /proc/net/tcp and /proc/net/tcp6 only (the fallback; exposed for tests). */
int cp_relay_tcp_peer_uid_proc(int fd, uid_t *out, cp_error_t *err);

/* One line of /proc/net/tcp or /proc/net/tcp6: 0 and the row's uid when it is the socket whose
 * own end is `own` and whose far end is `far` (IPv4, also as IPv4-mapped IPv6), else -1. */
int cp_relay_proc_tcp_row(const char *line, const struct sockaddr_in *own,
                          const struct sockaddr_in *far, uid_t *out);

#endif
