/* Where the allow-list and the sign-ins read the person's settings from: the work folder, ~,
 * $XDG_CONFIG_HOME and config.json, and the folder's git config. Both read the same files
 * (allowlist.c for the hosts they name, sign-ins.c for the sign-ins they hold), so both take
 * one description of where they are, which tests point at a scratch folder. */
#ifndef CONCH_SETTINGS_SOURCES_H
#define CONCH_SETTINGS_SOURCES_H

#include "src/base/error.h"
#include "src/base/settings/settings.h"

struct cp_sign_ins;

struct cp_settings_sources {
    const char *workdir;            /* the work folder's real path */
    const struct cp_config *config; /* may be NULL */
    const char *home;               /* ~ */
    const char *xdg_config;         /* $XDG_CONFIG_HOME, or NULL for ~/.config */
    /* The sign-ins found (sign-ins.h), for the allow-list's words and sign_in marks; NULL:
     * none. */
    const struct cp_sign_ins *sign_ins;
};

/* The sources of workdir with ~ and $XDG_CONFIG_HOME (when absolute) from the environment;
 * ~ is kept in *home_out, the caller's, which out->home borrows. */
int cp_settings_sources_from_env(const char *workdir, char **home_out,
                                 struct cp_settings_sources *out, cp_error_t *err);

/* $XDG_CONFIG_HOME as src gives it, else ~/.config; the caller's. */
char *cp_settings_xdg_dir(const struct cp_settings_sources *src);

/* The work folder's git config (.git/config, or a worktree's common one), or NULL when the
 * folder is not a git folder. The caller's. */
char *cp_git_config_path(const char *workdir);

#endif
