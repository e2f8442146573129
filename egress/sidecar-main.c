/* The sidecar's process (`conch-place egress-proxy`, whose command hands its options here), also
 * usable on its own: builds the allow-list from the options and extra roots from
 * CONCH_EGRESS_TRUST (certificates only), and runs the loop. The sidecar conch-place starts
 * (--keys-stdin) takes its keys, the per-box secret (see egress/policy/box-credential.h for the
 * credential), the CA that signs the certificates of read and write hosts and the upstream
 * proxy (it may hold a password), as the first message on the sign-in channel
 * (egress/sign-ins/keys-message.h) and serves nothing before: the engine keeps a box's
 * environment and argv in its config, which `inspect` shows and the engine writes to disk. A
 * person running it by hand may give them in CONCH_EGRESS_SECRET, CONCH_EGRESS_CA, HTTPS_PROXY
 * and NO_PROXY instead (copied, wiped and unset at start: argv is readable by every process on
 * the machine). Sign-ins come on standard input (egress/sign-ins/sign-ins-feed.h), never
 * argv. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "egress/egress.h"
#include "egress/policy/policy.h"
#include "egress/terminate/terminate.h"
#include "egress/sign-ins/sign-ins.h"
#include "egress/proxy/proxy.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    stop_requested = 1;
}

typedef int (*add_fn)(struct cp_egress_policy *, const char *, cp_error_t *);

static int add_each(const struct cp_strvec *values, const char *option, add_fn add,
                    struct cp_egress_policy *policy, cp_error_t *err)
{
    for (size_t i = 0; i < values->n; i++)
        if (add(policy, values->v[i], err) < 0)
            return cp_error_wrap(err, "--%s", option);
    return 0;
}

static int build_policy(const struct cp_egress_sidecar_options *o, struct cp_egress_policy *policy,
                        cp_error_t *err)
{
    if (add_each(&o->allow, "allow", cp_egress_policy_add_host, policy, err) < 0 ||
        add_each(&o->allow_write, "allow-write", cp_egress_policy_add_write, policy, err) < 0 ||
        add_each(&o->allow_pass, "allow-pass", cp_egress_policy_add_pass, policy, err) < 0 ||
        add_each(&o->allow_file, "allow-file", cp_egress_policy_add_file, policy, err) < 0 ||
        add_each(&o->allow_cidr, "allow-cidr", cp_egress_policy_add_cidr, policy, err) < 0 ||
        add_each(&o->resolve, "resolve", cp_egress_policy_add_pin, policy, err) < 0)
        return cp_error_code(err);
    policy->any_public = o->allow_all;
    return 0;
}

static int seconds_option(const char *v, const char *option, long max, unsigned *ms_out,
                          cp_error_t *err)
{
    long s;
    if (v == NULL)
        return 0;
    if (cp_parse_long(v, 1, max, &s) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--%s must be 1 to %ld seconds", option, max);
    *ms_out = (unsigned)(s * 1000);
    return 0;
}

/* Each connection takes two descriptors; ask for the hard limit and fit the count to it. */
static int fit_connections(const char *v, unsigned *max_out, cp_error_t *err)
{
    long want = 2048;
    if (v != NULL && cp_parse_long(v, 1, 1000000, &want) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--max-connections must be 1 to 1000000");
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
        long room = rl.rlim_cur > 64 ? (long)(rl.rlim_cur - 32) / 2 : 1;
        if (want > room) {
            cp_say("--max-connections %ld lowered to %ld (descriptor limit %ld)", want, room,
                   (long)rl.rlim_cur);
            want = room;
        }
    }
    *max_out = (unsigned)want;
    return 0;
}

static int open_log(const char *path, FILE **out, cp_error_t *err)
{
    if (path == NULL) {
        *out = stderr;
        return 0;
    }
    cleanup_close int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the log %s", path);
    *out = fdopen(fd, "a");
    if (*out == NULL)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open the log %s", path);
    steal_fd(&fd);
    return 0;
}

