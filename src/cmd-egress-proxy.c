/* `egress-proxy`: the sidecar's CONNECT proxy, also usable on its own. This is its entry in the
 * command table: the options, read into the sidecar's own struct and handed to its process
 * (egress/sidecar-main.c, through egress/egress.h), which checks them and does the rest. */
#include "config.h"

#include "egress/egress.h"
#include "src/base/strvec.h"
#include "src/base/util.h"
#include "src/command.h"

static const struct cp_option options[] = {
    {"listen", 0, "ADDR:PORT", "where to listen (default 0.0.0.0:3128)"},
    {"allow", 0, "HOST", "allow HOST:443 read-only: GET, HEAD, fetching POSTs (repeatable)"},
    {"allow-write", 0, "HOST", "allow HOST:443 with every method (repeatable)"},
    {"allow-pass", 0, "HOST", "allow HOST:443 as a blind tunnel, for pinning clients (repeatable)"},
    {"allow-all", 0, NULL, "allow any name:443 whose addresses are all public, read-only"},
    {"allow-file", 0, "FILE", "lines 'HOST [write|pass-through]', # comments (repeatable)"},
    {"trust", 0, "FILE", "also trust these PEM roots for hosts (repeatable)"},
    {"ca-cert-out", 0, "FILE", "without CONCH_EGRESS_CA: write the made CA's certificate here"},
    {"allow-cidr", 0, "CIDR", "let listed names reach these non-public addresses (repeatable)"},
    {"log", 0, "FILE", "append one JSON line per decision (default: standard error)"},
    {"resolve", 0, "HOST=ADDR", "answer HOST with ADDR, no lookup; still checked (repeatable)"},
    {"dns-server", 0, "ADDR[:PORT],...", "ask these DNS servers, not /etc/resolv.conf's"},
    {"max-connections", 0, "N", "client connections at once (default 2048)"},
    {"head-timeout", 0, "SECONDS", "time for a whole request head (default 10)"},
    {"idle-timeout", 0, "SECONDS", "close a tunnel silent this long (default 600)"},
    {"exit-idle", 0, "SECONDS", "exit after this long with no connection (default: never)"},
    {"sign-ins-stdin", 0, NULL, "read sign-in messages from standard input (one JSON line each)"},
    {"send-sign-ins", 0, NULL, "hand the message on standard input to this namespace's proxy"},
    {"keys-stdin", 0, NULL,
     "wait for the secret, the CA and the upstream proxy as the first message on standard input "
     "(or the sign-ins' door), not the environment; serve only then"},
    {"keys-wait", 0, "SECONDS",
     "with --keys-stdin: leave when no keys came this long (default 60)"},
    {0},
};

extern const struct cp_command cp_cmd_egress_proxy;

static void values(const struct cp_parsed *args, const char *option, struct cp_strvec *out)
{
    int pos = 0;
    for (const char *v; (v = cp_arg_next(args, &cp_cmd_egress_proxy, option, &pos)) != NULL;)
        cp_strvec_push(out, v);
}

static const char *value(const struct cp_parsed *args, const char *option)
{
    return cp_arg(args, &cp_cmd_egress_proxy, option);
}

static void options_dispose(struct cp_egress_sidecar_options *o)
{
    struct cp_strvec *lists[] = {&o->allow,      &o->allow_write, &o->allow_pass, &o->allow_file,
                                 &o->allow_cidr, &o->resolve,     &o->trust};
    for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
        cp_strvec_dispose(lists[i]);
}

static int egress_proxy_handler(const struct cp_parsed *args, cp_error_t *err)
{
    __attribute__((cleanup(options_dispose))) struct cp_egress_sidecar_options o = {
        .listen = value(args, "listen"),
        .log = value(args, "log"),
        .dns_server = value(args, "dns-server"),
        .ca_cert_out = value(args, "ca-cert-out"),
        .max_connections = value(args, "max-connections"),
        .head_timeout = value(args, "head-timeout"),
        .idle_timeout = value(args, "idle-timeout"),
        .exit_idle = value(args, "exit-idle"),
        .keys_wait = value(args, "keys-wait"),
        .allow_all = value(args, "allow-all") != NULL,
        .sign_ins_stdin = value(args, "sign-ins-stdin") != NULL,
        .send_sign_ins = value(args, "send-sign-ins") != NULL,
        .keys_stdin = value(args, "keys-stdin") != NULL,
    };
    if (!o.send_sign_ins && args->nrest != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "egress-proxy takes no arguments");
    values(args, "allow", &o.allow);
    values(args, "allow-write", &o.allow_write);
    values(args, "allow-pass", &o.allow_pass);
    values(args, "allow-file", &o.allow_file);
    values(args, "allow-cidr", &o.allow_cidr);
    values(args, "resolve", &o.resolve);
    values(args, "trust", &o.trust);
    return cp_egress_sidecar_run(&o, err);
}

const struct cp_command cp_cmd_egress_proxy = {
    .name = "egress-proxy",
    .synopsis = "[OPTIONS]",
    .summary = "the sealed box's CONNECT proxy: HOST:443 for listed names only",
    .options = options,
    .handler = egress_proxy_handler,
    .failure_status = 1,
};
