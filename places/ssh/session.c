/* The session (session.h): the socket chosen from the config, handshake, host key,
 * authentication; and the words for each way a connection fails. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/ssh/auth.h"
#include "places/ssh/config-text.h"
#include "places/ssh/exec.h"
#include "places/ssh/known-hosts.h"
#include "places/ssh/session.h"
#include "places/ssh/socket.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

#define MAX_JUMP_DEPTH 8

void cp_ssh_session_free(struct cp_ssh_session *s)
{
    if (s == NULL)
        return;
    if (s->lib != NULL) {
        libssh2_session_set_blocking(s->lib, 1);
        libssh2_session_set_timeout(s->lib, 2000);
        cp_ssh_warm_drop(s);
        cp_ssh_closes_finish(s);
        libssh2_session_disconnect(s->lib, "done");
        libssh2_session_free(s->lib);
    }
    if (s->fd >= 0)
        close(s->fd);
    cp_child_dispose(&s->proxy);
    ssh_jump_leg_free(s->leg);
    cp_ssh_session_free(s->hop);
    free(s->alias);
    free(s);
}

void cp_cleanup_ssh_session(struct cp_ssh_session **s)
{
    cp_ssh_session_free(*s);
}

static char **known_hosts_files(const struct cp_ssh_host *h)
{
    size_t nu = cp_strv_len(h->user_known_hosts), ng = cp_strv_len(h->global_known_hosts);
    char **v = xcalloc(nu + ng + 1, sizeof(char *));
    for (size_t i = 0; i < nu; i++)
        v[i] = xstrdup(h->user_known_hosts[i]);
    for (size_t i = 0; i < ng; i++)
        v[nu + i] = xstrdup(h->global_known_hosts[i]);
    return v;
}

static char *known_hosts_lookup_name(const struct cp_ssh_host *h)
{
    if (h->host_key_alias != NULL)
        return xstrdup(h->host_key_alias);
    return cp_known_hosts_name(h->hostname, h->port);
}

/* Asks the server for a host key of a type known_hosts holds for it, as ssh does. */
static void prefer_known_key_types(struct cp_ssh_session *s, const struct cp_ssh_host *h)
{
    cleanup_strv char **files = known_hosts_files(h);
    cleanup_free char *name = known_hosts_lookup_name(h);
    struct cp_kh_verdict v;
    cleanup_error cp_error_t err = NULL;
    if (cp_known_hosts_check(files, name, NULL, 0, &v, &err) < 0 || v.known_types[0] == '\0')
        return;
    char prefs[1024] = "";
    for (char *save = NULL, *t = strtok_r(v.known_types, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        const char *m = strcmp(t, "ssh-rsa") == 0 ? "rsa-sha2-512,rsa-sha2-256,ssh-rsa" : t;
        size_t used = strlen(prefs);
        snprintf(prefs + used, sizeof(prefs) - used, "%s%s", used ? "," : "", m);
    }
    if (libssh2_session_method_pref(s->lib, LIBSSH2_METHOD_HOSTKEY, prefs) != 0)
        cp_debug("libssh2 knows none of the host key types %s", prefs);
}

static int check_host_key(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err)
{
    size_t len = 0;
    int type = 0;
    const char *key = libssh2_session_hostkey(s->lib, &len, &type);
    if (key == NULL || len == 0)
        return cp_ssh_lib_error(s->lib, CP_ERR_FAILED, err, "no host key from the server");
    cleanup_strv char **files = known_hosts_files(h);
    cleanup_free char *name = known_hosts_lookup_name(h);
    struct cp_kh_verdict v;
    if (cp_known_hosts_check(files, name, (const unsigned char *)key, len, &v, err) < 0)
        return cp_error_code(err);
    return cp_known_hosts_verdict_error(&v, h->alias, name, err);
}

int cp_ssh_recheck_host_key(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err)
{
    if (check_host_key(s, h, err) < 0)
        return cp_error_wrap(err, "ssh:%s", h->alias);
    return 0;
}

static long timeout_of(const struct cp_ssh_host *h)
{
    return h->connect_timeout > 0 ? h->connect_timeout : CP_SSH_DEFAULT_TIMEOUT;
}

/* The stream a session rides on, and what keeps it going. */
struct ride {
    int fd;
    struct cp_child proxy;      /* a ProxyCommand's, or none */
    struct ssh_jump_leg *leg;   /* a ProxyJump leg's, or NULL */
    struct cp_ssh_session *hop; /* the session that leg goes through, or NULL */
};

/* Takes all of r whatever happens; the session is ready to run commands. */
static int session_start(const struct cp_ssh_host *h, struct ride r, struct cp_ssh_session **out,
                         cp_error_t *err)
{
    cleanup_ssh_session struct cp_ssh_session *s = xcalloc(1, sizeof(*s));
    s->fd = r.fd;
    s->stop_fd = -1;
    s->proxy = r.proxy;
    s->leg = r.leg;
    s->hop = r.hop;
    s->alias = xstrdup(h->alias);
    s->alive_interval = h->server_alive_interval;
    s->lib = libssh2_session_init();
    if (s->lib == NULL)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot start a libssh2 session");
    libssh2_session_set_blocking(s->lib, 1);
    libssh2_session_set_timeout(s->lib, timeout_of(h) * 1000);
    prefer_known_key_types(s, h);
    cp_debug("ssh:%s: handshake", h->alias);
    if (libssh2_session_handshake(s->lib, s->fd) != 0) {
        /* Taken in but never greeted (no banner in time): as good as no answer, and so worded
         * (cp_ssh_connect_words goes by the code). */
        int e = libssh2_session_last_errno(s->lib);
        int code = e == LIBSSH2_ERROR_TIMEOUT || e == LIBSSH2_ERROR_BANNER_RECV
                       ? CP_ERR_TIMEOUT
                       : CP_ERR_UNREACHABLE;
        return cp_ssh_lib_error(s->lib, code, err, "the SSH handshake failed");
    }
    cp_debug("ssh:%s: key exchange done", h->alias);
    if (check_host_key(s, h, err) < 0 || ssh_authenticate(s, h, err) < 0)
        return cp_error_code(err);
    cp_debug("ssh:%s: host key checked, authenticated", h->alias);
    if (s->alive_interval > 0)
        libssh2_keepalive_config(s->lib, 1, (unsigned)s->alive_interval);
    libssh2_session_set_timeout(s->lib, 0);
    *out = steal_pointer(&s);
    return 0;
}

static int connect_depth(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h, int depth,
                         struct cp_ssh_session **out, cp_error_t *err);

/* A hop named in ProxyJump, resolved from the same config with its user and port applied. */
static int resolve_hop(const struct cp_ssh_fs *fs, const struct cp_ssh_hop *hop,
                       struct cp_ssh_host *out, cp_error_t *err)
{
    cleanup_free char *path = xasprintf("%s/.ssh/config", fs->home);
    if (cp_ssh_config_resolve(fs, path, hop->host, out, err) < 0)
        return cp_error_wrap(err, "ProxyJump host %s", hop->host);
    if (hop->user != NULL) {
        free(out->user);
        out->user = xstrdup(hop->user);
    }
    if (hop->port > 0)
        out->port = hop->port;
    return 0;
}

/* A session to h through the session prev (which it takes, whatever happens). */
static int connect_through(struct cp_ssh_session *prev, const struct cp_ssh_host *h,
                           struct cp_ssh_session **out, cp_error_t *err)
{
    struct ride r = {.fd = -1, .proxy = CP_CHILD_INIT, .hop = prev};
    if (ssh_socket_jump(prev, h->hostname, h->port, &r.leg, &r.fd, err) < 0) {
        cp_ssh_session_free(prev);
        return cp_error_code(err);
    }
    return session_start(h, r, out, err);
}

static int connect_jump(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h, int depth,
                        struct cp_ssh_session **out, cp_error_t *err)
{
    struct cp_ssh_hop *hops = NULL;
    size_t n = 0;
    if (cp_ssh_jump_parse(h->proxy_jump, &hops, &n, err) < 0)
        return cp_error_code(err);
    struct cp_ssh_session *prev = NULL;
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        cleanup_ssh_host struct cp_ssh_host hc = {0};
        r = resolve_hop(fs, &hops[i], &hc, err);
        if (r == 0 && i == 0)
            r = connect_depth(fs, &hc, depth + 1, &prev, err);
        else if (r == 0)
            r = connect_through(prev, &hc, &prev, err);
        else
            cp_ssh_session_free(steal_pointer(&prev));
    }
    cp_ssh_hops_free(hops, n);
    if (r < 0)
        return cp_error_wrap(err, "through ProxyJump %s", h->proxy_jump);
    return connect_through(prev, h, out, err);
}

