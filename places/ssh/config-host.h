/* One host of ~/.ssh/config (config-host.c), read in openssh's manner: Host blocks, Include,
 * first value wins, tokens; the files read as ssh reads them.
 *
 * What conch-place does with each keyword is decided by one table (config-keywords.c):
 * - honoured: Host, Include, HostName, User, Port, IdentityFile, IdentitiesOnly,
 *   IdentityAgent, UserKnownHostsFile, GlobalKnownHostsFile, HostKeyAlias, ConnectTimeout,
 *   ServerAliveInterval, ServerAliveCountMax, ProxyJump, ProxyCommand, IgnoreUnknown;
 * - ignored: keywords whose effect conch-place never has (forwarding, X11, environment,
 *   LocalCommand as if PermitLocalCommand=no, multiplexing, algorithm lists, logging) or
 *   where ignoring them is stricter (StrictHostKeyChecking, VerifyHostKeyDNS, BatchMode);
 * - refused where they apply to the host: keywords that would change where we connect from,
 *   which config applies, or which host keys are trusted, so ignoring them would silently
 *   mean something else (KnownHostsCommand, CanonicalizeHostname yes|always,
 *   ProxyUseFdpass yes, BindAddress, BindInterface, RevokedHostKeys, RefuseConnection yes);
 * - refused anywhere: Match (its conditions cannot be evaluated here without running them);
 * - unknown keywords are errors, as in openssh, unless IgnoreUnknown lists them.
 * Every message starts with "file:line:". */
#ifndef CONCH_SSH_CONFIG_HOST_H
#define CONCH_SSH_CONFIG_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "src/base/error.h"
#include "src/base/strvec.h"

#define CP_SSH_MAX_INCLUDE_DEPTH  16
#define CP_SSH_MAX_FILES          256 /* config files read in one resolution */
#define CP_SSH_MAX_FILE_SIZE      (1024 * 1024)
#define CP_SSH_MAX_LINE           8192
#define CP_SSH_MAX_ARGS           256
#define CP_SSH_MAX_IDENTITY_FILES 32
#define CP_SSH_MAX_KNOWN_HOSTS    16
#define CP_SSH_MAX_HOSTS_LISTED   1024

/* How the parser reaches files; injectable so tests and the fuzzer stay in a scratch space. */
struct cp_ssh_fs {
    /* Reads a whole config file after checking it: a regular file owned by the user or root,
     * writable by no one else. CP_ERR_NOT_FOUND when absent. *out is the caller's. */
    int (*read)(void *ctx, const char *path, char **out, size_t *len_out, cp_error_t *err);
    /* The paths a glob matches, sorted, at most max (more is an error). *out is the caller's,
     * NULL-terminated, possibly empty. */
    int (*glob)(void *ctx, const char *pattern, size_t max, char ***out, cp_error_t *err);
    void *ctx;
    const char *home;       /* "~", and the folder relative Includes are under ("~/.ssh") */
    const char *local_user; /* %u, and the default User */
};

/* The resolved config of one host. Fields start unset; the first value obtained wins. */
struct cp_ssh_host {
    char *alias;    /* the name looked up */
    char *hostname; /* after %h expansion */
    char *user;
    long port;
    struct cp_strvec identity_files; /* in order, tokens and ~ expanded */
    int identities_only;             /* 0 or 1 (-1 while unset) */
    char *identity_agent;            /* "none", "SSH_AUTH_SOCK" or an expanded path */
    char **user_known_hosts;
    char **global_known_hosts;
    char *host_key_alias;
    long connect_timeout;       /* seconds; 0: none (-1 while unset) */
    long server_alive_interval; /* seconds; 0: off */
    long server_alive_count_max;
    char *proxy_jump;    /* as written; "none" means none */
    char *proxy_command; /* as written, tokens unexpanded; "none" means none */
    bool literal;        /* a Host line naming alias literally (not a wildcard) applied */
    /* internal while parsing */
    char *ignore_unknown;
};

void cp_ssh_host_dispose(struct cp_ssh_host *h);
#define cleanup_ssh_host __attribute__((cleanup(cp_ssh_host_dispose)))

/* The real file system: home is $HOME (or the password database's), local_user the login
 * name. The strings are owned by *fs; dispose it with cp_ssh_fs_dispose. */
int cp_ssh_fs_init_default(struct cp_ssh_fs *fs, cp_error_t *err);
void cp_ssh_fs_dispose(struct cp_ssh_fs *fs);
#define cleanup_ssh_fs __attribute__((cleanup(cp_ssh_fs_dispose)))

/* The checks cp_ssh_fs_init_default's read applies to an opened config file. */
int cp_ssh_check_file_owner(const char *path, int fd, cp_error_t *err);

/* Resolves alias against the config at path (absent: an empty config), fills defaults,
 * expands tokens and checks the final values. Does not require a literal Host entry. */
int cp_ssh_config_resolve(const struct cp_ssh_fs *fs, const char *path, const char *alias,
                          struct cp_ssh_host *out, cp_error_t *err);

/* Every name a Host line of the config (or a file it Includes) gives literally: no
 * wildcard, not negated. Names that are not valid place names are left out.
 * *out is the caller's, NULL-terminated, in file order without repeats. */
int cp_ssh_config_hosts(const struct cp_ssh_fs *fs, const char *path, char ***out, cp_error_t *err);

/* The resolved config in ssh_config syntax ("host ALIAS" first); parsing it again for the
 * same alias gives the same dump. *out is the caller's. */
char *cp_ssh_host_dump(const struct cp_ssh_host *h);

/* The whole lookup for ssh:NAME: the name checked, ~/.ssh/config resolved, and NAME required
 * to be a literal Host entry (CP_ERR_NOT_FOUND with a hint otherwise). */
int cp_ssh_place_resolve(const struct cp_ssh_fs *fs, const char *alias, struct cp_ssh_host *out,
                         cp_error_t *err);

/* ProxyCommand with %h %n %p %r %% expanded from the checked, resolved values.
 * NULL when the host has none. *out is the caller's. */
int cp_ssh_proxy_command(const struct cp_ssh_host *h, char **out, cp_error_t *err);

#endif
