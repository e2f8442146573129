/* Fuzz target: an engine's HTTP answer as src/base/http-unix.c reads it (http-parser, the
 * bounded header and body buffers, a 2xx body streamed to a writer), fed in two pieces split at
 * the first byte's value, then the peer's close. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "src/base/http-unix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(void *ctx, const char *data, size_t len)
{
    (void)ctx, (void)data;
    return len > 4000 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct cp_http_req req = {.method = data[0] & 1 ? "HEAD" : "GET",
                              .url = "http://localhost/x",
                              .max_body = 1024,
                              .writer = data[0] & 2 ? sink : NULL};
    struct cp_http_resp resp = {0};
    cp_buf_init(&resp.body, req.max_body);
    cp_buf_init(&resp.headers, 4096);
    const char *p = (const char *)data + 1;
    size_t len = size - 1, cut = data[0] < len ? data[0] : len;
    void *state = NULL;
    cp_error_t err = NULL;
    int r = cp_http_unix_parse(&req, &resp, p, cut, false, &state, &err);
    if (r == 0)
        r = cp_http_unix_parse(&req, &resp, p + cut, len - cut, false, &state, &err);
    if (r == 0)
        r = cp_http_unix_parse(&req, &resp, NULL, 0, true, &state, &err);
    char v[64];
    (void)cp_http_header(&resp, "Api-Version", v, sizeof(v));
    free(state);
    cp_error_free(&err);
    cp_http_resp_dispose(&resp);
    return 0;
}
