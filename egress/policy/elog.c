/* Writing and reading the decision log. json-c writes it, so a host name with a quote or a
 * control byte cannot forge a second line or field. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "egress/policy/elog.h"
#include "src/base/json.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define LOG_READ_MAX (16 * 1024 * 1024)
#define HOSTS_MAX    1024

const char *cp_egress_verdict_name(enum cp_egress_reason reason)
{
    switch (reason) {
    case CP_EGRESS_ALLOWED:
        return "allowed";
    case CP_EGRESS_DNS:
    case CP_EGRESS_UNREACHABLE:
    case CP_EGRESS_DIAL_TIMEOUT:
    case CP_EGRESS_UPSTREAM:
    case CP_EGRESS_UPSTREAM_CERT:
    case CP_EGRESS_UPSTREAM_TLS:
    case CP_EGRESS_UPSTREAM_HTTP:
    case CP_EGRESS_CLIENT_TLS:
    case CP_EGRESS_SIGN_IN_REFUSED:
    case CP_EGRESS_SIGN_IN_UNCHECKED:
        return "failed";
    case CP_EGRESS_SIGN_INS_TAKEN:
        return "allowed";
    default:
        return "refused";
    }
}

/* A box chose these bytes: printable ASCII only, cut, so the log stays readable. */
static void add_printable(json_object *o, const char *key, const char *value)
{
    char text[CP_EGRESS_LOG_PATH_MAX + 1];
    size_t n = 0;
    for (; value[n] != '\0' && n < CP_EGRESS_LOG_PATH_MAX; n++)
        text[n] = value[n] > 0x20 && value[n] < 0x7f ? value[n] : '?';
    text[n] = '\0';
    json_object_object_add(o, key, json_object_new_string(text));
}

/* The sign-in fields: never the credential, only where it came from. */
static void add_sign_in(json_object *o, const struct cp_egress_decision *d)
{
    if (d->signed_in)
        json_object_object_add(o, "signed_in", json_object_new_boolean(1));
    if (d->source != NULL)
        json_object_object_add(o, "source", json_object_new_string(d->source));
    if (d->header != NULL)
        json_object_object_add(o, "header", json_object_new_string(d->header));
    if (d->detail != NULL)
        json_object_object_add(o, "detail", json_object_new_string(d->detail));
    if (d->reason == CP_EGRESS_SIGN_INS_TAKEN)
        json_object_object_add(o, "sign_ins", json_object_new_int64((int64_t)d->sign_ins));
}

static json_object *decision_json(const struct cp_egress_decision *d)
{
    char when[32];
    struct tm tm;
    gmtime_r(&d->time, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "time", json_object_new_string(when));
    json_object_object_add(o, "box", json_object_new_string(d->box ? d->box : ""));
    json_object_object_add(o, "host", json_object_new_string(d->host ? d->host : ""));
    json_object_object_add(o, "port", json_object_new_int((int)d->port));
    json_object_object_add(o, "verdict", json_object_new_string(cp_egress_verdict_name(d->reason)));
    json_object_object_add(o, "reason",
                           json_object_new_string(cp_egress_reason_info(d->reason)->slug));
    json_object_object_add(
        o, "status",
        json_object_new_int(d->status ? d->status : cp_egress_reason_info(d->reason)->status));
    if (d->addr != NULL)
        json_object_object_add(o, "addr", json_object_new_string(d->addr));
    if (d->sni != NULL)
        json_object_object_add(o, "sni", json_object_new_string(d->sni));
    if (d->via != NULL)
        json_object_object_add(o, "via", json_object_new_string(d->via));
    if (d->method != NULL)
        add_printable(o, "method", d->method);
    if (d->path != NULL)
        add_printable(o, "path", d->path);
    add_sign_in(o, d);
    return o;
}

