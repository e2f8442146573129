/* The keeper's wire (keeper-wire.h): where its socket is. The socket itself and its messages
 * are src/base/unix-msg.h's. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "places/ssh/keeper-wire.h"
#include "src/base/digest.h"
#include "src/base/paths.h"
#include "src/base/unix-msg.h"
#include "src/base/util.h"

/* The folder, made 0700 and checked to be ours and closed to others. */
static char *keeper_dir(void)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char *dir = NULL;
    if (xdg != NULL && xdg[0] == '/') {
        dir = xasprintf("%s/conch-place", xdg);
    } else {
        cleanup_free char *home = NULL;
        cleanup_error cp_error_t err = NULL;
        if (cp_conch_home(1, &home, &err) < 0)
            return NULL;
        cleanup_free char *wp = xasprintf("%s/workplaces", home);
        if (mkdir(wp, 0700) < 0 && errno != EEXIST)
            return NULL;
        dir = xasprintf("%s/keepers", wp);
    }
    cleanup_error cp_error_t err = NULL;
    if (cp_unix_private_dir(dir, &err) < 0) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* The socket's path: one keeper per host as resolved now, per home and conch home. */
char *cp_ssh_keeper_path(const struct cp_ssh_host *h, const char *suffix)
{
    cleanup_free char *dir = keeper_dir();
    if (dir == NULL)
        return NULL;
    char port[32];
    snprintf(port, sizeof(port), "%ld", h->port);
    const char *fields[] = {
        h->alias,       h->hostname,          h->user, h->proxy_jump, h->proxy_command,
        getenv("HOME"), getenv("CONCH_HOME"), port};
    uint64_t k = CP_FNV_BASIS;
    for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
        k = cp_fnv_field(k, fields[i]);
    char *p = xasprintf("%s/ssh-%016llx%s", dir, (unsigned long long)k, suffix);
    struct sockaddr_un fits;
    cleanup_error cp_error_t err = NULL;
    if (cp_unix_addr(p, &fits, &err) < 0) {
        free(p);
        return NULL;
    }
    return p;
}