/* The secret is copied and removed from the environment, so no child could inherit it. */
static int take_secret(char **out, cp_error_t *err)
{
    const char *s = getenv(CP_EGRESS_SECRET_ENV);
    *out = NULL;
    if (s == NULL || s[0] == '\0')
        return 0;
    if (strlen(s) < CP_EGRESS_SECRET_MIN)
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s must hold at least %d bytes",
                             CP_EGRESS_SECRET_ENV, CP_EGRESS_SECRET_MIN);
    *out = xstrdup(s);
    unsetenv(CP_EGRESS_SECRET_ENV);
    return 0;
}

/* A PEM from the environment: copied, the variable removed and its "NAME=value" bytes
 * wiped where they lie, so neither a child nor /proc/PID/environ shows it later. unsetenv
 * only drops the pointer; the bytes (on the stack for the first environment) stay. */
static char *take_env(const char *name)
{
    char *s = getenv(name);
    if (s == NULL || s[0] == '\0')
        return NULL;
    char *copy = xstrdup(s);
    char *entry = s - strlen(name) - 1;
    size_t len = strlen(entry);
    unsetenv(name);
    explicit_bzero(entry, len);
    return copy;
}

static void free_secretp(char **s)
{
    cp_free_secret(*s);
}

/* The CA from CONCH_EGRESS_CA, or one made now; its certificate to --ca-cert-out then, so a
 * standalone user or a test can trust it. The key goes nowhere. */
static int take_ca(const char *out, char **pem_out, cp_error_t *err)
{
    if (*pem_out == NULL)
        *pem_out = take_env(CP_EGRESS_CA_ENV);
    if (*pem_out != NULL)
        return 0;
    if (cp_egress_ca_generate(pem_out, err) < 0)
        return cp_error_wrap(err, "while making the egress CA");
    if (out == NULL)
        return 0;
    cleanup_free char *cert = NULL;
    if (cp_egress_ca_cert_pem(*pem_out, &cert, err) < 0)
        return cp_error_code(err);
    cleanup_close int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 || fchmod(fd, 0644) < 0 || cp_write_all(fd, cert, strlen(cert)) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the CA's certificate to %s",
                             out);
    return 0;
}

/* ca: the keys' CA (taken: wiped here), or NULL for CONCH_EGRESS_CA's or one made now. */
static int build_tls(const struct cp_egress_sidecar_options *opts, char *ca_in,
                     struct cp_egress_tls **out, cp_error_t *err)
{
    __attribute__((cleanup(free_secretp))) char *ca = ca_in;
    cleanup_free char *trust = take_env(CP_EGRESS_TRUST_ENV);
    const char *files[64];
    size_t n = 0;
    for (size_t i = 0; i < opts->trust.n; i++) {
        if (n == ARRAY_SIZE(files))
            return cp_error_make(err, CP_ERR_USAGE, 0, "at most %zu --trust files",
                                 ARRAY_SIZE(files));
        files[n++] = opts->trust.v[i];
    }
    if (take_ca(opts->ca_cert_out, &ca, err) < 0)
        return cp_error_code(err);
    struct cp_egress_tls_options o = {
        .ca_pem = ca, .trust_files = files, .ntrust = n, .trust_pem = trust};
    if (cp_egress_tls_new(&o, out, err) < 0)
        return cp_error_wrap(err, "while setting up TLS for read and write hosts");
    return 0;
}

static void tls_freep(struct cp_egress_tls **t)
{
    cp_egress_tls_free(*t);
}

static void close_log(FILE **f)
{
    if (*f != NULL && *f != stderr)
        fclose(*f);
}

