/* Fuzz target: the handshake watch of a tunnel to "echo.test", fed both ways. The input is a
 * run of chunks, each a 2-byte head (top bit: from the server; the rest: its length) and its
 * bytes. Checks the watch's promises: a refusal holds, the name it copies out is printable,
 * the client's buffer stays within its bound, and feeding every chunk a byte at a time (the
 * split a slow peer makes) never changes the verdict or when the watch ends. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/proxy/hello.h"
#include "egress/proxy/watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HOST "echo.test"

static void check_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            abort();
}

/* Feeds one chunk whole, or a byte at a time; returns the verdict after it. */
static enum cp_egress_reason feed(struct cp_tls_watch *w, bool server, const uint8_t *p, size_t n,
                                  bool bytewise)
{
    char sni[256];
    enum cp_egress_reason r = w->refused;
    for (size_t off = 0, step = bytewise ? 1 : n; off < n; off += step) {
        if (server) {
            cp_tls_watch_server(w, p + off, step);
            continue;
        }
        enum cp_egress_reason before = w->refused;
        r = cp_tls_watch_client(w, p + off, step, HOST, sni, sizeof(sni));
        check_printable(sni);
        if (before != CP_EGRESS_ALLOWED && r != before)
            abort(); /* a refusal holds */
        if (w->hs_len > CP_TLS_HELLO_MAX || (w->hs == NULL && w->hs_len != 0))
            abort();
    }
    return w->refused;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cp_tls_watch whole = {0}, bytewise = {0};
    size_t off = 0;
    while (off + 2 <= size) {
        bool server = data[off] & 0x80;
        size_t n = ((size_t)(data[off] & 0x7f) << 8) | data[off + 1];
        off += 2;
        if (n > size - off)
            n = size - off;
        enum cp_egress_reason a = feed(&whole, server, data + off, n, false);
        enum cp_egress_reason b = feed(&bytewise, server, data + off, n, true);
        if (a != b || cp_tls_watch_done(&whole) != cp_tls_watch_done(&bytewise))
            abort();
        off += n;
    }
    cp_tls_watch_dispose(&whole);
    cp_tls_watch_dispose(&bytewise);
    return 0;
}
