/* One host's resolved config: the lookup, defaults in one place, token expansion, the dump,
 * the place's name required as a Host, and the files read as ssh reads them (checked opens,
 * bounded reads, sorted globs). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/ssh/config-parse.h"
#include "places/ssh/config-text.h"
#include "src/base/buf.h"
#include "src/base/paths.h"
#include "src/base/util.h"

void cp_ssh_host_dispose(struct cp_ssh_host *h)
{
    free(h->alias);
    free(h->hostname);
    free(h->user);
    cp_strvec_dispose(&h->identity_files);
    free(h->identity_agent);
    cp_strv_free(h->user_known_hosts);
    cp_strv_free(h->global_known_hosts);
    free(h->host_key_alias);
    free(h->proxy_jump);
    free(h->proxy_command);
    free(h->ignore_unknown);
    memset(h, 0, sizeof(*h));
}

static void host_init(struct cp_ssh_host *h, const char *alias)
{
    memset(h, 0, sizeof(*h));
    h->alias = xstrdup(alias);
    h->port = h->connect_timeout = h->server_alive_interval = h->server_alive_count_max = -1;
    h->identities_only = -1;
}

static char **strv_of(const char *const *items)
{
    size_t n = 0;
    while (items[n] != NULL)
        n++;
    char **v = xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        v[i] = xstrdup(items[i]);
    return v;
}

/* Every default lives here, and only here. */
static void fill_defaults(struct cp_ssh_host *h, const struct cp_ssh_fs *fs)
{
    static const char *const ids[] = {"~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa",
                                      NULL};
    static const char *const user_kh[] = {"~/.ssh/known_hosts", "~/.ssh/known_hosts2", NULL};
    static const char *const global_kh[] = {"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2",
                                            NULL};
    if (h->hostname == NULL)
        h->hostname = xstrdup("%h");
    if (h->user == NULL)
        h->user = xstrdup(fs->local_user);
    if (h->port < 0)
        h->port = 22;
    if (h->identity_files.n == 0)
        cp_strvec_push_all(&h->identity_files, ids);
    if (h->identities_only < 0)
        h->identities_only = 0;
    if (h->identity_agent == NULL)
        h->identity_agent = xstrdup("SSH_AUTH_SOCK");
    if (h->user_known_hosts == NULL)
        h->user_known_hosts = strv_of(user_kh);
    if (h->global_known_hosts == NULL)
        h->global_known_hosts = strv_of(global_kh);
    if (h->connect_timeout < 0)
        h->connect_timeout = 0;
    if (h->server_alive_interval < 0)
        h->server_alive_interval = 0;
    if (h->server_alive_count_max < 0)
        h->server_alive_count_max = 3;
}

static void expand_in_place(char **s, const struct cp_ssh_tokens *t)
{
    char *e = cp_ssh_expand(*s, t);
    free(*s);
    *s = e;
}

static void expand_strv(char **v, const struct cp_ssh_tokens *t)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        if (strcmp(v[i], "none") != 0)
            expand_in_place(&v[i], t);
}

static int expand_all(struct cp_ssh_host *h, const struct cp_ssh_fs *fs, cp_error_t *err)
{
    const char *hvals[] = {h->alias};
    struct cp_ssh_tokens ht = {.keys = "h", .values = hvals, .home = NULL};
    expand_in_place(&h->hostname, &ht);
    if (!cp_ssh_hostname_ok(h->hostname))
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "HostName \"%s\" of %s is not a host name or address", h->hostname,
                             h->alias);
    cleanup_free char *port = xasprintf("%ld", h->port);
    const char *vals[] = {fs->home, h->hostname, h->alias, port, h->user, fs->local_user};
    struct cp_ssh_tokens t = {.keys = "dhnpru", .values = vals, .home = fs->home};
    expand_strv(h->identity_files.v, &t);
    expand_strv(h->user_known_hosts, &t);
    expand_strv(h->global_known_hosts, &t);
    if (strcmp(h->identity_agent, "none") != 0 && strcmp(h->identity_agent, "SSH_AUTH_SOCK") != 0)
        expand_in_place(&h->identity_agent, &t);
    return 0;
}