static int connect_depth(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h, int depth,
                         struct cp_ssh_session **out, cp_error_t *err)
{
    if (depth > MAX_JUMP_DEPTH)
        return cp_error_make(err, CP_ERR_USAGE, 0, "ProxyJump hops nest deeper than %d",
                             MAX_JUMP_DEPTH);
    cleanup_free char *command = NULL;
    if (cp_ssh_proxy_command(h, &command, err) < 0)
        return cp_error_code(err);
    struct ride r = {.fd = -1, .proxy = CP_CHILD_INIT};
    if (command != NULL) {
        if (ssh_socket_command(command, &r.fd, &r.proxy, err) < 0)
            return cp_error_code(err);
        return session_start(h, r, out, err);
    }
    if (h->proxy_jump != NULL && strcmp(h->proxy_jump, "none") != 0)
        return connect_jump(fs, h, depth, out, err);
    if (ssh_socket_tcp(h->hostname, h->port, timeout_of(h), &r.fd, err) < 0)
        return cp_error_code(err);
    return session_start(h, r, out, err);
}

int cp_ssh_connect(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                   struct cp_ssh_session **out, cp_error_t *err)
{
    static bool initialised;
    if (!initialised && libssh2_init(0) != 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "libssh2 cannot start");
    initialised = true;
    if (connect_depth(fs, h, 0, out, err) < 0)
        return cp_error_wrap(err, "ssh:%s", h->alias);
    return 0;
}

