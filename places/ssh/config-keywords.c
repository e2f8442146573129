/* The keyword table of ssh_config and one short handler per kind of value.
 * The classes and why each keyword is in its class are explained in config-host.h. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "places/ssh/config-keywords.h"
#include "src/base/util.h"

#define FIELD(p, kw, type) ((type *)((char *)(p)->h + (kw)->field))

/* Values are stored only where the block applies and nothing came first (first wins);
 * they are checked everywhere, as openssh does. */
static bool wants(const struct ssh_parse *p)
{
    return p->active && !p->nevermatch && p->alias != NULL;
}

static int one_arg(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                   cp_error_t *err)
{
    if (l->argc == 0)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s needs a value", kw->name);
    if (l->argc > 1)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s: extra arguments after \"%s\"", kw->name,
                               l->argv[0]);
    return 0;
}

static int check_tokens(struct ssh_parse *p, const struct ssh_keyword *kw, const char *v,
                        cp_error_t *err)
{
    char bad = 0;
    if (cp_ssh_tokens_valid(v, kw->tokens ? kw->tokens : "", &bad))
        return 0;
    if (bad == '\0')
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s: a lone %% at the end", kw->name);
    return ssh_parse_error(p, CP_ERR_USAGE, err, "%s: %%%c is not a token conch-place expands",
                           kw->name, bad);
}

/* Names that end up in commands or lookups are checked where they are taken. */
static bool value_ok(const struct ssh_keyword *kw, const char *v)
{
    if (kw->field == offsetof(struct cp_ssh_host, user))
        return cp_ssh_user_ok(v);
    if (kw->field == offsetof(struct cp_ssh_host, host_key_alias))
        return cp_ssh_hostname_ok(v);
    if (kw->field != offsetof(struct cp_ssh_host, hostname))
        return true;
    const char *tokens[] = {"h"};
    struct cp_ssh_tokens t = {.keys = "h", .values = tokens, .home = NULL};
    cleanup_free char *probe = cp_ssh_expand(v, &t);
    return cp_ssh_hostname_ok(probe) && strchr(probe, '%') == NULL;
}

static int kw_string(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                     cp_error_t *err)
{
    if (one_arg(p, kw, l, err) < 0 || check_tokens(p, kw, l->argv[0], err) < 0)
        return cp_error_code(err);
    if (strpbrk(l->argv[0], "$") != NULL && kw->tokens != NULL)
        return ssh_parse_error(p, CP_ERR_USAGE, err,
                               "%s: environment variables are not expanded here", kw->name);
    char **field = FIELD(p, kw, char *);
    if (!wants(p) || *field != NULL)
        return 0;
    if (!value_ok(kw, l->argv[0]))
        return ssh_parse_error(p, CP_ERR_USAGE, err,
                               "%s \"%s\": conch-place accepts only letters, digits and . _ - "
                               "(and @ + in a user, : in an address), not starting with -",
                               kw->name, l->argv[0]);
    *field = xstrdup(l->argv[0]);
    return 0;
}

static int kw_port(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                   cp_error_t *err)
{
    long v = 0;
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    if (cp_parse_long(l->argv[0], 1, 65535, &v) < 0)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "Port \"%s\" is not a number from 1 to 65535",
                               l->argv[0]);
    long *field = FIELD(p, kw, long);
    if (wants(p) && *field < 0)
        *field = v;
    return 0;
}

static int kw_flag(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                   cp_error_t *err)
{
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    const char *a = l->argv[0];
    int v = (!strcmp(a, "yes") || !strcmp(a, "true"))   ? 1
            : (!strcmp(a, "no") || !strcmp(a, "false")) ? 0
                                                        : -1;
    if (v < 0)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s \"%s\": expected yes or no", kw->name, a);
    int *field = FIELD(p, kw, int);
    if (wants(p) && *field < 0)
        *field = v;
    return 0;
}

static int kw_time(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                   cp_error_t *err)
{
    long v = 0;
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    if (strcmp(l->argv[0], "none") != 0 && cp_ssh_parse_time(l->argv[0], &v) < 0)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s \"%s\" is not a time (like 30 or 1m)",
                               kw->name, l->argv[0]);
    long *field = FIELD(p, kw, long);
    if (wants(p) && *field < 0)
        *field = v;
    return 0;
}

