/* Where a path that a host-run setting names lands in the work folder: the value as the tool
 * reads it (from the repository's top, "~/" from $HOME), inside the folder or not, and what one
 * repository's config names (its hooks, the commands git runs, the programs named by path). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/git-hooks/git-hooks-int.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* abs relative to workdir when it lies inside it ("." for the folder itself), else NULL. Both
 * the real path (links followed, as the tool will) and the text's own are tried; *text_out gets
 * the second where it differs and lies inside too. */
static char *inside_one(const char *p, const char *workdir)
{
    size_t n = strlen(workdir);
    if (strncmp(p, workdir, n) != 0 || (p[n] != '\0' && p[n] != '/'))
        return NULL;
    return xstrdup(p[n] == '\0' ? "." : p + n + 1);
}

void cp_git_hooks_add_inside(struct cp_strvec *out, const char *abs, const char *workdir,
                             bool folder_ok)
{
    /* The file may not exist yet (the command may be about to make it): its folder's real
     * path then, and the name. */
    cleanup_free char *real = realpath(abs, NULL);
    if (real == NULL) {
        cleanup_free char *dir = xstrdup(abs);
        char *slash = strrchr(dir, '/');
        cleanup_free char *rdir = NULL;
        if (slash != NULL && slash != dir) {
            *slash = '\0';
            rdir = realpath(dir, NULL);
        }
        real = rdir && slash ? xasprintf("%s/%s", rdir, slash + 1) : NULL;
    }
    cleanup_free char *dots = abs[0] == '/' ? cp_path_dots_resolved(abs + 1) : NULL;
    cleanup_free char *text = dots ? xasprintf("/%s", dots) : NULL;
    const char *each[] = {real, text};
    for (size_t i = 0; i < 2; i++) {
        cleanup_free char *rel = each[i] ? inside_one(each[i], workdir) : NULL;
        if (rel != NULL && (folder_ok || strcmp(rel, ".") != 0) && !cp_strvec_has(out, rel))
            cp_strvec_push(out, rel);
    }
}

/* A value git reads as a path, "~/" from $HOME, a relative one from the repository's top. */
char *cp_git_hooks_from_top(const char *top, const char *v)
{
    const char *home = getenv("HOME");
    if (v[0] == '/')
        return xstrdup(v);
    if (v[0] == '~' && v[1] == '/')
        return home ? xasprintf("%s%s", home, v + 1) : NULL;
    return xasprintf("%s/%s", top, v);
}

static bool bool_word(const char *w, size_t n)
{
    static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "1", "0", NULL};
    for (size_t i = 0; words[i] != NULL; i++)
        if (n == strlen(words[i]) && strncasecmp(w, words[i], n) == 0)
            return true;
    return n == 0;
}

/* A command line git runs (core.fsmonitor, core.pager, an alias's '!', ...): a boolean is none
 * (git's own daemon, the default pager). Each word that could be a program or a script it runs
 * counts, from the repository's top, where git runs them; a program's word (the first, or one
 * after ; | & or a parenthesis) only with a '/', as without one the shell finds it in PATH. */
static void add_command(struct cp_strvec *out, const char *top, const char *v, const char *workdir)
{
    bool program = true;
    for (const char *p = v; *p != '\0';) {
        p += strspn(p, " \t'\"!");
        size_t n = strcspn(p, " \t'\";|&<>()");
        bool in_path = program && memchr(p, '/', n) == NULL;
        if (n > 0 && p[0] != '-' && !in_path && !bool_word(p, n)) {
            cleanup_free char *w = xasprintf("%.*s", (int)n, p);
            cleanup_free char *abs = cp_git_hooks_from_top(top, w);
            if (abs != NULL)
                cp_git_hooks_add_inside(out, abs, workdir, false);
        }
        p += n;
        size_t seps = strspn(p, ";|&<>()");
        if (n > 0)
            program = false;
        for (size_t i = 0; i < seps; i++)
            program = program || (p[i] != '<' && p[i] != '>');
        p += seps;
    }
}

/* What one repository's config (and the person's, before it) names, relative to its top: the
 * files read, the hooks folder, each command's programs and scripts, and what is named by path
 * (without a '/', a program in PATH). */
void cp_git_hooks_add_repo(struct cp_strvec *out, const struct found *global, const struct found *f,
                           const char *top, const char *workdir)
{
    const struct found *both[] = {global, f};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < both[k]->includes.n; i++)
            cp_git_hooks_add_inside(out, both[k]->includes.v[i], workdir, false);
        for (size_t i = 0; i < both[k]->hooks.n; i++) {
            cleanup_free char *abs =
                both[k]->hooks.v[i][0] ? cp_git_hooks_from_top(top, both[k]->hooks.v[i]) : NULL;
            if (abs != NULL)
                cp_git_hooks_add_inside(out, abs, workdir, true);
        }
        for (size_t i = 0; i < both[k]->commands.n; i++)
            add_command(out, top, both[k]->commands.v[i], workdir);
        for (size_t i = 0; i < both[k]->paths.n; i++) {
            const char *v = both[k]->paths.v[i];
            cleanup_free char *abs = strchr(v, '/') != NULL ? cp_git_hooks_from_top(top, v) : NULL;
            if (abs != NULL)
                cp_git_hooks_add_inside(out, abs, workdir, false);
        }
    }
}
