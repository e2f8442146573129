/* What a person without root still lacks for rootless boxes, read off this computer: each rule
 * is one step an administrator or the person takes, in the order rootless Podman needs them. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "places/container/engine/rootless.h"
#include "src/base/util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* A line of /etc/subuid or /etc/subgid for the person, by name or by number. */
static bool has_range(const char *file, const char *name, unsigned id)
{
    cleanup_fclose FILE *f = fopen(file, "re");
    char line[512], num[16];
    snprintf(num, sizeof(num), "%u", id);
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        *colon = '\0';
        if ((name != NULL && strcmp(line, name) == 0) || strcmp(line, num) == 0)
            return true;
    }
    return false;
}

/* newuidmap must be set-uid root or carry its file capability to map a subuid range. */
static bool helper_usable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           ((st.st_mode & S_ISUID) != 0 || getxattr(path, "security.capability", NULL, 0) > 0);
}

bool cp_cgroup_v2(void)
{
    struct statfs fs;
    return statfs("/sys/fs/cgroup", &fs) == 0 && (unsigned long)fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* The controllers the person's own cgroup may hand to boxes (cgroup v2): systemd delegates
 * them to user@UID.service only when told to. */
bool cp_cgroup_delegated(void)
{
    cleanup_fclose FILE *f = fopen("/proc/self/cgroup", "re");
    char line[4096], path[4200];
    bool ok = false;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "0::", 3) != 0)
            continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cgroup.controllers", line + 3);
        cleanup_fclose FILE *c = fopen(path, "re");
        char have[512] = "";
        if (c != NULL && fgets(have, sizeof(have), c) != NULL)
            ok = strstr(have, "memory") != NULL && strstr(have, "pids") != NULL &&
                 strstr(have, "cpu") != NULL;
    }
    return ok;
}

char *cp_rootless_limits_step(void)
{
    if (!cp_cgroup_v2())
        return xstrdup("this computer runs cgroup v1, where an engine without root cannot "
                       "limit a box: boot with cgroup v2 (the kernel option "
                       "systemd.unified_cgroup_hierarchy=1)");
    if (!cp_cgroup_delegated())
        return xstrdup("the cgroup v2 controllers memory, pids and cpu are not delegated to "
                       "you: as root, add a drop-in for user@.service with "
                       "'[Service] Delegate=cpu cpuset io memory pids', run 'systemctl "
                       "daemon-reload', and log in again");
    return NULL;
}

char *cp_rootless_step(void)
{
    if (geteuid() == 0)
        return NULL;
    struct passwd *pw = getpwuid(getuid());
    const char *name = pw != NULL ? pw->pw_name : NULL;
    if (!helper_usable("/usr/bin/newuidmap") || !helper_usable("/usr/bin/newgidmap"))
        return xstrdup("newuidmap is missing: as root, apt-get install uidmap");
    if (!has_range("/etc/subuid", name, getuid()) || !has_range("/etc/subgid", name, getuid()))
        return xasprintf("you have no subordinate id range: as root, usermod --add-subuids "
                         "100000-165535 --add-subgids 100000-165535 %s (a range no other user "
                         "has), then 'podman system migrate'",
                         name != NULL ? name : "YOUR-USER");
    if (access("/dev/net/tun", R_OK | W_OK) != 0)
        return xstrdup("/dev/net/tun is not open to you, and rootless networking "
                       "(slirp4netns, pasta) needs it: as root, chmod 0666 /dev/net/tun");
    return NULL;
}