static int kw_count(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                    cp_error_t *err)
{
    long v = 0;
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    if (cp_parse_long(l->argv[0], 0, 1000000, &v) < 0)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s \"%s\" is not a number", kw->name,
                               l->argv[0]);
    long *field = FIELD(p, kw, long);
    if (wants(p) && *field < 0)
        *field = v;
    return 0;
}

/* IdentityFile adds to a list rather than first-wins, as in openssh. */
static int kw_identity(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                       cp_error_t *err)
{
    if (one_arg(p, kw, l, err) < 0 || check_tokens(p, kw, l->argv[0], err) < 0)
        return cp_error_code(err);
    if (strchr(l->argv[0], '$') != NULL)
        return ssh_parse_error(p, CP_ERR_USAGE, err,
                               "IdentityFile: environment variables are not expanded here");
    if (!wants(p))
        return 0;
    struct cp_ssh_host *h = p->h;
    if (h->identity_files.n >= CP_SSH_MAX_IDENTITY_FILES)
        return ssh_parse_error(p, CP_ERR_TOO_BIG, err, "more than %d IdentityFile lines apply",
                               CP_SSH_MAX_IDENTITY_FILES);
    cp_strvec_push(&h->identity_files, l->argv[0]);
    return 0;
}

static int kw_files(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                    cp_error_t *err)
{
    if (l->argc > CP_SSH_MAX_KNOWN_HOSTS)
        return ssh_parse_error(p, CP_ERR_TOO_BIG, err, "%s: more than %d files", kw->name,
                               CP_SSH_MAX_KNOWN_HOSTS);
    for (size_t i = 0; i < l->argc; i++) {
        if (check_tokens(p, kw, l->argv[i], err) < 0)
            return cp_error_code(err);
        if (strchr(l->argv[i], '$') != NULL)
            return ssh_parse_error(p, CP_ERR_USAGE, err,
                                   "%s: environment variables are not expanded here", kw->name);
    }
    char ***field = FIELD(p, kw, char **);
    if (!wants(p) || *field != NULL)
        return 0;
    *field = xcalloc(l->argc + 1, sizeof(char *));
    for (size_t i = 0; i < l->argc; i++)
        (*field)[i] = xstrdup(l->argv[i]);
    return 0;
}

/* ProxyCommand and ProxyJump share one slot: whichever comes first wins, as in openssh. */
static bool proxy_taken(const struct cp_ssh_host *h)
{
    return h->proxy_command != NULL || h->proxy_jump != NULL;
}

static int kw_proxy_command(struct ssh_parse *p, const struct ssh_keyword *kw,
                            const struct ssh_line *l, cp_error_t *err)
{
    if (check_tokens(p, kw, l->rest, err) < 0)
        return cp_error_code(err);
    if (wants(p) && !proxy_taken(p->h))
        p->h->proxy_command = xstrdup(l->rest);
    return 0;
}

static int kw_proxy_jump(struct ssh_parse *p, const struct ssh_keyword *kw,
                         const struct ssh_line *l, cp_error_t *err)
{
    struct cp_ssh_hop *hops = NULL;
    size_t n = 0;
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    if (cp_ssh_jump_parse(l->argv[0], &hops, &n, err) < 0)
        return cp_error_wrap(err, "%s:%d: ProxyJump", p->file, p->line);
    cp_ssh_hops_free(hops, n);
    if (wants(p) && !proxy_taken(p->h))
        p->h->proxy_jump = xstrdup(l->argv[0]);
    return 0;
}

/* IgnoreUnknown also counts while listing names, so the listing reads what resolution reads. */
static int kw_ignore_unknown(struct ssh_parse *p, const struct ssh_keyword *kw,
                             const struct ssh_line *l, cp_error_t *err)
{
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    if ((wants(p) || p->alias == NULL) && p->h->ignore_unknown == NULL)
        p->h->ignore_unknown = xstrdup(l->argv[0]);
    return 0;
}

/* Refused where it applies with a value that turns it on. */
static int kw_refuse_if_on(struct ssh_parse *p, const struct ssh_keyword *kw,
                           const struct ssh_line *l, cp_error_t *err)
{
    if (one_arg(p, kw, l, err) < 0)
        return cp_error_code(err);
    const char *a = l->argv[0];
    bool off = !strcmp(a, "no") || !strcmp(a, "false") || !strcmp(a, "none");
    if (wants(p) && !off)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s", kw->why);
    return 0;
}

