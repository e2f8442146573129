/* Unit tests for the sidecar's sign-ins: the message's parser (good, each bad shape, past the
 * bounds), the longest-prefix match and the decoding it shares with the method table, which
 * requests may carry one (reading only, on write hosts too), the signed head (the box's
 * Authorization gone) and the channel's framing (a line replaces, a bad one keeps, an
 * overlong one is dropped to its newline). No value of an authorization may reach an error
 * or a log line. */
#include "config.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "egress/sign-ins/sign-ins-door.h"
#include "egress/sign-ins/sign-ins-feed.h"
#include "egress/sign-ins/sign-ins-table.h"
#include "src/base/util.h"

#define TOKEN "Bearer SECRET-t0ken"

static struct cp_egress_sign_ins *parse_ok(const char *msg)
{
    struct cp_egress_sign_ins *t = NULL;
    cleanup_error cp_error_t err = NULL;
    int rc = cp_egress_sign_ins_parse(msg, strlen(msg), &t, &err);
    if (rc < 0)
        fail_msg("refused: %s", err->msg);
    assert_non_null(t);
    return t;
}

/* Refused, with an error that never shows a value. */
static void parse_bad(const char *msg, size_t len)
{
    struct cp_egress_sign_ins *t = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_egress_sign_ins_parse(msg, len, &t, &err) == 0)
        fail_msg("taken: %.200s", msg);
    assert_null(t);
    assert_non_null(err);
    assert_null(strstr(err->msg, "SECRET"));
}

static char *entry(const char *host, const char *prefix, const char *auth, const char *source)
{
    return xasprintf("{\"host\":\"%s\",\"prefix\":\"%s\",\"authorization\":\"%s\","
                     "\"source\":\"%s\"}",
                     host, prefix, auth, source);
}

static char *message1(const char *host, const char *prefix, const char *auth, const char *source)
{
    cleanup_free char *e = entry(host, prefix, auth, source);
    return xasprintf("{\"sign_ins\":[%s]}", e);
}

static void bad1(const char *host, const char *prefix, const char *auth, const char *source)
{
    cleanup_free char *m = message1(host, prefix, auth, source);
    parse_bad(m, strlen(m));
}

static void test_egress_sign_ins__good_message__taken(void **state)
{
    struct cp_egress_sign_ins *t =
        parse_ok("{\"sign_ins\":[{\"host\":\"npm.corp.example\",\"prefix\":\"/npm/\","
                 "\"authorization\":\"Bearer abc\",\"source\":\"~/.npmrc\"},"
                 "{\"host\":\"git.corp.example\",\"prefix\":\"/\",\"authorization\":\"Basic "
                 "dXNlcjpwYXNz\",\"source\":\"git credential (helper)\"}]}\r");
    assert_int_equal(cp_egress_sign_ins_count(t), 2);
    cp_egress_sign_ins_unref(t);
    t = parse_ok(" {\"sign_ins\":[]} ");
    assert_int_equal(cp_egress_sign_ins_count(t), 0);
    cp_egress_sign_ins_unref(t);
}

