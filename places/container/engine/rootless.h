/* What rootless boxes still need on this computer (rootless.c). */
#ifndef CONCH_ROOTLESS_H
#define CONCH_ROOTLESS_H

#include <stdbool.h>

/* /sys/fs/cgroup is cgroup v2 (unified). */
bool cp_cgroup_v2(void);
/* The person's own cgroup may hand memory, pids and cpu to boxes. */
bool cp_cgroup_delegated(void);
/* The one step before an engine without root can limit a box, or NULL when none is missing. */
char *cp_rootless_limits_step(void);
/* For a person without root: the first step rootless Podman still needs to run at all
 * (newuidmap, a subuid range, /dev/net/tun), or NULL when none is missing (and always for
 * root). Limits are cp_rootless_limits_step's. */
char *cp_rootless_step(void);

#endif