#define PATH_TOKENS "dhnpru"
#define OFF(f)      offsetof(struct cp_ssh_host, f)
#define HONOUR(name, fn, f, tok)                                                                   \
    {                                                                                              \
        name, KW_HONOURED, fn, OFF(f), tok, NULL                                                   \
    }
#define IGNORE(name)                                                                               \
    {                                                                                              \
        name, KW_IGNORED, NULL, 0, NULL, NULL                                                      \
    }
#define REFUSE_IF_APPLIES(name, fn, why)                                                           \
    {                                                                                              \
        name, KW_REFUSED_IF_APPLIES, fn, 0, NULL, why                                              \
    }

static const struct ssh_keyword keywords[] = {
    /* Honoured. */
    {"host", KW_READER, NULL, 0, NULL, NULL},
    {"include", KW_READER, NULL, 0, NULL, NULL},
    HONOUR("hostname", kw_string, hostname, "h"),
    HONOUR("user", kw_string, user, NULL),
    HONOUR("port", kw_port, port, NULL),
    HONOUR("identityfile", kw_identity, identity_files, PATH_TOKENS),
    HONOUR("identitiesonly", kw_flag, identities_only, NULL),
    HONOUR("identityagent", kw_string, identity_agent, PATH_TOKENS),
    HONOUR("userknownhostsfile", kw_files, user_known_hosts, PATH_TOKENS),
    HONOUR("globalknownhostsfile", kw_files, global_known_hosts, PATH_TOKENS),
    HONOUR("hostkeyalias", kw_string, host_key_alias, NULL),
    HONOUR("connecttimeout", kw_time, connect_timeout, NULL),
    HONOUR("serveraliveinterval", kw_time, server_alive_interval, NULL),
    HONOUR("serveralivecountmax", kw_count, server_alive_count_max, NULL),
    HONOUR("proxycommand", kw_proxy_command, proxy_command, "hnpr"),
    HONOUR("proxyjump", kw_proxy_jump, proxy_jump, NULL),
    HONOUR("ignoreunknown", kw_ignore_unknown, ignore_unknown, NULL),
    /* Refused: what they would mean cannot be had here, and ignoring them would mislead. */
    {"match", KW_REFUSED, NULL, 0, NULL,
     "Match blocks are not supported (conch-place cannot evaluate their conditions without "
     "running them); put the host's settings under a Host line"},
    REFUSE_IF_APPLIES("knownhostscommand", NULL,
                      "KnownHostsCommand applies to this host and conch-place never runs it; "
                      "keep the host's key in known_hosts instead"),
    REFUSE_IF_APPLIES("canonicalizehostname", kw_refuse_if_on,
                      "CanonicalizeHostname applies to this host; conch-place does not "
                      "canonicalize names, so other Host blocks would apply than ssh's"),
    REFUSE_IF_APPLIES("proxyusefdpass", kw_refuse_if_on,
                      "ProxyUseFdpass applies to this host; conch-place talks to a ProxyCommand "
                      "only through its standard input and output"),
    REFUSE_IF_APPLIES("refuseconnection", kw_refuse_if_on,
                      "RefuseConnection applies to this host: the config says not to connect"),
    REFUSE_IF_APPLIES("bindaddress", NULL,
                      "BindAddress applies to this host; conch-place cannot choose the local "
                      "address, so the connection would leave from elsewhere than ssh's"),
    REFUSE_IF_APPLIES("bindinterface", NULL,
                      "BindInterface applies to this host; conch-place cannot choose the local "
                      "interface, so the connection would leave from elsewhere than ssh's"),
    REFUSE_IF_APPLIES("revokedhostkeys", NULL,
                      "RevokedHostKeys applies to this host; conch-place cannot read revocation "
                      "lists, so a revoked key could pass (use @revoked lines in known_hosts)"),
    /* Ignored: conch-place never does what they govern, or ignoring them is stricter. */
    IGNORE("addkeystoagent"),
    IGNORE("addressfamily"),
    IGNORE("batchmode"),
    IGNORE("canonicaldomains"),
    IGNORE("canonicalizefallbacklocal"),
    IGNORE("canonicalizemaxdots"),
    IGNORE("canonicalizepermittedcnames"),
    IGNORE("casignaturealgorithms"),
    IGNORE("certificatefile"),
    IGNORE("challengeresponseauthentication"),
    IGNORE("channeltimeout"),
    IGNORE("checkhostip"),
    IGNORE("cipher"),
    IGNORE("ciphers"),
    IGNORE("clearallforwardings"),
    IGNORE("compression"),
    IGNORE("compressionlevel"),
    IGNORE("connectionattempts"),
    IGNORE("controlmaster"),
    IGNORE("controlpath"),
    IGNORE("controlpersist"),
    IGNORE("dynamicforward"),
    IGNORE("enableescapecommandline"),
    IGNORE("enablesshkeysign"),
    IGNORE("escapechar"),
    IGNORE("exitonforwardfailure"),
    IGNORE("fallbacktorsh"),
    IGNORE("fingerprinthash"),
    IGNORE("forkafterauthentication"),
    IGNORE("forwardagent"),
    IGNORE("forwardx11"),
    IGNORE("forwardx11timeout"),
    IGNORE("forwardx11trusted"),
    IGNORE("gatewayports"),
    IGNORE("gssapiauthentication"),
    IGNORE("gssapiclientidentity"),
    IGNORE("gssapidelegatecredentials"),
    IGNORE("gssapikexalgorithms"),
    IGNORE("gssapikeyexchange"),
    IGNORE("gssapirenewalforcesrekey"),
    IGNORE("gssapiserveridentity"),
    IGNORE("gssapitrustdns"),
    IGNORE("hashknownhosts"),
    IGNORE("hostbasedacceptedalgorithms"),
    IGNORE("hostbasedauthentication"),
    IGNORE("hostbasedkeytypes"),
    IGNORE("hostkeyalgorithms"),
    IGNORE("ipqos"),
    IGNORE("kbdinteractiveauthentication"),
    IGNORE("kbdinteractivedevices"),
    IGNORE("kexalgorithms"),
    IGNORE("keepalive"),
    IGNORE("localcommand"),
    IGNORE("localforward"),
    IGNORE("loglevel"),
    IGNORE("logverbose"),
    IGNORE("macs"),
    IGNORE("nohostauthenticationforlocalhost"),
    IGNORE("numberofpasswordprompts"),
    IGNORE("obscurekeystroketiming"),
    IGNORE("passwordauthentication"),
    IGNORE("permitlocalcommand"),
    IGNORE("permitremoteopen"),
    IGNORE("pkcs11provider"),
    IGNORE("preferredauthentications"),
    IGNORE("protocol"),
    IGNORE("pubkeyacceptedalgorithms"),
    IGNORE("pubkeyacceptedkeytypes"),
    IGNORE("pubkeyauthentication"),
    IGNORE("rekeylimit"),
    IGNORE("remotecommand"),
    IGNORE("remoteforward"),
    IGNORE("requesttty"),
    IGNORE("requiredrsasize"),
    IGNORE("rhostsrsaauthentication"),
    IGNORE("rsaauthentication"),
    IGNORE("securitykeyprovider"),
    IGNORE("sendenv"),
    IGNORE("sessiontype"),
    IGNORE("setenv"),
    IGNORE("skeyauthentication"),
    IGNORE("smartcarddevice"),
    IGNORE("stdinnull"),
    IGNORE("streamlocalbindmask"),
    IGNORE("streamlocalbindunlink"),
    IGNORE("stricthostkeychecking"),
    IGNORE("syslogfacility"),
    IGNORE("tag"),
    IGNORE("tcpkeepalive"),
    IGNORE("tisauthentication"),
    IGNORE("tunnel"),
    IGNORE("tunneldevice"),
    IGNORE("updatehostkeys"),
    IGNORE("usekeychain"),
    IGNORE("useprivilegedport"),
    IGNORE("useroaming"),
    IGNORE("usersh"),
    IGNORE("verifyhostkeydns"),
    IGNORE("visualhostkey"),
    IGNORE("warnweakcrypto"),
    IGNORE("xauthlocation"),
};

const struct ssh_keyword *ssh_keyword_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
        if (strcmp(keywords[i].name, name) == 0)
            return &keywords[i];
    return NULL;
}