/* The sender's id comes back on standard output; anything but hex digits is refused. */
static void test_egress_sign_ins__id__kept_or_refused(void **state)
{
    struct cp_egress_sign_ins *t = parse_ok("{\"id\":\"0a1b2c\",\"sign_ins\":[]}");
    assert_string_equal(cp_egress_sign_ins_id(t), "0a1b2c");
    cp_egress_sign_ins_unref(t);
    t = parse_ok("{\"sign_ins\":[]}");
    assert_string_equal(cp_egress_sign_ins_id(t), "");
    cp_egress_sign_ins_unref(t);
    static const char *bad[] = {
        "{\"id\":\"\",\"sign_ins\":[]}",
        "{\"id\":\"0A\",\"sign_ins\":[]}",
        "{\"id\":\"ab\\n\",\"sign_ins\":[]}",
        "{\"id\":7,\"sign_ins\":[]}",
        "{\"id\":\"ab\",\"sign_ins\":[],\"more\":1}",
        "{\"id\":\"ab\"}",
        ("{\"id\":\"00000000000000000000000000000000000000000000000000000000000000000\","
         "\"sign_ins\":[]}"),
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        parse_bad(bad[i], strlen(bad[i]));
}

static void test_egress_sign_ins__bad_shapes__refused_whole(void **state)
{
    static const char *bad[] = {
        "",
        "not json",
        "{\"sign_ins\":[]} {}",
        "[]",
        "{\"sign_ins\":{}}",
        "{\"sign_ins\":[],\"more\":1}",
        "{\"signins\":[]}",
        "{\"sign_ins\":[\"x\"]}",
        "{\"sign_ins\":[{\"host\":\"a.example\",\"prefix\":\"/\",\"authorization\":\"Bearer "
        "SECRET\"}]}",
        "{\"sign_ins\":[{\"host\":\"a.example\",\"prefix\":\"/\",\"authorization\":\"Bearer "
        "SECRET\",\"source\":\"f\",\"extra\":\"x\"}]}",
        "{\"sign_ins\":[{\"host\":\"a.example\",\"prefix\":\"/\",\"authorization\":7,"
        "\"source\":\"f\"}]}",
        "{\"sign_ins\":[{\"host\":\"a.example\",\"prefix\":\"/\",\"authorization\":\"Bearer "
        "SECRET\",\"source\":\"f\"},{\"host\":\"a.example\",\"prefix\":\"/\","
        "\"authorization\":\"Bearer SECRET2\",\"source\":\"g\"}]}",
        "{\"sign_ins\":[[[[[[[[[[]]]]]]]]]]}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        parse_bad(bad[i], strlen(bad[i]));
    /* A good document cut short, and one with a NUL inside the line. */
    const char *good = "{\"sign_ins\":[]}";
    parse_bad(good, strlen(good) - 1);
    parse_bad("{\"sign_ins\":[]}\0x", 17);
}

static void test_egress_sign_ins__bad_fields__refused(void **state)
{
    bad1("NPM.example", "/", TOKEN, "f");        /* upper case */
    bad1("a example", "/", TOKEN, "f");          /* a space */
    bad1(".a.example", "/", TOKEN, "f");         /* a leading dot */
    bad1("a..example", "/", TOKEN, "f");         /* an empty label */
    bad1("", "/", TOKEN, "f");                   /* none */
    bad1("a.example", "npm/", TOKEN, "f");       /* no leading '/' */
    bad1("a.example", "", TOKEN, "f");           /* none */
    bad1("a.example", "/npm/?x", TOKEN, "f");    /* a query */
    bad1("a.example", "/%6epm/", TOKEN, "f");    /* not in the decoded form */
    bad1("a.example", "/a%00b/", TOKEN, "f");    /* an escaped NUL */
    bad1("a.example", "/a/..%2Fb/", TOKEN, "f"); /* a '..' an escaped '/' would make */
    bad1("a.example", "/a/../b/", TOKEN, "f");   /* a dot segment */
    bad1("a.example", "/a\\\\b/", TOKEN, "f");   /* a backslash */
    bad1("a.example", "/", "Bearer SECRET\\r\\nX-Evil: 1", "f"); /* CR LF */
    bad1("a.example", "/", "Bearer SECRET\\u0000", "f");         /* a NUL */
    bad1("a.example", "/", "Token SECRET", "f");                 /* another scheme */
    bad1("a.example", "/", "Bearer ", "f");                      /* no credential */
    bad1("a.example", "/", "Bearer SEC RET", "f");               /* a space inside */
    bad1("a.example", "/", "Bearer SECRET\\u00e9", "f");         /* not ASCII */
    bad1("a.example", "/", TOKEN, "");                           /* no source */
    bad1("a.example", "/", TOKEN, "line\\nbreak");               /* LF in the source */
    bad1("a.example", "/", TOKEN, "caf\\u00e9");                 /* not ASCII */
}

static void test_egress_sign_ins__past_bounds__refused(void **state)
{
    /* An authorization of CP_EGRESS_SIGN_IN_AUTH_MAX + 1 bytes. */
    cleanup_free char *big = xmalloc(CP_EGRESS_SIGN_IN_AUTH_MAX + 2);
    memcpy(big, "Bearer ", 7);
    memset(big + 7, 'S', CP_EGRESS_SIGN_IN_AUTH_MAX - 6);
    big[CP_EGRESS_SIGN_IN_AUTH_MAX + 1] = '\0';
    bad1("a.example", "/", big, "f");
    big[CP_EGRESS_SIGN_IN_AUTH_MAX] = '\0';
    cleanup_free char *fits = message1("a.example", "/", big, "f");
    cp_egress_sign_ins_unref(parse_ok(fits));
    /* CP_EGRESS_SIGN_INS_MAX + 1 entries. */
    size_t n = CP_EGRESS_SIGN_INS_MAX + 1, cap = n * 128 + 64, len = 0;
    cleanup_free char *many = xmalloc(cap);
    len += (size_t)snprintf(many, cap, "{\"sign_ins\":[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(many + len, cap - len,
                                "%s{\"host\":\"h%zu.example\",\"prefix\":\"/\",\"authorization\":"
                                "\"Bearer SECRET\",\"source\":\"f\"}",
                                i ? "," : "", i);
    snprintf(many + len, cap - len, "]}");
    parse_bad(many, strlen(many));
    /* A message past 1 MiB, however well-formed. */
    cleanup_free char *huge = xmalloc(CP_EGRESS_SIGN_INS_MESSAGE_MAX + 64);
    memset(huge, ' ', CP_EGRESS_SIGN_INS_MESSAGE_MAX + 64);
    memcpy(huge, "{\"sign_ins\":[]}", 15);
    parse_bad(huge, CP_EGRESS_SIGN_INS_MESSAGE_MAX + 1);
}

static struct cp_egress_sign_ins *table3(void)
{
    return parse_ok("{\"sign_ins\":["
                    "{\"host\":\"reg.example\",\"prefix\":\"/\",\"authorization\":\"Bearer "
                    "root\",\"source\":\"root\"},"
                    "{\"host\":\"reg.example\",\"prefix\":\"/npm/\",\"authorization\":\"Bearer "
                    "npm\",\"source\":\"npm\"},"
                    "{\"host\":\"reg.example\",\"prefix\":\"/npm/private\",\"authorization\":"
                    "\"Bearer priv\",\"source\":\"priv\"},"
                    "{\"host\":\"git.example\",\"prefix\":\"/team/\",\"authorization\":\"Basic "
                    "dDpw\",\"source\":\"git\"}]}");
}

static const char *matched(const struct cp_egress_sign_ins *t, const char *host, const char *target)
{
    const struct cp_egress_sign_in *s = cp_egress_sign_ins_match(t, host, target);
    return s != NULL ? s->source : "none";
}

static void test_egress_sign_ins__match__longest_prefix_wins(void **state)
{
    struct cp_egress_sign_ins *t = table3();
    assert_string_equal(matched(t, "reg.example", "/x"), "root");
    assert_string_equal(matched(t, "reg.example", "/npm/lodash"), "npm");
    assert_string_equal(matched(t, "reg.example", "/npm/private"), "priv");
    assert_string_equal(matched(t, "reg.example", "/npm/private/a.tgz"), "priv");
    /* A prefix without a trailing '/' is a folder, not a string start. */
    assert_string_equal(matched(t, "reg.example", "/npm/privateer"), "npm");
    /* The query is not the path. */
    assert_string_equal(matched(t, "git.example", "/other?/team/"), "none");
    assert_string_equal(matched(t, "git.example", "/team/r.git/info/refs?service=x"), "git");
    cp_egress_sign_ins_unref(t);
}

static void test_egress_sign_ins__match__other_host_none(void **state)
{
    struct cp_egress_sign_ins *t = table3();
    assert_string_equal(matched(t, "other.example", "/npm/x"), "none");
    assert_string_equal(matched(t, "reg.example.evil", "/npm/x"), "none");
    assert_string_equal(matched(t, "sub.reg.example", "/npm/x"), "none");
    assert_string_equal(matched(t, "git.example", "/teams/x"), "none");
    assert_null(cp_egress_sign_ins_match(NULL, "reg.example", "/"));
    /* Path parameters: "..;" is ".." to some hosts, so "/team/..;/admin" is outside the prefix
     * there; escaped, the same. */
    assert_string_equal(matched(t, "git.example", "/team/..;/admin"), "none");
    assert_string_equal(matched(t, "git.example", "/team/..%3b/admin"), "none");
    assert_string_equal(matched(t, "git.example", "/team/a;b"), "none");
    cp_egress_sign_ins_unref(t);
}

static void test_egress_sign_ins__match__decoding_never_widens(void **state)
{
    struct cp_egress_sign_ins *t = table3();
    /* Escaped unreserved characters mean the same path: the same entry. */
    assert_string_equal(matched(t, "git.example", "/t%65am/r.git"), "git");
    /* Shapes the method table refuses carry nothing, whatever they would resolve to. */
    assert_string_equal(matched(t, "git.example", "/other/../team/r.git"), "none");
    assert_string_equal(matched(t, "git.example", "/team/../other"), "none");
    assert_string_equal(matched(t, "git.example", "/team%2F..%2Fother"), "none");
    assert_string_equal(matched(t, "git.example", "/team/%2e%2e/other"), "none");
    assert_string_equal(matched(t, "git.example", "/team\\..\\other"), "none");
    assert_string_equal(matched(t, "git.example", "/team/%00"), "none");
    assert_string_equal(matched(t, "git.example", "/team/x%"), "none");
    /* An escaped '/' is fetched (npm's "/@scope%2fname") but never a separator: under the
     * prefix it matches, and it cannot make a path reach under a prefix it is not under. */
    assert_string_equal(matched(t, "git.example", "/team/@corp%2fpkg"), "git");
    assert_string_equal(matched(t, "git.example", "/team%2fr.git"), "none");
    cp_egress_sign_ins_unref(t);
}

static void test_egress_sign_ins__write_host_rule__reading_only(void **state)
{
    assert_true(cp_egress_sign_ins_may_carry("GET", "/pkg", NULL, 0));
    assert_true(cp_egress_sign_ins_may_carry("HEAD", "/pkg", NULL, 0));
    assert_true(cp_egress_sign_ins_may_carry("POST", "/o/r.git/git-upload-pack", NULL, 0));
    assert_true(
        cp_egress_sign_ins_may_carry("POST", "/-/npm/v1/security/advisories/bulk", NULL, 0));
    assert_false(cp_egress_sign_ins_may_carry("PUT", "/pkg", NULL, 0));
    assert_false(cp_egress_sign_ins_may_carry("DELETE", "/pkg", NULL, 0));
    assert_false(cp_egress_sign_ins_may_carry("PATCH", "/pkg", NULL, 0));
    assert_false(cp_egress_sign_ins_may_carry("POST", "/o/r.git/git-receive-pack", NULL, 0));
    assert_false(cp_egress_sign_ins_may_carry("POST", "/legacy", NULL, 0));
    assert_false(cp_egress_sign_ins_may_carry("GET", "/o/r.git/info/refs?service=git-receive-pack",
                                              NULL, 0));
    const char *down = "{\"operation\":\"download\",\"objects\":[]}";
    const char *up = "{\"operation\":\"upload\",\"objects\":[]}";
    const char *lfs = "/o/r.git/info/lfs/objects/batch";
    assert_true(cp_egress_sign_ins_may_carry("POST", lfs, down, strlen(down)));
    assert_false(cp_egress_sign_ins_may_carry("POST", lfs, up, strlen(up)));
    assert_false(cp_egress_sign_ins_may_carry("POST", lfs, NULL, 0)); /* a body not read */
}

static void test_egress_sign_ins__head__box_authorization_replaced(void **state)
{
    struct cp_egress_sign_ins *t = table3();
    const struct cp_egress_sign_in *s = cp_egress_sign_ins_match(t, "reg.example", "/npm/x");
    const char *head = "GET /npm/x HTTP/1.1\r\nHost: reg.example\r\nAuthorization: Bearer box\r\n"
                       "Accept: */*\r\nauthorization: Basic Ym94\r\nX-Authorization: keep\r\n\r\n";
    size_t n = 0;
    char *out = cp_egress_sign_ins_head(s, head, strlen(head), &n);
    const char *want = "GET /npm/x HTTP/1.1\r\nHost: reg.example\r\nAccept: */*\r\n"
                       "X-Authorization: keep\r\nAuthorization: Bearer npm\r\n\r\n";
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
    cp_egress_sign_ins_head_free(out, n);
    /* A head without one gets ours; a request line is never taken for a header. */
    head = "AUTHORIZATION: / HTTP/1.1\r\nHost: reg.example\r\n\r\n";
    out = cp_egress_sign_ins_head(s, head, strlen(head), &n);
    want = "AUTHORIZATION: / HTTP/1.1\r\nHost: reg.example\r\nAuthorization: Bearer npm\r\n\r\n";
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
    cp_egress_sign_ins_head_free(out, n);
    cp_egress_sign_ins_unref(t);
}

/* The signed head of head is exactly want. */
static void head_is(const struct cp_egress_sign_in *s, const char *head, const char *want)
{
    size_t n = 0;
    char *out = cp_egress_sign_ins_head(s, head, strlen(head), &n);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
    cp_egress_sign_ins_head_free(out, n);
}

/* A named sign-in: its header replaced (added when absent) on its host and path, the box's
 * Authorization kept; its placeholder anywhere else, or on a request it does not carry, is
 * misplaced; a body holding it is found; a named entry without its placeholder is refused. */
static void test_egress_sign_ins__named__header_and_placeholder_rules(void **state)
{
    (void)state;
    const char *msg = "{\"sign_ins\":[{\"host\":\"api.example\",\"prefix\":\"/v1/\","
                      "\"authorization\":\"SECRET-key\",\"source\":\"sign-ins add api.example\","
                      "\"header\":\"X-Api-Key\",\"placeholder\":\"conch-ph-0123456789abcdef\"}]}";
    struct cp_egress_sign_ins *t = parse_ok(msg);
    const struct cp_egress_sign_in *s = cp_egress_sign_ins_match(t, "api.example", "/v1/x");
    assert_non_null(s);
    assert_false(cp_egress_sign_ins_carries(s, false));
    assert_true(cp_egress_sign_ins_carries(s, true));
    const char *head = "GET /v1/x HTTP/1.1\r\nHost: api.example\r\n"
                       "x-api-key: conch-ph-0123456789abcdef\r\nAuthorization: Bearer box\r\n\r\n";
    assert_null(cp_egress_sign_ins_misplaced(t, head, strlen(head), s));
    assert_ptr_equal(cp_egress_sign_ins_misplaced(t, head, strlen(head), NULL), s);
    head_is(s, head,
            "GET /v1/x HTTP/1.1\r\nHost: api.example\r\nAuthorization: Bearer box\r\n"
            "X-Api-Key: SECRET-key\r\n\r\n");
    const char *query = "GET /v1/x?k=CONCH-PH-0123456789ABCDEF HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_ptr_equal(cp_egress_sign_ins_misplaced(t, query, strlen(query), s), s);
    const char *other = "GET /v1/x HTTP/1.1\r\nX-Other: conch-ph-0123456789abcdef\r\n\r\n";
    assert_ptr_equal(cp_egress_sign_ins_misplaced(t, other, strlen(other), s), s);
    const char *body = "{\"k\":\"conch-ph-0123456789abcdef\"}";
    assert_ptr_equal(cp_egress_sign_ins_find_placeholder(t, body, strlen(body)), s);
    assert_null(cp_egress_sign_ins_find_placeholder(t, "{}", 2));
    cp_egress_sign_ins_unref(t);
    const char *half = "{\"sign_ins\":[{\"host\":\"api.example\",\"prefix\":\"/\","
                       "\"authorization\":\"SECRET-key\",\"source\":\"s\",\"header\":\"X-K\"}]}";
    parse_bad(half, strlen(half));
}

static void test_egress_sign_ins__holder__replaced_and_kept_by_reference(void **state)
{
    struct cp_egress_sign_ins_holder h;
    cp_egress_sign_ins_holder_init(&h);
    assert_null(cp_egress_sign_ins_holder_get(&h));
    cp_egress_sign_ins_holder_set(&h, table3());
    struct cp_egress_sign_ins *mine = cp_egress_sign_ins_holder_get(&h);
    cp_egress_sign_ins_holder_set(&h, parse_ok("{\"sign_ins\":[]}"));
    /* A request that took the old table still reads it whole. */
    assert_string_equal(matched(mine, "reg.example", "/npm/x"), "npm");
    cp_egress_sign_ins_unref(mine);
    struct cp_egress_sign_ins *now = cp_egress_sign_ins_holder_get(&h);
    assert_int_equal(cp_egress_sign_ins_count(now), 0);
    cp_egress_sign_ins_unref(now);
    cp_egress_sign_ins_holder_dispose(&h);
}

/* ---- the channel ---- */

struct feed_fixture {
    struct cp_egress_sign_ins_holder h;
    struct cp_egress_sign_ins_feed f;
    char *log;
    size_t log_len;
    FILE *logf;
};

static int feed_setup(void **state)
{
    struct feed_fixture *x = xcalloc(1, sizeof(*x));
    cp_egress_sign_ins_holder_init(&x->h);
    x->logf = open_memstream(&x->log, &x->log_len);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_egress_sign_ins_feed_init(&x->f, -1, &x->h, x->logf, &err), 0);
    *state = x;
    return 0;
}

static int feed_teardown(void **state)
{
    struct feed_fixture *x = *state;
    cp_egress_sign_ins_feed_dispose(&x->f);
    cp_egress_sign_ins_holder_dispose(&x->h);
    fclose(x->logf);
    free(x->log);
    free(x);
    return 0;
}

static size_t feed_count(struct feed_fixture *x)
{
    struct cp_egress_sign_ins *t = cp_egress_sign_ins_holder_get(&x->h);
    size_t n = t != NULL ? cp_egress_sign_ins_count(t) : 99;
    cp_egress_sign_ins_unref(t);
    return n;
}

static void feed(struct feed_fixture *x, const char *s)
{
    cp_egress_sign_ins_feed_bytes(&x->f, s, strlen(s));
    fflush(x->logf);
}

static void test_feed__lines__replace_keep_clear(void **state)
{
    struct feed_fixture *x = *state;
    cleanup_free char *one = message1("a.example", "/", "Bearer SECRET1", "f");
    feed(x, one);
    assert_int_equal(feed_count(x), 99); /* no newline yet: nothing taken */
    feed(x, "\n");
    assert_int_equal(feed_count(x), 1);
    feed(x, "{\"sign_ins\":[{\"host\":\"BAD\"}]}\n"); /* refused: the table stays */
    assert_int_equal(feed_count(x), 1);
    feed(x, "{\"sign_ins\":[]}\n{\"sign_ins\":"); /* cleared, then half a message */
    assert_int_equal(feed_count(x), 0);
    feed(x, "[]}\n");
    assert_int_equal(feed_count(x), 0);
    assert_non_null(strstr(x->log, "\"reason\":\"sign-ins-taken\""));
    assert_non_null(strstr(x->log, "\"reason\":\"sign-ins\""));
    assert_null(strstr(x->log, "SECRET"));
}

static void test_feed__overlong__dropped_to_newline(void **state)
{
    struct feed_fixture *x = *state;
    cleanup_free char *one = message1("a.example", "/", "Bearer SECRET1", "f");
    feed(x, one);
    feed(x, "\n");
    size_t n = CP_EGRESS_SIGN_INS_MESSAGE_MAX + 10;
    cleanup_free char *big = xmalloc(n + 1);
    memset(big, 'S', n);
    big[n] = '\0';
    feed(x, "{\"sign_ins\":[]}");
    feed(x, big); /* past the bound: dropped, with what came before it on the line */
    assert_int_equal(feed_count(x), 1);
    feed(x, "\n{\"sign_ins\":[]}\n");
    assert_int_equal(feed_count(x), 0); /* the next line is read again */
    assert_non_null(strstr(x->log, "past 1 MiB"));
    assert_null(strstr(x->log, "SSSS"));
}

/* The second door, in a network namespace of its own (abstract names are per namespace, so a
 * proxy running beside the test cannot answer instead): the answer comes back on the sender's
 * side, the table is the message's, and a bad message gets no answer and keeps the table. */
static void test_door__message__taken_and_answered(void **state)
{
    if (unshare(CLONE_NEWNET) != 0)
        skip(); /* not root: the door is also checked end to end by egress-tls.test */
    static struct cp_egress_sign_ins_holder
        h; /* the door's thread keeps it for the process's life */
    cp_egress_sign_ins_holder_init(&h);
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_egress_sign_ins_door_open(&h, NULL, &err), 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    cleanup_free char *m = message1("a.example", "/", TOKEN, "f");
    cleanup_free char *line = xasprintf("{\"id\":\"c0ffee\",%s\n", m + 1);
    assert_int_equal(cp_egress_sign_ins_door_send(line, strlen(line), p[1], &err), 0);
    char got[64] = {0};
    assert_true(read(p[0], got, sizeof(got) - 1) > 0);
    assert_string_equal(got, "sign-ins c0ffee 1\n");
    struct cp_egress_sign_ins *t = cp_egress_sign_ins_holder_get(&h);
    assert_int_equal(cp_egress_sign_ins_count(t), 1);
    cp_egress_sign_ins_unref(t);
    cleanup_error cp_error_t bad = NULL;
    assert_true(cp_egress_sign_ins_door_send("junk\n", 5, p[1], &bad) < 0);
    /* Another user of the namespace gets no answer and changes nothing. */
    pid_t kid = fork();
    if (kid == 0) {
        cp_error_t kerr = NULL;
        signal(SIGPIPE, SIG_IGN); /* the door hangs up on a stranger at once */
        _exit(setuid(65534) == 0 && cp_egress_sign_ins_door_send(
                                        "{\"id\":\"ab\",\"sign_ins\":[]}\n", 27, p[1], &kerr) < 0
                  ? 0
                  : 1);
    }
    int status = -1;
    waitpid(kid, &status, 0);
    assert_int_equal(status, 0);
    t = cp_egress_sign_ins_holder_get(&h);
    assert_int_equal(cp_egress_sign_ins_count(t), 1);
    cp_egress_sign_ins_unref(t);
    close(p[0]);
    close(p[1]);
    cp_egress_sign_ins_holder_set(&h, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_sign_ins__good_message__taken),
        cmocka_unit_test(test_egress_sign_ins__bad_shapes__refused_whole),
        cmocka_unit_test(test_egress_sign_ins__id__kept_or_refused),
        cmocka_unit_test(test_egress_sign_ins__bad_fields__refused),
        cmocka_unit_test(test_egress_sign_ins__past_bounds__refused),
        cmocka_unit_test(test_egress_sign_ins__match__longest_prefix_wins),
        cmocka_unit_test(test_egress_sign_ins__match__other_host_none),
        cmocka_unit_test(test_egress_sign_ins__match__decoding_never_widens),
        cmocka_unit_test(test_egress_sign_ins__write_host_rule__reading_only),
        cmocka_unit_test(test_egress_sign_ins__head__box_authorization_replaced),
        cmocka_unit_test(test_egress_sign_ins__named__header_and_placeholder_rules),
        cmocka_unit_test(test_egress_sign_ins__holder__replaced_and_kept_by_reference),
        cmocka_unit_test_setup_teardown(test_feed__lines__replace_keep_clear, feed_setup,
                                        feed_teardown),
        cmocka_unit_test_setup_teardown(test_feed__overlong__dropped_to_newline, feed_setup,
                                        feed_teardown),
        cmocka_unit_test(test_door__message__taken_and_answered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
