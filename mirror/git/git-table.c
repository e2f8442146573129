/* git's table: one row per place in a git folder (the top .git, or a submodule's), first match
 * wins. A row ending in '/' holds everything under it; any other row is that one name. What no
 * row names never lands ("not on git's table"): a new kind of file git may write later is refused
 * until a row says why it is safe. */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "mirror/git/git-table.h"

static const char config_why[] =
    "git's config never lands: a remote, core.hooksPath, core.fsmonitor or a filter in it "
    "would run here";
static const char state_why[] =
    "a rebase's or cherry-pick's state never lands: its todo list's exec lines would run here at "
    "--continue (finish or abort it in the box)";

static const struct {
    const char *place;
    enum cp_git_kind kind;
    const char *why;
} table[] = {
    /* What git runs, or what changes what git runs or reads, here: never. */
    {"config", CP_GIT_REFUSED, config_why},
    {"config.worktree", CP_GIT_REFUSED, config_why},
    {"hooks/", CP_GIT_REFUSED, "git's hooks never land: git runs them here"},
    {"info/", CP_GIT_REFUSED,
     "info/ never lands: attributes name filters that run here; exclude and sparse-checkout "
     "change what git shows"},
    /* Submodules' git folders: each one here lands by this table as a git folder of its own
     * (mirror/git/git-modules.c walks modules/ before this table is read), so its config and hooks
     * are refused as the top one's are. Nothing else under modules/ lands. */
    {"modules/", CP_GIT_REFUSED,
     "modules/ holds submodules' git folders, each landing by git's table on its own"},
    /* A linked worktree's HEAD, index and logs: that worktree is elsewhere, outside the work
     * folder, so nothing the box did was work in it. */
    {"worktrees/", CP_GIT_REFUSED,
     "a linked worktree's git folder never lands: that worktree is outside the work folder, so "
     "the box cannot work in it (run git there, on this computer)"},
    {"commondir", CP_GIT_REFUSED, "commondir names another git folder: it never lands"},
    {"gitdir", CP_GIT_REFUSED, "gitdir names another folder: it never lands"},
    {"objects/info/alternates", CP_GIT_REFUSED,
     "an alternate never lands: it would make this repository read objects from elsewhere"},
    {"objects/info/http-alternates", CP_GIT_REFUSED,
     "an alternate never lands: it would make this repository read objects from elsewhere"},
    {"objects/info/", CP_GIT_REFUSED, "objects/info/ never lands"},
    /* Packs: added only, each pack with its index (and reverse index) checked by git
     * index-pack --verify --strict here first; mirror/git/git-landing.c names what else is in the
     * folder (a .keep lands with its pack; bitmaps, mtimes, .promisor never do). */
    {"objects/pack/", CP_GIT_PACK, NULL},
    {"shallow", CP_GIT_REFUSED, "a shallow change never lands: it can drop history here"},
    {"sequencer/", CP_GIT_REFUSED, state_why},
    {"rebase-merge/", CP_GIT_REFUSED, state_why},
    {"rebase-apply/", CP_GIT_REFUSED, state_why},
    /* Objects: added only (mirror/git/git-landing.c checks each against its name). */
    {"objects/", CP_GIT_OBJECT, NULL},
    /* Refs: checked, not copied. */
    {"refs/heads/", CP_GIT_REF, NULL},
    {"refs/remotes/", CP_GIT_REF, NULL},
    {"refs/stash", CP_GIT_REF, NULL},
    {"refs/tags/", CP_GIT_TAG, NULL},
    {"refs/", CP_GIT_REFUSED,
     "a ref outside refs/heads, refs/remotes, refs/tags and refs/stash never lands"},
    {"packed-refs", CP_GIT_PACKED_REFS, NULL},
    {"HEAD", CP_GIT_HEAD, NULL},
    /* Data git reads and never runs. */
    {"index", CP_GIT_FILE, NULL},
    {"logs/HEAD", CP_GIT_FILE, NULL},
    {"logs/refs/heads/", CP_GIT_FILE, NULL},
    {"logs/refs/remotes/", CP_GIT_FILE, NULL},
    {"logs/refs/tags/", CP_GIT_FILE, NULL},
    {"logs/refs/stash", CP_GIT_FILE, NULL},
    {"FETCH_HEAD", CP_GIT_FILE, NULL},
    {"ORIG_HEAD", CP_GIT_FILE, NULL},
    {"MERGE_HEAD", CP_GIT_FILE, NULL},
    {"MERGE_MSG", CP_GIT_FILE, NULL},
    {"MERGE_MODE", CP_GIT_FILE, NULL},
    {"AUTO_MERGE", CP_GIT_FILE, NULL},
    {"COMMIT_EDITMSG", CP_GIT_FILE, NULL},
};

enum cp_git_kind cp_git_table_kind(const char *rel, const char **why)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const char *p = table[i].place;
        size_t n = strlen(p);
        bool under = p[n - 1] == '/';
        if (under ? strncmp(rel, p, n) != 0 || rel[n] == '\0' : strcmp(rel, p) != 0)
            continue;
        *why = table[i].why;
        return table[i].kind;
    }
    *why = "not on git's table";
    return CP_GIT_REFUSED;
}

/* What git keeps per worktree (git's own path.c common_list is the rest): a linked worktree has
 * its own under worktrees/NAME, and the main worktree's are at the top of the common folder. */
static const char *const per_worktree[] = {
    "HEAD",       "index",         "logs/HEAD",     "ORIG_HEAD",       "FETCH_HEAD",
    "MERGE_HEAD", "MERGE_MSG",     "MERGE_MODE",    "AUTO_MERGE",      "COMMIT_EDITMSG",
    "sequencer/", "rebase-merge/", "rebase-apply/", "config.worktree", NULL,
};

static bool is_per_worktree(const char *rel)
{
    for (size_t i = 0; per_worktree[i] != NULL; i++) {
        size_t n = strlen(per_worktree[i]);
        if (per_worktree[i][n - 1] == '/' ? strncmp(rel, per_worktree[i], n) == 0
                                          : strcmp(rel, per_worktree[i]) == 0)
            return true;
    }
    return false;
}

enum cp_git_kind cp_git_table_kind_in(enum cp_git_part part, const char *rel, const char **why)
{
    enum cp_git_kind k = cp_git_table_kind(rel, why);
    if (part == CP_GIT_COMMON && is_per_worktree(rel) && k != CP_GIT_REFUSED) {
        *why = "the main worktree's own HEAD, index and state never land from a linked "
               "worktree's box: it worked in its own";
        return CP_GIT_REFUSED;
    }
    /* The worktree's own folder: its state only. Its objects and refs are the common folder's;
     * a file of theirs here would be read by no git. */
    if (part == CP_GIT_OWN && !is_per_worktree(rel) && strncmp(rel, "modules/", 8) != 0 &&
        k != CP_GIT_REFUSED) {
        *why = "a linked worktree's own folder holds its HEAD, index, logs and state alone";
        return CP_GIT_REFUSED;
    }
    return k;
}

int cp_git_ref_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 1024 || name[n - 1] == '/' || name[n - 1] == '.' ||
        (n >= 5 && strcmp(name + n - 5, ".lock") == 0) || strstr(name, "..") != NULL ||
        strstr(name, "//") != NULL || strstr(name, "@{") != NULL || strstr(name, "/.") != NULL ||
        name[0] == '/' || name[0] == '.')
        return 0;
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f || strchr("~^:?*[\\", *c))
            return 0;
    return strstr(name, ".lock/") == NULL; /* no component may end in .lock */
}
