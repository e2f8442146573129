/* Writing the answers of a terminated tunnel (answer.h). json-c writes the JSON body, so a
 * path with a quote in it cannot break it. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "egress/terminate/answer.h"
#include "src/base/json.h"

#define PATH_SHOWN 200

/* The path as shown: printable ASCII, cut. */
static void shown(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; s != NULL && s[n] != '\0' && n + 1 < size && n < PATH_SHOWN; n++)
        out[n] = s[n] > 0x20 && s[n] < 0x7f ? s[n] : '?';
    out[n] = '\0';
}

static void words(enum cp_egress_reason reason, const struct cp_egress_answer_about *a, char *out,
                  size_t size)
{
    char path[PATH_SHOWN + 1], method[40];
    shown(a->path ? a->path : "/", path, sizeof(path));
    shown(a->method ? a->method : "a request to", method, sizeof(method));
    const char *detail = a->detail ? a->detail : cp_egress_reason_info(reason)->sentence;
    switch (reason) {
    case CP_EGRESS_METHOD:
        snprintf(out, size,
                 "conch-place refused %s https://%s%s: %s is read-only in this sealed box, so "
                 "only fetching passes (%s). Uploads leave only with --unsealed, or from a host "
                 "added with `conch-place hosts add %s --write`.",
                 method, a->host, path, a->host, detail, a->host);
        return;
    case CP_EGRESS_UPSTREAM_CERT:
    case CP_EGRESS_UPSTREAM_TLS:
    case CP_EGRESS_UPSTREAM_HTTP:
        snprintf(out, size,
                 "conch-place could not reach https://%s safely for %s %s: %s (%s). If %s uses a "
                 "certificate authority of your own, give it with `conch-place config set "
                 "egress.ca_file FILE`.",
                 a->host, method, path, cp_egress_reason_info(reason)->sentence, detail, a->host);
        return;
    default:
        snprintf(out, size, "conch-place refused %s https://%s%s: %s (%s).", method, a->host, path,
                 cp_egress_reason_info(reason)->sentence, detail);
        return;
    }
}

size_t cp_egress_answer_write(enum cp_egress_reason reason, const struct cp_egress_answer_about *a,
                              char *out, size_t size)
{
    const struct cp_egress_reason_info *info = cp_egress_reason_info(reason);
    char text[1536];
    words(reason, a, text, sizeof(text));
    cleanup_json json_object *o = NULL;
    const char *body = text;
    if (a->json) {
        o = json_object_new_object();
        json_object_object_add(o, "error", json_object_new_string(text));
        body = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE);
    }
    int n = snprintf(out, size,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\nProxy-Status: conch-place; error=%s\r\n\r\n%s\n",
                     info->status, info->status_text,
                     a->json ? "application/json" : "text/plain; charset=utf-8", strlen(body) + 1,
                     info->proxy_status_error, body);
    if (n < 0)
        return 0;
    return (size_t)n >= size ? size - 1 : (size_t)n;
}

/* The value of header name in head, or NULL; *n its length. */
static const char *header_value(const char *head, size_t len, const char *name, size_t *n)
{
    size_t nl = strlen(name);
    for (const char *p = head; p < head + len;) {
        const char *eol = memchr(p, '\n', (size_t)(head + len - p));
        if (eol == NULL)
            return NULL;
        if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            *n = (size_t)(eol - v);
            return v;
        }
        p = eol + 1;
    }
    return NULL;
}

bool cp_egress_answer_wants_json(const char *head, size_t len)
{
    size_t n = 0;
    const char *accept = header_value(head, len, "accept", &n);
    if (accept != NULL && memmem(accept, n, "json", 4) != NULL)
        return true;
    const char *agent = header_value(head, len, "user-agent", &n);
    return agent != NULL && n >= 4 && strncmp(agent, "npm/", 4) == 0;
}
