/* The sweep: list our labelled boxes, remove those whose owner died. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/warm/leftovers.h"
#include "places/container/warm/warm-pool.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* A warm box is made, then started: one still only made after this long never will be. */
#define WARM_START_SECS 60

/* An unclaimed warm box that left by itself (its waiter timed out) or was never started. On
 * Docker it removes itself as it leaves; Podman's cannot (warm.c's cp_warm_spec). */
static bool warm_gone(json_object *c)
{
    const char *state = cp_json_str(c, "State");
    if (state == NULL || strcmp(state, "running") == 0 || strcmp(state, "paused") == 0 ||
        strcmp(state, "restarting") == 0 || strcmp(state, "removing") == 0)
        return false;
    if (strcmp(state, "created") == 0)
        return (int64_t)time(NULL) - cp_json_int(c, "Created", 0) > WARM_START_SECS;
    return true;
}

/* Whether the warm box is of the pool of the home whose mark is given (NULL: none is known). */
static bool own_home(json_object *labels, const char *mark)
{
    const char *home = cp_json_str(labels, CP_WARM_HOME_LABEL);
    return mark != NULL && home != NULL && strcmp(home, mark) == 0;
}

static bool is_leftover(const char *name, json_object *c, json_object *labels, bool all_warm,
                        const char *mark)
{
    /* Unclaimed warm boxes outlive their maker by design; they go once they have left. `clean`
     * takes its own home's at once, but another home's pool is that home's (its runs would find
     * the boxes they count on gone). */
    if (cp_warm_unclaimed(name))
        return (all_warm && own_home(labels, mark)) || warm_gone(c);
    /* `clean` also takes a box that names no owner at all: nobody can ever claim it. */
    if (all_warm && cp_json_str(labels, "conch.owner.host") == NULL)
        return true;
    return !cp_box_owner_alive(name, labels);
}

int cp_leftovers_sweep(struct cp_engine *e, bool all_warm, int *removed_out, cp_error_t *err)
{
    cleanup_free char *filter = cp_engine_escape("{\"label\":[\"conch.work=1\"]}");
    cleanup_free char *path = xasprintf("/containers/json?all=1&filters=%s", filter);
    cleanup_json json_object *list = NULL;
    if (cp_engine_call(e, "GET", path, NULL, &list, err) < 0)
        return cp_error_wrap(err, "while looking for leftover boxes");
    int removed = 0;
    cleanup_free char *mark = cp_home_mark();
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *c = json_object_array_get_idx(list, i), *labels = NULL, *names = NULL;
        const char *id = cp_json_str(c, "Id");
        json_object_object_get_ex(c, "Labels", &labels);
        json_object_object_get_ex(c, "Names", &names);
        const char *name = json_object_get_string(json_object_array_get_idx(names, 0));
        if (id == NULL || !is_leftover(name, c, labels, all_warm, mark))
            continue;
        cleanup_error cp_error_t rerr = NULL;
        if (cp_box_remove(e, id, &rerr) == 0) {
            cp_debug("removed leftover box %.12s", id);
            removed++;
        }
    }
    if (removed_out != NULL)
        *removed_out = removed;
    return 0;
}

/* Another sweep under way will do: a second would only list the same boxes again. The lock is
 * the person's (boxes are the engine's, whichever CONCH_HOME made them). -2: one is under way;
 * -1: no lock to be had, so this one sweeps unlocked. */
static int lock_sweep(void)
{
    cleanup_free char *dir = cp_person_dir();
    if (dir == NULL)
        return -1;
    cleanup_free char *path = xasprintf("%s/sweep.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
        close(fd);
        return -2;
    }
    return fd;
}

void cp_leftovers_sweep_now(void)
{
    cleanup_close int lock = lock_sweep();
    if (lock == -2)
        return;
    cleanup_engines struct cp_engine **engines = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_engine_connect_all("auto", &engines, &err) == 0)
        for (size_t i = 0; engines[i] != NULL; i++) {
            cleanup_error cp_error_t one = NULL;
            (void)cp_leftovers_sweep(engines[i], false, NULL, &one);
        }
    cleanup_error cp_error_t copies = NULL;
    (void)cp_protect_sweep_copies(NULL, &copies);
}