int cp_ssh_config_resolve(const struct cp_ssh_fs *fs, const char *path, const char *alias,
                          struct cp_ssh_host *out, cp_error_t *err)
{
    if (!cp_ssh_hostname_ok(alias))
        return cp_error_make(err, CP_ERR_USAGE, 0, "\"%s\" is not a host name", alias);
    cleanup_ssh_host struct cp_ssh_host h;
    host_init(&h, alias);
    struct ssh_parse p = {.fs = fs, .alias = alias, .h = &h};
    int r = ssh_parse_file(&p, path, false, err);
    if (r < 0 && r != CP_ERR_NOT_FOUND)
        return r;
    cp_error_free(err);
    fill_defaults(&h, fs);
    if (expand_all(&h, fs, err) < 0)
        return cp_error_code(err);
    *out = h;
    memset(&h, 0, sizeof(h));
    return 0;
}

int cp_ssh_config_hosts(const struct cp_ssh_fs *fs, const char *path, char ***out, cp_error_t *err)
{
    cleanup_ssh_host struct cp_ssh_host h;
    host_init(&h, "");
    cleanup_strvec struct cp_strvec names = {0};
    struct ssh_parse p = {.fs = fs, .alias = NULL, .h = &h, .names = &names};
    int r = ssh_parse_file(&p, path, true, err);
    if (r < 0 && r != CP_ERR_NOT_FOUND)
        return r;
    cp_error_free(err);
    *out = cp_strvec_steal(&names);
    return 0;
}

static void dump_line(struct cp_buf *b, const char *key, const char *value, bool percent)
{
    cleanup_free char *q = cp_ssh_quote_arg(value, percent);
    cleanup_free char *line = xasprintf("%s %s\n", key, q);
    cp_buf_append(b, line, strlen(line));
}

static void dump_list(struct cp_buf *b, const char *key, char *const *v)
{
    cp_buf_append(b, key, strlen(key));
    for (size_t i = 0; v[i] != NULL; i++) {
        cleanup_free char *q = cp_ssh_quote_arg(v[i], true);
        cp_buf_append(b, " ", 1);
        cp_buf_append(b, q, strlen(q));
    }
    cp_buf_append(b, "\n", 1);
}

static void dump_number(struct cp_buf *b, const char *key, long v)
{
    cleanup_free char *line = xasprintf("%s %ld\n", key, v);
    cp_buf_append(b, line, strlen(line));
}

char *cp_ssh_host_dump(const struct cp_ssh_host *h)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, (size_t)1024 * 1024);
    dump_line(&b, "host", h->alias, false);
    dump_line(&b, "hostname", h->hostname, true);
    dump_line(&b, "user", h->user, false);
    dump_number(&b, "port", h->port);
    for (size_t i = 0; i < h->identity_files.n; i++)
        dump_line(&b, "identityfile", h->identity_files.v[i], true);
    dump_line(&b, "identitiesonly", h->identities_only ? "yes" : "no", false);
    dump_line(&b, "identityagent", h->identity_agent, true);
    dump_list(&b, "userknownhostsfile", h->user_known_hosts);
    dump_list(&b, "globalknownhostsfile", h->global_known_hosts);
    if (h->host_key_alias != NULL)
        dump_line(&b, "hostkeyalias", h->host_key_alias, false);
    if (h->connect_timeout == 0)
        dump_line(&b, "connecttimeout", "none", false);
    else
        dump_number(&b, "connecttimeout", h->connect_timeout);
    dump_number(&b, "serveraliveinterval", h->server_alive_interval);
    dump_number(&b, "serveralivecountmax", h->server_alive_count_max);
    if (h->proxy_jump != NULL)
        dump_line(&b, "proxyjump", h->proxy_jump, false);
    if (h->proxy_command != NULL) {
        cleanup_free char *line = xasprintf("proxycommand %s\n", h->proxy_command);
        cp_buf_append(&b, line, strlen(line));
    }
    return cp_buf_steal(&b);
}

