/* What the folder's host-run settings name, read as their tools read them, from the files as
 * text: git's config (its includes, core.hooksPath, the commands it runs: core.fsmonitor,
 * core.pager, diff drivers, filters, aliases, ...) and yarnPath. Here: the list, git's then
 * Yarn's; where a path they name lands in the work folder is named-paths.c's; git's config is read
 * by git-config-text.c, its repositories found by git-repos.c, Yarn's and pnpm's rc files by
 * yarn-rc.c. */
#include "config.h"

#include "src/base/git-hooks/git-hooks-int.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/strvec.h"

char **cp_host_run_named(const char *workdir)
{
    struct cp_strvec out = {0};
    cp_git_hooks_add_git(&out, workdir);
    cp_git_hooks_add_yarn(&out, workdir);
    return cp_strvec_steal(&out);
}