static void install_stop_handlers(void)
{
    struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: epoll_wait returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int configure(const struct cp_egress_sidecar_options *o, struct cp_egress_proxy_config *cfg,
                     cp_error_t *err)
{
    if (fit_connections(o->max_connections, &cfg->max_conns, err) < 0 ||
        seconds_option(o->head_timeout, "head-timeout", 3600, &cfg->head_timeout_ms, err) < 0 ||
        seconds_option(o->idle_timeout, "idle-timeout", 7 * 86400, &cfg->idle_timeout_ms, err) <
            0 ||
        seconds_option(o->exit_idle, "exit-idle", 7 * 86400, &cfg->exit_idle_ms, err) < 0)
        return cp_error_code(err);
    cp_egress_proxy_defaults(cfg);
    return 0;
}

/* At the end the table is wiped (once no request holds it); the holder's lock stays valid for
 * a tunnel's thread still running. */
static void sign_ins_clear(struct cp_egress_sign_ins_holder **h)
{
    if (*h != NULL)
        cp_egress_sign_ins_holder_set(*h, NULL);
}

/* A process holding the person's credentials leaves no core dump (a crash would write them to
 * disk) and cannot be attached to by another process of its user. */
static void guard_memory(void)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* --sign-ins-stdin: the table starts empty; the loop reads fd 0 for messages. The holder is
 * static since the tunnels' detached threads may still read it while the handler returns. */
static void set_sign_ins(const struct cp_egress_sidecar_options *o,
                         struct cp_egress_proxy_config *cfg)
{
    static struct cp_egress_sign_ins_holder holder;
    cfg->sign_ins_fd = -1;
    if (!o->sign_ins_stdin && !o->keys_stdin)
        return;
    guard_memory();
    cp_egress_sign_ins_holder_init(&holder);
    cfg->sign_ins = &holder;
    cfg->sign_ins_fd = STDIN_FILENO;
}

/* The second door (sign-ins-door.h): where an attach cannot keep standard input open. A proxy
 * whose namespace holds one already (two beside each other on one computer) has stdin only. */
static void open_door(const struct cp_egress_proxy_config *cfg)
{
    cleanup_error cp_error_t err = NULL;
    if (cfg->sign_ins != NULL && cp_egress_sign_ins_door_open(cfg->sign_ins, cfg->log, &err) < 0)
        cp_debug("%s", err->msg);
}

/* One message from fd: up to and with its newline (its sender writes nothing after it). */
static int read_message(int fd, char **out, size_t *len, cp_error_t *err)
{
    size_t cap = CP_EGRESS_SIGN_INS_MESSAGE_MAX + 2;
    char *buf = xmalloc(cap);
    *len = 0;
    while (*len < cap && (*len == 0 || buf[*len - 1] != '\n')) {
        ssize_t n = read(fd, buf + *len, cap - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    *out = buf;
    if (*len == 0 || buf[*len - 1] != '\n')
        return cp_error_make(err, CP_ERR_USAGE, 0, "standard input held no whole message");
    return 0;
}

/* --send-sign-ins: what conch-place runs in a sidecar through the engine's exec API, the
 * message on standard input, the proxy's answer on standard output. */
static int send_sign_ins(cp_error_t *err)
{
    __attribute__((cleanup(cp_cleanup_freep))) char *line = NULL;
    size_t len = 0;
    if (read_message(STDIN_FILENO, &line, &len, err) < 0 ||
        cp_egress_sign_ins_door_send(line, len, STDOUT_FILENO, err) < 0) {
        if (line != NULL)
            explicit_bzero(line, len);
        return cp_error_wrap(err, "--send-sign-ins");
    }
    explicit_bzero(line, len);
    return 0;
}

/* A sidecar that was given keys in its environment is one the engine shows them for: it does
 * not start (and the variables are wiped all the same). */
static int refuse_env_keys(cp_error_t *err)
{
    static const char *const names[] = {CP_EGRESS_SECRET_ENV, CP_EGRESS_CA_ENV};
    bool found = false;
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        char *v = take_env(names[i]);
        found = found || v != NULL;
        cp_free_secret(v);
    }
    if (found)
        return cp_error_make(err, CP_ERR_UNSAFE, 0,
                             "--keys-stdin: %s or %s is in the environment, which the engine "
                             "shows to anyone who may use it; keys come on standard input only",
                             CP_EGRESS_SECRET_ENV, CP_EGRESS_CA_ENV);
    return 0;
}

/* --keys-stdin: the keys from the channel (keys-message.h), the door open first so that they may
 * come through it; then the secret and the upstream taken from them, the CA left for build_tls. */
static int wait_keys(const struct cp_egress_sidecar_options *o, struct cp_egress_proxy_config *cfg,
                     char **secret_out, char **ca_out, struct cp_egress_upstream *up,
                     cp_error_t *err)
{
    __attribute__((cleanup(cp_egress_keys_dispose))) struct cp_egress_keys k = {0};
    unsigned wait_ms = CP_EGRESS_KEYS_WAIT_MS;
    if (seconds_option(o->keys_wait, "keys-wait", 3600, &wait_ms, err) < 0 ||
        refuse_env_keys(err) < 0 || cp_egress_keys_expect(err) < 0)
        return cp_error_code(err);
    open_door(cfg);
    if (cp_egress_keys_wait(STDIN_FILENO, cfg->sign_ins, cfg->log, (int)wait_ms, &k, err) < 0)
        return cp_error_wrap(err, "--keys-stdin");
    if (k.https_proxy != NULL && cp_egress_upstream_parse(k.https_proxy, k.no_proxy, up, err) < 0)
        return cp_error_wrap(err, "the keys' https_proxy");
    *secret_out = steal_pointer(&k.secret);
    *ca_out = steal_pointer(&k.ca_pem);
    return 0;
}

/* The keys: from the channel, or (by hand) the environment. */
static int take_keys(const struct cp_egress_sidecar_options *o, struct cp_egress_proxy_config *cfg,
                     char **secret_out, struct cp_egress_upstream *up,
                     struct cp_egress_tls **tls_out, cp_error_t *err)
{
    char *ca = NULL;
    if (o->keys_stdin
            ? wait_keys(o, cfg, secret_out, &ca, up, err) < 0
            : take_secret(secret_out, err) < 0 || cp_egress_upstream_from_env(up, err) < 0)
        return cp_error_code(err);
    return build_tls(o, ca, tls_out, err);
}

int cp_egress_sidecar_run(const struct cp_egress_sidecar_options *o, cp_error_t *err)
{
    if (o->send_sign_ins)
        return send_sign_ins(err);
    cleanup_egress_policy struct cp_egress_policy policy = {0};
    __attribute__((cleanup(free_secretp))) char *secret = NULL;
    __attribute__((cleanup(close_log))) FILE *log = NULL;
    __attribute__((cleanup(cp_egress_upstream_dispose))) struct cp_egress_upstream upstream = {0};
    __attribute__((cleanup(tls_freep))) struct cp_egress_tls *tls = NULL;
    struct cp_egress_proxy_config cfg = {
        .policy = &policy,
        .stop = &stop_requested,
        .dns_servers = o->dns_server,
    };
    __attribute__((cleanup(sign_ins_clear))) struct cp_egress_sign_ins_holder *sign_ins = NULL;
    if (build_policy(o, &policy, err) < 0 || configure(o, &cfg, err) < 0 ||
        open_log(o->log, &log, err) < 0)
        return cp_error_code(err);
    cfg.log = log;
    set_sign_ins(o, &cfg);
    sign_ins = cfg.sign_ins;
    install_stop_handlers();
    if (take_keys(o, &cfg, &secret, &upstream, &tls, err) < 0)
        return cp_error_code(err);
    cfg.upstream = upstream.host[0] ? &upstream : NULL;
    cfg.tls = tls;
    const char *listen_at = o->listen;
    cleanup_close int lfd = -1;
    if (cp_egress_listen(listen_at ? listen_at : "0.0.0.0:3128", &lfd, err) < 0)
        return cp_error_code(err);
    cfg.secret = secret;
    if (!o->keys_stdin)
        open_door(&cfg);
    cp_debug("egress proxy on %s, %zu hosts allowed%s%s", listen_at ? listen_at : "0.0.0.0:3128",
             policy.patterns.n, upstream.host[0] ? ", through the upstream proxy " : "",
             upstream.host);
    if (cp_egress_proxy_run(lfd, &cfg, err) < 0)
        return cp_error_code(err);
    return 0;
}
