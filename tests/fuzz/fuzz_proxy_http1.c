/* Fuzz target: what a box and a host send inside a tunnel the sidecar ends. The first byte
 * picks the reader (request head, response head, chunked body, method table); the checks are
 * the parsers' promises: lengths within the input, an allowed head has an origin-form target
 * and one framing, a chunked body never claims more than it was fed. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/policy/http1.h"
#include "egress/policy/methods.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void request(const char *d, size_t n)
{
    struct cp_http1_request r;
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    if (cp_http1_parse_request(d, n, "reg.example", &r, &reason) == 1)
        return;
    if (reason != CP_EGRESS_ALLOWED) {
        if (r.why == NULL)
            abort();
        return;
    }
    if (r.head_len > n || r.head_len < 4 || memcmp(d + r.head_len - 4, "\r\n\r\n", 4) != 0)
        abort();
    if (r.target.off + r.target.len > r.head_len || r.method.off + r.method.len > r.head_len)
        abort();
    if (d[r.target.off] != '/' && d[r.target.off] != '*')
        abort();
    if (r.body == CP_HTTP1_BODY_CLOSE)
        abort();
    char target[512];
    size_t t = r.target.len < sizeof(target) - 1 ? r.target.len : sizeof(target) - 1;
    memcpy(target, d + r.target.off, t);
    target[t] = '\0';
    cp_egress_methods_judge("POST", target);
}

static void response(const char *d, size_t n)
{
    struct cp_http1_response r;
    int rc = cp_http1_parse_response(d, n, n % 2 == 0, &r);
    if (rc == 0 && (r.head_len > n || r.status < 100 || r.status > 999 || r.status == 101))
        abort();
}

static void chunked(const char *d, size_t n)
{
    struct cp_http1_chunked c = {0};
    size_t off = 0;
    while (off < n) {
        bool done = false;
        size_t step = (size_t)(d[off] & 7) + 1;
        if (step > n - off)
            step = n - off;
        ssize_t got = cp_http1_chunked_feed(&c, d + off, step, &done);
        if (got < 0)
            return;
        if ((size_t)got > step || (!done && (size_t)got != step))
            abort();
        off += (size_t)got;
        if (done)
            return;
    }
}

static void methods(const char *d, size_t n)
{
    char text[1024];
    size_t t = n < sizeof(text) - 1 ? n : sizeof(text) - 1;
    memcpy(text, d, t);
    text[t] = '\0';
    char *space = strchr(text, ' ');
    if (space == NULL)
        return;
    *space = '\0';
    struct cp_egress_rule_result r = cp_egress_methods_judge(text, space + 1);
    if (r.verdict != CP_RULE_REFUSE && strcmp(text, "GET") != 0 && strcmp(text, "HEAD") != 0 &&
        strcmp(text, "POST") != 0)
        abort();
    if (r.verdict == CP_RULE_BODY)
        cp_egress_methods_body_ok(r.row, space + 1, strlen(space + 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *d = (const char *)data + 1;
    size_t n = size - 1;
    switch (data[0] % 4) {
    case 0:
        request(d, n);
        break;
    case 1:
        response(d, n);
        break;
    case 2:
        chunked(d, n);
        break;
    default:
        methods(d, n);
        break;
    }
    return 0;
}
