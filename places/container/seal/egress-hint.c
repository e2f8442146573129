/* The refusal hint. A refused host looks like a flaky network from inside the box, so after a
 * sealed command fails, the sidecar's log is read for its box and the person is told what was
 * refused and the ways on that can work, never one that cannot: an entry on the list allows
 * a name and nothing else (an address, a port or plain HTTP is refused whatever the list). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "places/container/allow/allow.h"
#include "places/container/seal/egress-hint.h"
#include "places/container/seal/sidecar.h"
#include "egress/egress.h"
#include "src/base/buf.h"
#include "src/base/http.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define HINT_LOG_MAX  (8 * 1024 * 1024)
#define REFUSALS_MAX  64
#define HINT_TEXT_MAX (64 * 1024)

static bool same(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool seen(const struct cp_egress_refusal *v, size_t n, const char *target,
                 const char *reason, const char *method, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].target, target) == 0 && strcmp(v[i].reason, reason) == 0 &&
            same(v[i].method, method) && same(v[i].path, path))
            return true;
    return false;
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? xstrdup(s) : NULL;
}

/* Refusals, and the failures whose way on is the person's: a far side's certificate that did
 * not verify (egress.ca_file), a sign-in the far side refused (the file to renew it in). */
static bool told(const char *verdict, const char *reason)
{
    return strcmp(verdict, "refused") == 0 ||
           (strcmp(verdict, "failed") == 0 &&
            (strcmp(reason, "upstream-cert") == 0 || strcmp(reason, "sign-in-refused") == 0));
}

static void take(const char *line, size_t len, const char *box, struct cp_egress_refusal **v,
                 size_t *n)
{
    cleanup_json json_object *o = cp_egress_log_object(line, len);
    if (o == NULL)
        return;
    const char *b = cp_json_str(o, "box"), *verdict = cp_json_str(o, "verdict");
    const char *target = cp_json_str(o, "host"), *reason = cp_json_str(o, "reason");
    const char *method = cp_json_str(o, "method"), *path = cp_json_str(o, "path");
    if (b == NULL || verdict == NULL || target == NULL || target[0] == '\0' || reason == NULL ||
        strcmp(b, box) != 0 || !told(verdict, reason) || seen(*v, *n, target, reason, method, path))
        return;
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[*n] = (struct cp_egress_refusal){xstrdup(target), xstrdup(reason), dup_or_null(method),
                                          dup_or_null(path), dup_or_null(cp_json_str(o, "source"))};
    (*n)++;
}

size_t cp_egress_refusals(const char *text, size_t len, const char *box,
                          struct cp_egress_refusal **out)
{
    size_t n = 0;
    *out = NULL;
    for (size_t start = 0; start < len && n < REFUSALS_MAX;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        take(text + start, end - start, box, out, &n);
        start = end + 1;
    }
    return n;
}

void cp_egress_refusals_free(struct cp_egress_refusal *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].target);
        free(v[i].reason);
        free(v[i].method);
        free(v[i].path);
        free(v[i].source);
    }
    free(v);
}

/* Only a well-formed name refused for not being listed can be allowed by an entry. */
static bool entry_allows(const struct cp_egress_refusal *r)
{
    return strcmp(r->reason, "not-listed") == 0;
}

static bool is_failure(const struct cp_egress_refusal *r)
{
    return strcmp(r->reason, "sign-in-refused") == 0 || strcmp(r->reason, "upstream-cert") == 0;
}

/* An upload to a listed host: a --write entry lets it go. */
static bool write_allows(const struct cp_egress_refusal *r)
{
    return strcmp(r->reason, "method") == 0;
}

static const char *why_of(const char *slug)
{
    int reason = cp_egress_reason_from_slug(slug);
    return reason < 0 ? slug : cp_egress_reason_info((enum cp_egress_reason)reason)->sentence;
}

static void add(struct cp_buf *b, const char *s)
{
    (void)cp_buf_append(b, s, strlen(s));
}

static void refused_list(struct cp_buf *b, const struct cp_egress_refusal *v, size_t n)
{
    add(b, "the sealed box's egress sidecar refused: ");
    for (size_t i = 0; i < n; i++) {
        cleanup_free char *one =
            v[i].method != NULL
                ? xasprintf("%s%s %s on %s (%s)", i ? ", " : "", v[i].method,
                            v[i].path ? v[i].path : "", v[i].target,
                            write_allows(&v[i]) ? "the host is for fetching" : why_of(v[i].reason))
                : xasprintf("%s%s (%s)", i ? ", " : "", v[i].target,
                            entry_allows(&v[i]) ? "not on the list" : why_of(v[i].reason));
        add(b, one);
    }
    add(b, ".\n");
}

/* Whether an earlier upload refusal named the same host: one line a host. */
static bool write_named_before(const struct cp_egress_refusal *v, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (write_allows(&v[k]) && strcmp(v[k].target, v[i].target) == 0)
            return true;
    return false;
}

