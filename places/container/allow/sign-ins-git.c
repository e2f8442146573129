/* The work folder's HTTPS remotes' sign-ins, from `git credential fill` run outside the folder
 * (git-credential.c): the folder's config is only read as text, for its remotes. */
#include "config.h"

#include <string.h>

#include "places/container/allow/git-credential.h"
#include "places/container/allow/hostconf.h"
#include "places/container/allow/sign-ins-sources.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/secrets.h"
#include "src/base/util.h"

#define REMOTES_MAX 16 /* git credential fill runs per remote, one after another */

static void git_remote(struct cp_sign_ins *s, const char *url)
{
    cleanup_url struct cp_url u = {0};
    cleanup_free char *host = cp_url_https_host(url);
    if (host == NULL || cp_url_parse(url, &u) < 0 || u.user != NULL)
        return; /* not https on 443, or a name in it: the allow-list leaves such a remote off */
    cleanup_free char *prefix = cp_sign_in_prefix(u.path);
    for (size_t i = 0; i < s->n; i++)
        if (cp_sign_ins_same(&s->v[i], host, prefix))
            return;
    cleanup_secret char *user = NULL;
    cleanup_secret char *password = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_git_credential_fill(host, u.path + 1, CP_GIT_CREDENTIAL_WAIT_MS, &user, &password,
                               &err) < 0) {
        /* A fetch without it fails in the box with words of its own; this says why. */
        cp_say("%s; fetches from %s go without a sign-in", err->msg, host);
        return;
    }
    if (password != NULL)
        cp_sign_ins_add(s, host, prefix, cp_sign_in_basic(user ? user : "", password),
                        "git credential");
    else
        cp_debug("git credential fill gives no sign-in for %s", host);
}

int cp_sign_ins_git_remotes(struct cp_sign_ins *s, const char *workdir, cp_error_t *err)
{
    cleanup_free char *path = cp_git_config_path(workdir);
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (path == NULL)
        return 0;
    cleanup_error cp_error_t rerr = NULL;
    int r = cp_read_file(path, CP_HOSTCONF_MAX, &text, &len, &rerr);
    if (r == CP_ERR_NOT_FOUND)
        return 0;
    if (r < 0)
        return cp_error_make(err, CP_ERR_FAILED, rerr->sys_errno,
                             "%s cannot be read, so conch-place cannot tell the folder's remotes",
                             path);
    cleanup_strv char **remotes = cp_gitconfig_remotes(text, len);
    for (size_t i = 0; remotes[i] != NULL && i < REMOTES_MAX; i++) {
        const char *tab = strchr(remotes[i], '\t');
        if (tab != NULL)
            git_remote(s, tab + 1);
    }
    return 0;
}