int cp_egress_log_write(FILE *f, const struct cp_egress_decision *d, cp_error_t *err)
{
    cleanup_json json_object *o = decision_json(d);
    const char *line =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    /* Workers of terminated tunnels write too: the FILE's own lock makes the line and its
     * flush one step, so lines never interleave. */
    flockfile(f);
    int r = fprintf(f, "%s\n", line) < 0 || fflush(f) != 0 ? -1 : 0;
    funlockfile(f);
    if (r < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot write the egress log");
    return 0;
}

/* The refused host a line names for box, or NULL. Borrowed from o. */
static const char *refused_host(json_object *o, const char *box)
{
    const char *b = cp_json_str(o, "box"), *verdict = cp_json_str(o, "verdict");
    const char *host = cp_json_str(o, "host");
    if (b == NULL || verdict == NULL || host == NULL || host[0] == '\0')
        return NULL;
    if (strcmp(b, box) != 0 || strcmp(verdict, "refused") != 0)
        return NULL;
    const char *reason = cp_json_str(o, "reason"), *sni = cp_json_str(o, "sni");
    if (reason != NULL && strcmp(reason, "sni-mismatch") == 0 && sni != NULL && sni[0] != '\0')
        return sni; /* CONNECT a listed host, then a hello for this one: this one is wanted */
    return host;
}

/* The decision object in a line that may carry a prefix (a timestamp, or a frame header some
 * bytes of which can be '{'): tried from each of the first few braces. */
json_object *cp_egress_log_object(const char *line, size_t len)
{
    const char *p = line;
    for (int tries = 0; tries < 4; tries++) {
        const char *brace = memchr(p, '{', len - (size_t)(p - line));
        if (brace == NULL)
            return NULL;
        json_object *o = NULL;
        if (cp_json_parse(brace, len - (size_t)(brace - line), "log line", &o, NULL) == 0) {
            if (json_object_is_type(o, json_type_object))
                return o;
            json_object_put(o);
        }
        p = brace + 1;
    }
    return NULL;
}

static void take_line(const char *line, size_t len, const char *box, struct cp_strvec *hosts)
{
    if (hosts->n >= HOSTS_MAX)
        return;
    cleanup_json json_object *o = cp_egress_log_object(line, len);
    if (o == NULL)
        return;
    const char *host = refused_host(o, box);
    if (host != NULL && !cp_strvec_has(hosts, host))
        cp_strvec_push(hosts, host);
}

int cp_egress_log_refused_text(const char *text, size_t len, const char *box, char ***hosts_out,
                               cp_error_t *err)
{
    cleanup_strvec struct cp_strvec hosts = {0};
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        take_line(text + start, end - start, box, &hosts);
        start = end + 1;
    }
    *hosts_out = cp_strvec_steal(&hosts);
    return 0;
}

int cp_egress_log_refused(const char *path, const char *box, char ***hosts_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0)
        return cp_error_make(err, errno == ENOENT ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, errno,
                             "cannot read the egress log %s", path);
    off_t from = st.st_size > LOG_READ_MAX ? st.st_size - LOG_READ_MAX : 0;
    size_t want = (size_t)(st.st_size - from);
    cleanup_free char *text = xmalloc(want + 1);
    ssize_t got = pread(fd, text, want, from);
    if (got < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read the egress log %s", path);
    return cp_egress_log_refused_text(text, (size_t)got, box, hosts_out, err);
}

/* Whether a line is a refusal for box, by the reader's rule (elog.h). */
static bool refusal_line(json_object *o, const char *box)
{
    const char *b = cp_json_str(o, "box"), *verdict = cp_json_str(o, "verdict");
    const char *reason = cp_json_str(o, "reason");
    if (b == NULL || verdict == NULL || reason == NULL || strcmp(b, box) != 0)
        return false;
    if (strcmp(verdict, "refused") == 0)
        return true;
    return strcmp(verdict, "failed") == 0 && strcmp(reason, "upstream-cert") == 0;
}

static bool same_str(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool refusal_seen(const struct cp_egress_log_refusal *v, size_t n,
                         const struct cp_egress_log_refusal *r)
{
    for (size_t i = 0; i < n; i++)
        if (same_str(v[i].host, r->host) && same_str(v[i].method, r->method) &&
            same_str(v[i].path, r->path) && same_str(v[i].reason, r->reason))
            return true;
    return false;
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? xstrdup(s) : NULL;
}

static void take_refusal(const char *line, size_t len, const char *box,
                         struct cp_egress_log_refusal **v, size_t *n)
{
    if (*n >= HOSTS_MAX)
        return;
    cleanup_json json_object *o = cp_egress_log_object(line, len);
    if (o == NULL || !refusal_line(o, box))
        return;
    const char *host = refused_host(o, box);
    struct cp_egress_log_refusal r = {
        .host = (char *)(host != NULL ? host : cp_json_str(o, "host")),
        .method = (char *)cp_json_str(o, "method"),
        .path = (char *)cp_json_str(o, "path"),
        .reason = (char *)cp_json_str(o, "reason"),
    };
    if (r.host == NULL || r.host[0] == '\0' || refusal_seen(*v, *n, &r))
        return;
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[(*n)++] = (struct cp_egress_log_refusal){dup_or_null(r.host), dup_or_null(r.method),
                                                  dup_or_null(r.path), dup_or_null(r.reason)};
}

int cp_egress_log_refusals_text(const char *text, size_t len, const char *box,
                                struct cp_egress_log_refusal **out, size_t *n, cp_error_t *err)
{
    struct cp_egress_log_refusal *v = NULL;
    size_t count = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        take_refusal(text + start, end - start, box, &v, &count);
        start = end + 1;
    }
    *out = v;
    *n = count;
    return 0;
}

void cp_egress_log_refusals_free(struct cp_egress_log_refusal *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].host);
        free(r[i].method);
        free(r[i].path);
        free(r[i].reason);
    }
    free(r);
}