static void entry_lines(struct cp_buf *b, const struct cp_egress_refusal *v, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!entry_allows(&v[i]))
            continue;
        if (!any)
            add(b, "To let the box reach a name, add it to this folder's list:\n");
        cleanup_free char *line = xasprintf("  conch-place hosts add %s\n", v[i].target);
        add(b, line);
        any = true;
    }
    bool writes = false;
    for (size_t i = 0; i < n; i++) {
        if (!write_allows(&v[i]) || write_named_before(v, i))
            continue;
        if (!writes)
            add(b, "Uploads leave only from a host added for them, or with --unsealed:\n");
        cleanup_free char *line = xasprintf("  conch-place hosts add %s --write\n", v[i].target);
        add(b, line);
        writes = true;
    }
    if (any && !writes)
        add(b, "(or run the command again with --unsealed, outside the seal).\n");
}

static void no_entry_line(struct cp_buf *b, const struct cp_egress_refusal *v, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (entry_allows(&v[i]) || write_allows(&v[i]) || v[i].method != NULL || is_failure(&v[i]))
            continue;
        add(b, any ? ", " : "No entry on the list can allow ");
        add(b, v[i].target);
        any = true;
    }
    if (any)
        add(b, ": the sidecar refuses an IP address, another port than 443 and plain HTTP "
               "whatever the list holds. Only --unsealed reaches it, by running the command "
               "outside the seal.\n");
}

/* Whether a refused sign-in is one the person named (sign-ins-named.c gives its source). */
static bool named_source(const char *source)
{
    static const char named[] = "conch-place sign-ins add ";
    return source != NULL && strncmp(source, named, sizeof(named) - 1) == 0;
}

/* The far side's certificate, and a refused sign-in: each with its one step. */
static void failure_lines(struct cp_buf *b, const struct cp_egress_refusal *v, size_t n)
{
    bool trust = false;
    for (size_t i = 0; i < n; i++) {
        cleanup_free char *line = NULL;
        if (strcmp(v[i].reason, "sign-in-refused") == 0 && named_source(v[i].source))
            line = xasprintf("%s answered %s %s with a refusal of the sign-in you gave with "
                             "'conch-place sign-ins add %s': renew it by running that again (it "
                             "reads the new secret from standard input), then run the command "
                             "again.\n",
                             v[i].target, v[i].method ? v[i].method : "a request",
                             v[i].path ? v[i].path : "", v[i].target);
        else if (strcmp(v[i].reason, "sign-in-refused") == 0)
            line = xasprintf("%s refused the sign-in the sidecar added from %s: renew the "
                             "credential there, then run the command again.\n",
                             v[i].target, v[i].source ? v[i].source : "your settings");
        else if (strcmp(v[i].reason, "upstream-cert") == 0 && !trust) {
            trust = true;
            line = xstrdup("A certificate that does not verify against this computer's roots: "
                           "for a self-hosted server or a company's inspecting proxy, give its CA "
                           "with 'conch-place config set egress.ca_file FILE'.\n");
        }
        if (line != NULL)
            add(b, line);
    }
}

char *cp_egress_hint_words(const struct cp_egress_refusal *v, size_t n, const char *reach)
{
    struct cp_buf b;
    cp_buf_init(&b, HINT_TEXT_MAX);
    refused_list(&b, v, n);
    cleanup_free char *reaches =
        xasprintf("The box reaches only: %s (see 'conch-place hosts').\n", reach);
    add(&b, reaches);
    entry_lines(&b, v, n);
    no_entry_line(&b, v, n);
    failure_lines(&b, v, n);
    if (b.len > 0 && b.data[b.len - 1] == '\n')
        b.len--; /* cp_say ends the line */
    (void)cp_buf_append(&b, "", 1);
    return cp_buf_steal(&b);
}

static int sidecar_log(struct cp_engine *e, const struct cp_sidecar *s, time_t since,
                       struct cp_http_resp *resp, cp_error_t *err)
{
    cleanup_free char *url = xasprintf("http://localhost/v%s/containers/%s/logs?stdout=1&stderr=1"
                                       "&since=%lld",
                                       e->version, s->id, (long long)since);
    struct cp_http_req req = {
        .method = "GET", .url = url, .unix_socket = e->socket, .max_body = HINT_LOG_MAX};
    if (cp_http_perform(&e->curl, &req, resp, err) < 0)
        return cp_error_wrap(err, "reading the sidecar's log");
    if (resp->status != 200)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the sidecar's log: HTTP %ld", resp->status);
    return 0;
}

void cp_sidecar_hint(struct cp_engine *e, const struct cp_sidecar *s, const char *box, time_t since,
                     const struct cp_allowlist *list, const char *workdir)
{
    (void)workdir; /* `hosts add` finds the folder itself */
    struct cp_egress_refusal *v = NULL;
    size_t n = 0;
    /* The engine's log copier may be a moment behind the proxy's write. */
    for (int tries = 0; tries < 3 && n == 0; tries++) {
        cleanup_error cp_error_t err = NULL;
        cleanup_http_resp struct cp_http_resp resp = {0};
        if (tries > 0)
            usleep(150 * 1000);
        if (sidecar_log(e, s, since, &resp, &err) < 0) {
            cp_debug("%s", err->msg);
            return;
        }
        n = cp_egress_refusals(resp.body.data ? resp.body.data : "", resp.body.len, box, &v);
    }
    if (n == 0)
        return;
    cleanup_free char *allowed = cp_allowlist_summary(list);
    cleanup_free char *words = cp_egress_hint_words(v, n, allowed);
    cp_say("%s", words);
    cp_egress_refusals_free(v, n);
}
