/* The sandbox's home, kept per sandbox (sandbox-home.h). The file is this person's, under
 * $CONCH_HOME/workplaces, 0600. A home kept wrongly can only name another far folder, and a
 * far copy proves it is ours before anything is inferred from it (mirror/far-copy.c). */
#include "config.h"

#include <string.h>

#include "places/cloud/sandbox-home.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define HOME_MAX 4096
#define ID_MAX   64

/* Ids name files here: letters, digits and dashes only (Daytona's are UUIDs). */
static bool id_plain(const char *id)
{
    size_t n = strlen(id);
    return n > 0 && n <= ID_MAX &&
           strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static char *kept_path(const char *id)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (!id_plain(id) || cp_workplaces_dir(&dir, &err) < 0)
        return NULL;
    return xasprintf("%s/cloud-home-%s", dir, id);
}

static char *read_kept(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (cp_read_file(path, HOME_MAX, &text, &len, NULL) < 0)
        return NULL;
    if (len == 0 || text[0] != '/' || strlen(text) != len || strchr(text, '\n') != NULL) {
        free(text);
        return NULL;
    }
    return text;
}

int cp_sandbox_home(struct cp_toolbox *t, const char *id, char **out, cp_error_t *err)
{
    cleanup_free char *path = kept_path(id);
    if (path != NULL && (*out = read_kept(path)) != NULL)
        return 0;
    if (cp_toolbox_home(t, out, err) < 0)
        return cp_error_code(err);
    cleanup_error cp_error_t werr = NULL;
    if (path != NULL && cp_write_file_atomic(path, *out, strlen(*out), 0600, &werr) < 0)
        cp_debug("keeping the sandbox's home: %s", werr->msg);
    return 0;
}
