/* `behind` (internal): what a container run leaves to be done once it has answered
 * (places/container/warm/behind.h), read as one JSON job on stdin from the run that started it. */
#include "config.h"

#include <unistd.h>

#include "places/container/container.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/util.h"
#include "src/command.h"

/* A job holds the next box's spec: a few KiB. */
#define JOB_MAX (4 * 1024 * 1024)

extern const struct cp_command cp_cmd_behind;

static const struct cp_option options[] = {
    {0},
};

static int behind_handler(const struct cp_parsed *args, cp_error_t *err)
{
    (void)args;
    cleanup_free char *text = NULL;
    size_t len = 0;
    cleanup_json json_object *job = NULL;
    if (cp_read_fd("the job", STDIN_FILENO, JOB_MAX, &text, &len, err) < 0 ||
        cp_json_parse(text, len, "the job", &job, err) < 0)
        return cp_error_code(err);
    if (!json_object_is_type(job, json_type_object))
        return cp_error_make(err, CP_ERR_USAGE, 0, "behind: the job is not a JSON object");
    return cp_container_behind_job(job, err);
}

const struct cp_command cp_cmd_behind = {
    .name = "behind",
    .synopsis = "",
    .summary = "(internal) after a container run: the next warm box made, leftovers swept",
    .options = options,
    .handler = behind_handler,
    .failure_status = 1,
};
