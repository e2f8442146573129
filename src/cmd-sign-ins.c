/* `sign-ins add HOST | list | remove HOST`: the person's sign-ins for hosts they name (issue
 * 33). The secret comes from standard input only (read without echo from a terminal), never
 * from argv, and is kept in the secrets file; the box of a sealed run gets a placeholder in
 * CONCH_SIGNIN_<NAME> that the sidecar replaces (places/container/allow/sign-ins-named.c). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include <json-c/json.h>

#include "src/command.h"
#include "src/base/json.h"
#include "src/base/secrets.h"
#include "src/base/sign-ins-store.h"
#include "src/base/util.h"

extern const struct cp_command cp_cmd_sign_ins;

static const char *opt(const struct cp_parsed *args, const char *name)
{
    return cp_arg(args, &cp_cmd_sign_ins, name);
}

/* Echo off while a terminal is read, and back on however the read ends: a return, or Ctrl-C
 * and SIGTERM (whose default death would leave the person's terminal silent). */
static struct termios echo_saved;
static volatile sig_atomic_t echo_is_off;

static void echo_restore_now(void)
{
    if (echo_is_off)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &echo_saved);
    echo_is_off = 0;
}

static void echo_on_signal(int sig)
{
    echo_restore_now(); /* tcsetattr is async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void echo_restore(bool *quiet)
{
    if (*quiet)
        echo_restore_now();
}

static bool echo_off(void)
{
    if (tcgetattr(STDIN_FILENO, &echo_saved) != 0)
        return false;
    struct termios quiet = echo_saved;
    quiet.c_lflag &= ~(tcflag_t)ECHO;
    signal(SIGINT, echo_on_signal);
    signal(SIGTERM, echo_on_signal);
    echo_is_off = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
    return echo_is_off;
}

/* Reads at most CP_SECRET_MAX + 2 bytes: a secret, its newline, and one byte to tell "too
 * long". From a terminal one line, unechoed; else everything up to the end. */
static int read_secret(char **out, size_t *len_out, cp_error_t *err)
{
    bool tty = isatty(STDIN_FILENO);
    __attribute__((cleanup(echo_restore))) bool quiet = tty && echo_off();
    if (tty)
        fprintf(stderr, "conch-place: type or paste the secret%s, then Enter: ",
                quiet ? " (not shown)" : "");
    size_t cap = CP_SECRET_MAX + 2, len = 0;
    cleanup_secret char *buf = xcalloc(1, cap + 1);
    while (len < cap && !(tty && len > 0 && buf[len - 1] == '\n')) {
        ssize_t n = read(STDIN_FILENO, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno,
                                 "cannot read the secret from standard input");
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (tty)
        fputc('\n', stderr);
    if (len == cap)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the secret is longer than %d bytes",
                             CP_SECRET_MAX);
    /* One final newline (or CR LF) is the terminal's or the file's, not the secret's. */
    if (len > 0 && buf[len - 1] == '\n')
        buf[--len] = '\0';
    if (len > 0 && buf[len - 1] == '\r')
        buf[--len] = '\0';
    *out = steal_pointer(&buf);
    *len_out = len;
    return 0;
}

static int folder_of(const struct cp_parsed *args, char **out, cp_error_t *err)
{
    const char *dir = opt(args, "workdir");
    *out = realpath(dir ? dir : ".", NULL);
    if (*out == NULL)
        return cp_error_make(err, CP_ERR_USAGE, errno, "the work folder '%s' cannot be used",
                             dir ? dir : ".");
    return 0;
}

/* The options of `add`, checked, into s (its secret not yet read). */
static int add_options(const struct cp_parsed *args, struct cp_named_sign_in *s, cp_error_t *err)
{
    const char *path = opt(args, "path"), *header = opt(args, "header");
    const char *scheme = opt(args, "scheme"), *env = opt(args, "env");
    if (cp_sign_in_host_check(args->rest[1], err) < 0)
        return cp_error_code(err);
    s->host = xstrdup(args->rest[1]);
    for (char *p = s->host; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (cp_sign_in_path_check(path ? path : "/", &s->prefix, err) < 0)
        return cp_error_code(err);
    s->header = xstrdup(header ? header : "Authorization");
    if (cp_sign_in_header_check(s->header, err) < 0)
        return cp_error_code(err);
    /* Authorization takes a scheme; another header (X-Api-Key) the key as it is. */
    bool auth = strcasecmp(s->header, "Authorization") == 0;
    s->scheme = xstrdup(scheme ? scheme : auth ? "bearer" : "raw");
    if (cp_sign_in_scheme_check(s->scheme, err) < 0)
        return cp_error_code(err);
    s->env = env ? xstrdup(env) : cp_sign_in_env_default(s->host);
    if (cp_sign_in_env_check(s->env, err) < 0)
        return cp_error_code(err);
    s->write = opt(args, "write") != NULL;
    return 0;
}

static void named_dispose(struct cp_named_sign_in **s)
{
    struct cp_named_sign_ins one = {*s, 1};
    cp_named_sign_ins_dispose(&one);
}

static int sign_ins_add(const struct cp_parsed *args, const char *folder, cp_error_t *err)
{
    if (args->nrest != 2)
        return cp_error_make(err, CP_ERR_USAGE, 0, "sign-ins add takes one HOST");
    __attribute__((cleanup(named_dispose))) struct cp_named_sign_in *s = xcalloc(1, sizeof(*s));
    if (add_options(args, s, err) < 0)
        return cp_error_code(err);
    size_t len = 0;
    if (read_secret(&s->secret, &len, err) < 0 ||
        cp_sign_in_secret_check(s->scheme, s->secret, len, err) < 0 ||
        cp_sign_in_store(folder, s, err) < 0)
        return cp_error_code(err);
    printf("%s: a sign-in for %s%s in its %s header (%s), set in sealed boxes as "
           "CONCH_SIGNIN_%s; %s\n",
           folder, s->host, s->prefix, s->header, s->scheme, s->env,
           s->write ? "every method carries it (--write)" : "fetching requests only");
    return 0;
}

static json_object *list_json(const char *folder, const struct cp_named_sign_ins *l)
{
    json_object *doc = json_object_new_object(), *a = json_object_new_array();
    json_object_object_add(doc, "folder", json_object_new_string(folder));
    for (size_t i = 0; i < l->n; i++) {
        const struct cp_named_sign_in *s = &l->v[i];
        json_object *o = json_object_new_object();
        cleanup_free char *env = xasprintf("CONCH_SIGNIN_%s", s->env);
        json_object_object_add(o, "host", json_object_new_string(s->host));
        json_object_object_add(o, "path", json_object_new_string(s->prefix));
        json_object_object_add(o, "header", json_object_new_string(s->header));
        json_object_object_add(o, "scheme", json_object_new_string(s->scheme));
        json_object_object_add(o, "env", json_object_new_string(env));
        json_object_object_add(o, "mode", json_object_new_string(s->write ? "write" : "read"));
        json_object_array_add(a, o);
    }
    json_object_object_add(doc, "sign_ins", a);
    return doc;
}

static int sign_ins_list(const struct cp_parsed *args, const char *folder, cp_error_t *err)
{
    if (args->nrest != 1)
        return cp_error_make(err, CP_ERR_USAGE, 0, "sign-ins list takes no HOST");
    cleanup_named_sign_ins struct cp_named_sign_ins l = {0};
    if (cp_sign_ins_stored(folder, false, &l, err) < 0)
        return cp_error_code(err);
    if (opt(args, "json") != NULL) {
        cleanup_json json_object *doc = list_json(folder, &l);
        printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
        return 0;
    }
    if (l.n == 0)
        printf("%s: no sign-ins of its own (add one: conch-place sign-ins add HOST)\n", folder);
    for (size_t i = 0; i < l.n; i++)
        printf("%-32s %-16s %-16s %-7s CONCH_SIGNIN_%-16s %s\n", l.v[i].host, l.v[i].prefix,
               l.v[i].header, l.v[i].scheme, l.v[i].env, l.v[i].write ? "write" : "read");
    return 0;
}

static int sign_ins_remove(const struct cp_parsed *args, const char *folder, cp_error_t *err)
{
    if (args->nrest != 2)
        return cp_error_make(err, CP_ERR_USAGE, 0, "sign-ins remove takes one HOST");
    if (cp_sign_in_unstore(folder, args->rest[1], err) < 0)
        return cp_error_code(err);
    printf("%s: the sign-in for %s is removed\n", folder, args->rest[1]);
    return 0;
}

/* Options that only add takes are refused elsewhere, rather than silently ignored. */
static int only_add(const struct cp_parsed *args, const char *verb, cp_error_t *err)
{
    static const char *const add_only[] = {"path", "header", "scheme", "env", "write", NULL};
    for (size_t i = 0; strcmp(verb, "add") != 0 && add_only[i] != NULL; i++)
        if (opt(args, add_only[i]) != NULL)
            return cp_error_make(err, CP_ERR_USAGE, 0, "--%s goes with 'sign-ins add HOST' only",
                                 add_only[i]);
    if (strcmp(verb, "list") != 0 && opt(args, "json") != NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "--json goes with 'sign-ins list' only");
    return 0;
}

static int sign_ins_handler(const struct cp_parsed *args, cp_error_t *err)
{
    const char *verb = args->nrest > 0 ? args->rest[0] : "";
    int (*run)(const struct cp_parsed *, const char *, cp_error_t *) =
        strcmp(verb, "add") == 0      ? sign_ins_add
        : strcmp(verb, "list") == 0   ? sign_ins_list
        : strcmp(verb, "remove") == 0 ? sign_ins_remove
                                      : NULL;
    if (run == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "sign-ins takes 'add HOST', 'list' or 'remove HOST'");
    cleanup_free char *folder = NULL;
    if (only_add(args, verb, err) < 0 || folder_of(args, &folder, err) < 0)
        return cp_error_code(err);
    return run(args, folder, err);
}

static const struct cp_option options[] = {
    {"workdir", 0, "DIR", "the work folder (default: the current directory)"},
    {"path", 0, "PREFIX", "with add: the path prefix the sign-in is for (default: /)"},
    {"header", 0, "HEADER", "with add: the header it goes in (default: Authorization)"},
    {"scheme", 0, "SCHEME",
     "with add: bearer, basic (user:password, base64) or raw (default: bearer for "
     "Authorization, raw for another header)"},
    {"env", 0, "VAR",
     "with add: the box's variable is CONCH_SIGNIN_VAR (default: the host upper-cased, other "
     "bytes _)"},
    {"write", 0, NULL, "with add: every method carries it, so uploads go out to HOST"},
    {"json", 0, NULL, "with list: one JSON document (never the secret)"},
    {0},
};

const struct cp_command cp_cmd_sign_ins = {
    .name = "sign-ins",
    .synopsis = "add HOST [--path PREFIX] [--header HEADER] [--scheme SCHEME] [--env VAR] "
                "[--write] | list [--json] | remove HOST [--workdir DIR]",
    .summary = "sign-ins the sidecar adds for hosts you name; the box holds only a placeholder",
    .more = "add reads the secret from standard input (unechoed from a terminal), never from\n"
            "argv, and keeps it in $CONCH_HOME/workplaces.secrets.json (0600). Each sealed run\n"
            "sets CONCH_SIGNIN_VAR in the box to a random placeholder; the sidecar puts the\n"
            "secret in the header for requests to HOST under PREFIX alone, fetching ones unless\n"
            "--write. The placeholder anywhere else is refused. HOST joins the box's list.\n",
    .options = options,
    .handler = sign_ins_handler,
    .failure_status = 1,
    .words = {"add list remove", NULL},
};
