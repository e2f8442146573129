/* Fuzz target: the first bytes of a tunnel, judged as a ClientHello for "echo.test". Checks the
 * check's promises, not only that it does not crash: it decides within its bound, it allows only
 * a hello whose name is the host, the name it copies out is printable, and feeding the same
 * bytes in two parts never changes the verdict (the split a slow client makes). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "egress/proxy/hello.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HOST "echo.test"

static void check_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > CP_TLS_HELLO_MAX)
        size = CP_TLS_HELLO_MAX; /* the proxy never holds more */
    enum cp_egress_reason reason = CP_EGRESS_ALLOWED;
    char sni[256];
    int r = cp_tls_hello_check(data, size, HOST, &reason, sni, sizeof(sni));
    if (r != 0 && r != 1)
        abort();
    if (r == 1 && size >= CP_TLS_HELLO_MAX)
        abort(); /* unbounded */
    check_printable(sni);
    if (r == 0 && reason == CP_EGRESS_ALLOWED) {
        size_t n = strlen(sni);
        if (n > 0 && sni[n - 1] == '.')
            n--;
        if (size < 5 || data[0] != 0x16 || n != strlen(HOST) || strncasecmp(sni, HOST, n) != 0)
            abort();
    }
    /* The verdict on a prefix that was decided holds for the whole. */
    if (size > 1) {
        size_t cut = data[size - 1] % size;
        enum cp_egress_reason early = CP_EGRESS_ALLOWED;
        char sni2[256];
        if (cut > 0 && cp_tls_hello_check(data, cut, HOST, &early, sni2, sizeof(sni2)) == 0 &&
            (r != 0 || early != reason))
            abort();
    }
    return 0;
}
