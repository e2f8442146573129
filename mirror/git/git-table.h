/* git's own table, for the top .git and each submodule's (DESIGN.md, "Landing"): what a sealed box
 * may change in the repository here, and how each kind is landed or why it never is. */
#ifndef CONCH_MIRROR_GIT_TABLE_H
#define CONCH_MIRROR_GIT_TABLE_H

enum cp_git_kind {
    CP_GIT_REFUSED = 0, /* never lands; why says why */
    CP_GIT_OBJECT,      /* a loose object: added only, checked against its name */
    CP_GIT_PACK,        /* objects/pack/: a pack and its index, added only, checked here */
    CP_GIT_REF,         /* refs/heads, refs/remotes, refs/stash: checked, moves kept recoverable */
    CP_GIT_TAG,         /* refs/tags: new ones only */
    CP_GIT_PACKED_REFS, /* merged entry by entry under the ref rules, never copied */
    CP_GIT_HEAD,        /* a branch (ref: refs/heads/...) or a commit id */
    CP_GIT_FILE,        /* the index, logs and git's state files: land as they are */
};

/* The kind of rel, a path inside .git ("refs/heads/main"); for CP_GIT_REFUSED *why says why. */
enum cp_git_kind cp_git_table_kind(const char *rel, const char **why);

/* Where a git folder's table is read: a whole git folder (the top .git, a submodule's), or the
 * two halves of a linked worktree's (git-outside.h): the common folder the worktree shares with
 * the main one, and the worktree's own folder under worktrees/NAME. */
enum cp_git_part {
    CP_GIT_WHOLE = 0,
    CP_GIT_COMMON, /* the main worktree's own HEAD, index and state refused; the rest as whole */
    CP_GIT_OWN,    /* only a worktree's own HEAD, index, logs/HEAD and state files; no objects */
};

/* cp_git_table_kind read for one part of a git folder. */
enum cp_git_kind cp_git_table_kind_in(enum cp_git_part part, const char *rel, const char **why);

/* Whether name ("refs/heads/x") is a ref name git itself would write (git check-ref-format's
 * rules, with no "@{" and nothing but printable ASCII). */
int cp_git_ref_name_ok(const char *name);

#endif
