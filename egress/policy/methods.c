/* The method rules of a read-only host (methods.h).
 *
 * Paths are matched after one normalisation, not as sent: the query is cut at the first '?';
 * percent-escapes of unreserved characters (letters, digits, "-._~") are decoded, as RFC 3986
 * 6.2.2.2 says they mean the same; every other escape stays as sent, an escaped '/' or '\' too:
 * npm names a scoped package "/@scope%2fname", so such a path is fetched, but it is never a
 * separator to a rule or a sign-in's prefix, which can only make a match stricter. A target is
 * refused outright when it holds what a server might read as another place than ours: an escaped
 * NUL, a malformed escape, a '\', or a "." or ".." segment, also one that an escaped '/' or '\'
 * would make ("/npm/..%2fother", which a server may decode to "/other"). So "/info/%72efs" is
 * matched as "/info/refs", and "/x/%2e%2e/git-receive-pack" never is matched at all. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "egress/policy/methods.h"
#include "src/base/json.h"
#include "src/base/util.h"

#define PATH_MAX_LEN 8192

enum match {
    ANY_PATH,      /* every path */
    SUFFIX,        /* the path ends with the row's text */
    NAMES_RECEIVE, /* the path or query names git-receive-pack, in any case */
};

struct row {
    bool allow;
    const char *methods; /* space-separated, each between spaces */
    enum match match;
    const char *text;
    bool (*body_ok)(const char *body, size_t len);
    const char *why;
};

static bool lfs_download(const char *body, size_t len);

/* First match wins. */
static const struct row rows[] = {
    /* A push begins with GET .../info/refs?service=git-receive-pack: refusing it makes the
     * push fail before it has sent a byte of the pack. */
    {false, " GET HEAD ", NAMES_RECEIVE, NULL, NULL, "the first step of a git push"},
    /* Fetching is reading: every GET and HEAD. */
    {true, " GET ", ANY_PATH, NULL, NULL, "GET fetches"},
    {true, " HEAD ", ANY_PATH, NULL, NULL, "HEAD fetches"},
    /* git smart HTTP fetch (clone, fetch, pull) posts its wants to git-upload-pack. */
    {true, " POST ", SUFFIX, "/git-upload-pack", NULL, "git fetch"},
    /* git LFS asks for downloads and uploads at one endpoint; only a download batch passes
     * (the upload itself would then go elsewhere with PUT, refused anyway). */
    {true, " POST ", SUFFIX, "/info/lfs/objects/batch", lfs_download, "git LFS download"},
    /* npm audit posts the dependency tree and gets advisories back (npm 6 full, quick, and
     * npm 7+ bulk); a registry may sit under a path prefix. */
    {true, " POST ", SUFFIX, "/-/npm/v1/security/audits", NULL, "npm audit"},
    {true, " POST ", SUFFIX, "/-/npm/v1/security/audits/quick", NULL, "npm audit (quick)"},
    {true, " POST ", SUFFIX, "/-/npm/v1/security/advisories/bulk", NULL, "npm audit (bulk)"},
    /* Everything else (git-receive-pack, npm publish's PUT, POST, PATCH, DELETE, OPTIONS...)
     * falls through to a refusal. */
};

static int dropped = -1;

size_t cp_egress_methods_rows(void)
{
    return ARRAY_SIZE(rows);
}

void cp_egress_methods_drop_row(int row)
{
    dropped = row;
}

static bool lfs_download(const char *body, size_t len)
{
    cleanup_json json_object *o = NULL;
    if (cp_json_parse(body, len, "LFS batch", &o, NULL) < 0)
        return false;
    const char *op = cp_json_str(o, "operation");
    return op != NULL && strcmp(op, "download") == 0;
}

