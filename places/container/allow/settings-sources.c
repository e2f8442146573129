/* Where the person's settings are found, for the allow-list and the sign-ins alike. The git
 * folder's config is found by reading .git (a folder, or a worktree's file naming its
 * gitdir and that one's commondir), never by running git, which the folder's own
 * configuration could make run anything. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "places/container/allow/settings-sources.h"
#include "src/base/paths.h"
#include "src/base/util.h"

int cp_settings_sources_from_env(const char *workdir, char **home_out,
                                 struct cp_settings_sources *out, cp_error_t *err)
{
    if (cp_home_dir(home_out, err) < 0)
        return cp_error_code(err);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    *out = (struct cp_settings_sources){
        .workdir = workdir, .home = *home_out, .xdg_config = xdg && xdg[0] == '/' ? xdg : NULL};
    return 0;
}

char *cp_settings_xdg_dir(const struct cp_settings_sources *src)
{
    return src->xdg_config ? xstrdup(src->xdg_config) : xasprintf("%s/.config", src->home);
}

/* The git folder's config: .git/config, or for a worktree's .git file, its common folder's. */
char *cp_git_config_path(const char *workdir)
{
    cleanup_free char *dotgit = xasprintf("%s/.git", workdir);
    struct stat st;
    if (stat(dotgit, &st) < 0)
        return NULL;
    if (S_ISDIR(st.st_mode))
        return xasprintf("%s/config", dotgit);
    cleanup_free char *text = NULL;
    if (!S_ISREG(st.st_mode) || cp_read_file(dotgit, 4096, &text, NULL, NULL) < 0 ||
        strncmp(text, "gitdir:", 7) != 0)
        return NULL;
    char *dir = text + 7 + strspn(text + 7, " \t");
    dir[strcspn(dir, "\r\n")] = '\0';
    cleanup_free char *gitdir = dir[0] == '/' ? xstrdup(dir) : xasprintf("%s/%s", workdir, dir);
    cleanup_free char *commondir_file = xasprintf("%s/commondir", gitdir);
    cleanup_free char *common = NULL;
    if (cp_read_file(commondir_file, 4096, &common, NULL, NULL) == 0) {
        common[strcspn(common, "\r\n")] = '\0';
        return common[0] == '/' ? xasprintf("%s/config", common)
                                : xasprintf("%s/%s/config", gitdir, common);
    }
    return xasprintf("%s/config", gitdir);
}
