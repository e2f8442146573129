/* Fuzz target: the bytes any local program sends the relay's door. Checks the judge's
 * promises, not only that it does not crash: a run is only ever a GET of /run/ and 64 hex
 * digits with one door Host and no Origin, and every refusal has a status and a reason. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relay/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cp_relay_verdict v;
    int r = cp_relay_judge((const char *)data, size, 4242, &v);
    if (r == 1) {
        if (size >= CP_RELAY_HEAD_MAX || memmem(data, size, "\r\n\r\n", 4) != NULL)
            abort(); /* more wanted only while the head can still end within the bound */
        return 0;
    }
    if (v.reason == NULL || strlen(v.reason) == 0 || strchr(v.reason, '\n') != NULL)
        abort();
    if (v.status != 0) {
        if (v.status < 400 || v.status > 599)
            abort();
        return 0;
    }
    const char *s = (const char *)data;
    if (v.head_len > size || v.head_len > CP_RELAY_HEAD_MAX || size < 14 + CP_RELAY_TICKET_HEX ||
        memcmp(s, "GET /run/", 9) != 0 || s[9 + CP_RELAY_TICKET_HEX] != ' ')
        abort();
    if (memmem(data, v.head_len, "\r\nOrigin:", 9) != NULL ||
        memmem(data, v.head_len, "\r\norigin:", 9) != NULL)
        abort();
    return 0;
}