static bool unreserved(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

/* Decodes in[0..n) into out (at least n+1 bytes) by the rule above; -1 to refuse. */
static int decode(const char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '\\')
            return -1;
        if (in[i] != '%') {
            out[o++] = in[i];
            continue;
        }
        if (i + 2 >= n)
            return -1; /* a '%' without two digits after it */
        int a = cp_hex_value(in[i + 1]), b = a < 0 ? -1 : cp_hex_value(in[i + 2]);
        int c = a * 16 + b;
        if (a < 0 || b < 0 || c == 0)
            return -1;
        if (unreserved(c)) {
            out[o++] = (char)c;
        } else {
            memcpy(out + o, in + i, 3);
            o += 3;
        }
        i += 2;
    }
    out[o] = '\0';
    return 0;
}

/* Whether path holds a separator here: '/', or an escaped '/' or '\' a server may decode. */
static size_t separator(const char *p)
{
    if (*p == '/')
        return 1;
    if (p[0] == '%' && p[1] != '\0' &&
        (strncasecmp(p, "%2f", 3) == 0 || strncasecmp(p, "%5c", 3) == 0))
        return 3;
    return 0;
}

/* A "." or ".." segment anywhere in the decoded path, escaped separators counted. */
static bool dot_segment(const char *path)
{
    size_t dots = 0;
    bool start = false;
    for (const char *p = path;; p++) {
        size_t sep = *p == '\0' ? 1 : separator(p);
        if (sep > 0) {
            if (start && (dots == 1 || dots == 2))
                return true;
            if (*p == '\0')
                return false;
            start = true;
            dots = 0;
            p += sep - 1;
        } else if (*p == '.' && start) {
            dots++;
        } else {
            start = false;
        }
    }
}

static bool method_listed(const char *methods, const char *method)
{
    char word[40];
    snprintf(word, sizeof(word), " %s ", method);
    return strlen(method) < 32 && strstr(methods, word) != NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool row_matches(const struct row *r, const char *method, const char *path,
                        const char *query)
{
    if (!method_listed(r->methods, method))
        return false;
    switch (r->match) {
    case ANY_PATH:
        return true;
    case SUFFIX:
        return ends_with(path, r->text);
    case NAMES_RECEIVE:
        return strcasestr(path, "git-receive-pack") != NULL ||
               strcasestr(query, "git-receive-pack") != NULL;
    }
    return false;
}

static struct cp_egress_rule_result result(enum cp_egress_rule_verdict v, int row, const char *why)
{
    return (struct cp_egress_rule_result){v, row, why};
}

int cp_egress_methods_path(const char *target, char *out, size_t size)
{
    size_t cut = strcspn(target, "?");
    /* decode() writes at most the input's length and a NUL */
    if (cut >= size || decode(target, cut, out) < 0 || dot_segment(out))
        return -1;
    return 0;
}

struct cp_egress_rule_result cp_egress_methods_judge(const char *method, const char *target)
{
    size_t n = strlen(target), cut = strcspn(target, "?");
    if (n > PATH_MAX_LEN)
        return result(CP_RULE_REFUSE, -1, "the target is too long");
    char path[PATH_MAX_LEN + 1], query[PATH_MAX_LEN + 1];
    if (cp_egress_methods_path(target, path, sizeof(path)) < 0)
        return result(CP_RULE_REFUSE, -1,
                      "the path holds an escaped NUL, a '\\', or a '.' or '..' segment");
    if (decode(target + cut, n - cut, query) < 0)
        return result(CP_RULE_REFUSE, -1, "the query holds an escaped NUL or a bad escape");
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        if ((int)i == dropped || !row_matches(&rows[i], method, path, query))
            continue;
        if (!rows[i].allow)
            return result(CP_RULE_REFUSE, (int)i, rows[i].why);
        return result(rows[i].body_ok ? CP_RULE_BODY : CP_RULE_ALLOW, (int)i, rows[i].why);
    }
    return result(CP_RULE_REFUSE, -1, "no fetching rule takes this method and path");
}

bool cp_egress_methods_body_ok(int row, const char *body, size_t len)
{
    if (row < 0 || (size_t)row >= ARRAY_SIZE(rows) || rows[row].body_ok == NULL)
        return false;
    return len <= CP_EGRESS_BODY_RULE_MAX && rows[row].body_ok(body, len);
}
