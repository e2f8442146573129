/* Fuzz target: the bytes a box sends the proxy before its tunnel exists. Checks the parser's
 * promises, not only that it does not crash: an allowed request names a valid host on 443,
 * and everything it copies out is bounded and printable. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/policy/connect-request.h"
#include "src/base/hostname.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f || *s == '"' || *s == '\\')
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cp_egress_request req;
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    int rc = cp_egress_parse_head((const char *)data, size, &req, &reason);
    if (rc == 1)
        return 0;
    check_printable(req.target);
    if (strlen(req.target) > CP_EGRESS_TARGET_MAX)
        abort();
    if (reason == CP_EGRESS_ALLOWED &&
        (req.port != 443 || !cp_hostname_valid(req.host) || req.head_len != size))
        abort();
    if (req.head_len > size)
        abort();
    const char *list[] = {"a.example", "*.b.example"};
    char out[4096];
    size_t n = cp_egress_response(reason, req.target, list, 2, out, sizeof(out));
    if (n >= sizeof(out) || strlen(out) != n)
        abort();
    return 0;
}
