/* The box's first process as a pidfd (box-pidfd.h): the engine's word for its number, the
 * kernel's for the rest. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "places/container/engine/box-pidfd.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* Every cgroup line of process pid names the box (Docker: /docker/ID or docker-ID.scope;
 * Podman: libpod-ID.scope). Read after the pidfd is open, so the number cannot be reused
 * between the check and the pidfd. */
static bool cgroup_names(int pid, const char *id)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (cp_read_file(path, 64 * 1024, &text, &len, NULL) < 0 || len == 0)
        return false;
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (strstr(line, id) == NULL)
            return false;
    }
    return true;
}

int cp_box_pidfd(struct cp_engine *e, const char *id)
{
    cleanup_free char *path = xasprintf("/containers/%s/json", id);
    cleanup_json json_object *reply = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &reply, &err) < 0)
        return -1;
    return cp_box_pidfd_of(reply);
}

int cp_box_pidfd_of(json_object *reply)
{
    json_object *state = NULL;
    json_object_object_get_ex(reply, "State", &state);
    const char *full = cp_json_str(reply, "Id");
    int64_t pid = cp_json_int(state, "Pid", 0);
    if (full == NULL || strlen(full) < 64 || pid <= 1 || pid > (1 << 22))
        return -1;
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (fd < 0)
        return -1;
    if (!cgroup_names((int)pid, full)) {
        cp_debug("box %.12s: process %d is not known here as its first", full, (int)pid);
        close(fd);
        return -1;
    }
    return fd;
}