int cp_ssh_place_resolve(const struct cp_ssh_fs *fs, const char *alias, struct cp_ssh_host *out,
                         cp_error_t *err)
{
    if (cp_ssh_alias_check(alias, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/.ssh/config", fs->home);
    cleanup_ssh_host struct cp_ssh_host h = {0};
    if (cp_ssh_config_resolve(fs, path, alias, &h, err) < 0)
        return cp_error_code(err);
    if (!h.literal) {
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "ssh:%s is not a Host of %s", alias, path);
        cp_error_hint(err,
                      "Add a block \"Host %s\" (with its HostName and User) to ~/.ssh/config; "
                      "conch-place uses only hosts named there, not ones a wildcard matches.",
                      alias);
        return CP_ERR_NOT_FOUND;
    }
    *out = h;
    memset(&h, 0, sizeof(h));
    return 0;
}

int cp_ssh_proxy_command(const struct cp_ssh_host *h, char **out, cp_error_t *err)
{
    *out = NULL;
    if (h->proxy_command == NULL || strcmp(h->proxy_command, "none") == 0)
        return 0;
    if (!cp_ssh_hostname_ok(h->hostname) || !cp_ssh_user_ok(h->user) ||
        !cp_ssh_hostname_ok(h->alias))
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "ProxyCommand of %s: the host or user name is not safe to put in a "
                             "command",
                             h->alias);
    cleanup_free char *port = xasprintf("%ld", h->port);
    const char *vals[] = {h->hostname, h->alias, port, h->user};
    struct cp_ssh_tokens t = {.keys = "hnpr", .values = vals, .home = NULL};
    *out = cp_ssh_expand(h->proxy_command, &t);
    return 0;
}

/* ---- the real file system: checked opens, bounded reads, sorted globs ---- */

int cp_ssh_check_file_owner(const char *path, int fd, cp_error_t *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "%s: cannot stat", path);
    if (S_ISDIR(st.st_mode))
        return cp_error_make(err, CP_ERR_NOT_FOUND, EISDIR, "%s", path);
    if (!S_ISREG(st.st_mode))
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "%s: not a regular file", path);
    if ((st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & 022) != 0) {
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "%s: bad owner or permissions (owner uid %u, mode %04o): others could "
                      "change where conch-place connects",
                      path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        cp_error_hint(err, "Make it yours and writable only by you: chmod go-w '%s'", path);
        return CP_ERR_UNSAFE;
    }
    if (st.st_size > CP_SSH_MAX_FILE_SIZE)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s: larger than %d bytes", path,
                             CP_SSH_MAX_FILE_SIZE);
    return 0;
}

/* O_NONBLOCK so a FIFO planted where a config is expected cannot hang the open. */
static int fs_read(void *ctx, const char *path, char **out, size_t *len_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return cp_error_make(err, errno == ENOENT ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, errno,
                             "%s: cannot open", path);
    if (cp_ssh_check_file_owner(path, fd, err) < 0)
        return cp_error_code(err);
    return cp_read_fd(path, fd, CP_SSH_MAX_FILE_SIZE, out, len_out, err);
}

static int fs_glob(void *ctx, const char *pattern, size_t max, char ***out, cp_error_t *err)
{
    glob_t g = {0};
    int r = glob(pattern, 0, NULL, &g);
    if (r == GLOB_NOMATCH) {
        globfree(&g);
        *out = xcalloc(1, sizeof(char *));
        return 0;
    }
    if (r != 0) {
        globfree(&g);
        return cp_error_make(err, CP_ERR_FAILED, 0, "%s: cannot list the files it names", pattern);
    }
    if (g.gl_pathc > max) {
        globfree(&g);
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s matches more than %zu files", pattern,
                             max);
    }
    char **v = xcalloc(g.gl_pathc + 1, sizeof(char *));
    for (size_t i = 0; i < g.gl_pathc; i++)
        v[i] = xstrdup(g.gl_pathv[i]);
    globfree(&g);
    *out = v;
    return 0;
}

int cp_ssh_fs_init_default(struct cp_ssh_fs *fs, cp_error_t *err)
{
    struct passwd *pw = getpwuid(getuid());
    if (pw == NULL || pw->pw_name == NULL)
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0,
                             "uid %u has no entry in the password database", (unsigned)getuid());
    char *home = NULL;
    if (cp_home_dir(&home, err) < 0)
        return cp_error_code(err);
    fs->read = fs_read;
    fs->glob = fs_glob;
    fs->ctx = NULL;
    fs->home = home;
    fs->local_user = xstrdup(pw->pw_name);
    return 0;
}

void cp_ssh_fs_dispose(struct cp_ssh_fs *fs)
{
    free((char *)fs->home);
    free((char *)fs->local_user);
    fs->home = fs->local_user = NULL;
}