int cp_ssh_connect_words(const struct cp_ssh_fs *fs, const struct cp_ssh_host *h,
                         struct cp_ssh_session **out, cp_error_t *err)
{
    if (cp_ssh_connect(fs, h, out, err) == 0)
        return 0;
    /* From the codes the connection's steps set (socket.c, session.c), never from
     * their words, which a library update may change. */
    int code = cp_error_code(err);
    int e = (*err)->sys_errno;
    if (code == CP_ERR_NOT_FOUND)
        cp_error_hint(err,
                      "The name %s is not found: check HostName for %s in ~/.ssh/config, or "
                      "the network's name service.",
                      h->hostname, h->alias);
    else if (e == ECONNREFUSED)
        cp_error_hint(err,
                      "Nothing answers SSH on %s port %ld: start sshd there, or fix Port for "
                      "%s in ~/.ssh/config.",
                      h->hostname, h->port, h->alias);
    else if (code == CP_ERR_TIMEOUT || e == EHOSTUNREACH || e == ENETUNREACH)
        cp_error_hint(err,
                      "%s did not answer: it may be asleep or off the network. Wake it or "
                      "reconnect it, then try again (ConnectTimeout sets how long to wait).",
                      h->alias);
    else if (code == CP_ERR_UNREACHABLE)
        cp_error_hint(err, "Check that %s is up and runs sshd: `ssh %s true` from a terminal.",
                      h->alias, h->alias);
    return code;
}
