/* The ClientHello check. Records are gathered into one handshake message (RFC 8446 5.1 lets
 * a message span records), which is then read with explicit lengths: every field must fit its
 * parent exactly, so there is one way to read a hello and the server reads the same name. What
 * a real client never sends is refused rather than guessed at: a second server name, a name of
 * another type, an extension twice (a parser that takes the first and a server that takes the
 * last would disagree), SSLv2 framing, alerts or other records before the hello. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "egress/proxy/hello.h"

#define RECORD_HANDSHAKE   22
#define RECORD_PAYLOAD_MAX 16384
#define HS_CLIENT_HELLO    1
#define EXT_SERVER_NAME    0x0000
#define EXT_ECH            0xfe0d /* encrypted_client_hello: the real name is encrypted */
#define EXT_ESNI           0xffce /* its draft predecessor */
#define SNI_HOST_NAME      0

/* A cursor over bytes whose every read is bounded; a short read marks it bad. */
struct cursor {
    const uint8_t *p;
    size_t left;
    bool bad;
};

static uint32_t get(struct cursor *c, size_t n)
{
    uint32_t v = 0;
    if (c->bad || c->left < n) {
        c->bad = true;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | c->p[i];
    c->p += n;
    c->left -= n;
    return v;
}

/* A sub-cursor over the next n bytes, which this one skips. */
static struct cursor sub(struct cursor *c, size_t n)
{
    struct cursor s = {.p = c->p, .left = n, .bad = c->bad || c->left < n};
    if (s.bad) {
        c->bad = true;
        s.left = 0;
        return s;
    }
    c->p += n;
    c->left -= n;
    return s;
}

/* Gathers the first handshake message from the records in data into hs. Returns 1 for more
 * bytes, 0 when *hs_len holds the whole message, -1 with *reason set. */
static int gather(const uint8_t *data, size_t len, uint8_t *hs, size_t hs_size, size_t *hs_len,
                  enum cp_egress_reason *reason)
{
    size_t off = 0, n = 0;
    *reason = CP_EGRESS_NOT_TLS;
    for (;;) {
        if (n >= 4) {
            size_t want = 4 + (((size_t)hs[1] << 16) | ((size_t)hs[2] << 8) | hs[3]);
            if (hs[0] != HS_CLIENT_HELLO)
                return -1;
            if (want > hs_size) {
                *reason = CP_EGRESS_HELLO_TOO_BIG;
                return -1;
            }
            if (n >= want) {
                *hs_len = want;
                return 0;
            }
        }
        size_t left = len - off;
        /* Judged byte by byte, so plain text is refused at its first byte. */
        if (left >= 1 && data[off] != RECORD_HANDSHAKE)
            return -1;
        if (left >= 2 && data[off + 1] != 3)
            return -1;
        if (left >= 3 && data[off + 2] > 3)
            return -1;
        if (left < 5)
            return 1;
        size_t rlen = ((size_t)data[off + 3] << 8) | data[off + 4];
        if (rlen == 0 || rlen > RECORD_PAYLOAD_MAX)
            return -1;
        if (left - 5 < rlen)
            return 1;
        size_t copy = rlen < hs_size - n ? rlen : hs_size - n;
        memcpy(hs + n, data + off + 5, copy);
        n += copy;
        off += 5 + rlen;
    }
}

static bool same_name(const uint8_t *name, size_t nlen, const char *host)
{
    if (nlen > 0 && name[nlen - 1] == '.')
        nlen--; /* a fully qualified "example.org." names the same host */
    if (nlen != strlen(host))
        return false;
    for (size_t i = 0; i < nlen; i++) {
        uint8_t ch = name[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (uint8_t)(ch - 'A' + 'a');
        if (ch != (uint8_t)host[i])
            return false;
    }
    return true;
}

static void printable_copy(const uint8_t *name, size_t nlen, char *out, size_t size)
{
    size_t i = 0;
    for (; i < nlen && i + 1 < size; i++)
        out[i] = name[i] > 0x20 && name[i] < 0x7f ? (char)name[i] : '?';
    if (size > 0)
        out[i] = '\0';
}

/* The server_name extension: a list holding exactly one host_name (RFC 6066 3). */
static enum cp_egress_reason read_sni(struct cursor ext, const char *host, char *sni, size_t size)
{
    struct cursor list = sub(&ext, get(&ext, 2));
    if (ext.bad || ext.left != 0 || list.left == 0)
        return CP_EGRESS_NOT_TLS;
    uint32_t type = get(&list, 1);
    struct cursor name = sub(&list, get(&list, 2));
    if (list.bad || list.left != 0 || type != SNI_HOST_NAME || name.left == 0 || name.left > 255)
        return CP_EGRESS_NOT_TLS;
    printable_copy(name.p, name.left, sni, size);
    return same_name(name.p, name.left, host) ? CP_EGRESS_ALLOWED : CP_EGRESS_SNI_MISMATCH;
}

static enum cp_egress_reason read_hello(struct cursor c, const char *host, char *sni, size_t size)
{
    static uint8_t seen[65536 / 8]; /* static: one event loop calls this, and 8 KiB */
    memset(seen, 0, sizeof(seen));
    if (get(&c, 1) != 3) /* legacy_version major */
        return CP_EGRESS_NOT_TLS;
    get(&c, 1 + 32); /* minor, random */
    struct cursor session = sub(&c, get(&c, 1));
    struct cursor suites = sub(&c, get(&c, 2));
    struct cursor compression = sub(&c, get(&c, 1));
    if (c.bad || session.left > 32 || suites.left < 2 || suites.left % 2 || compression.left < 1)
        return CP_EGRESS_NOT_TLS;
    if (c.left == 0)
        return CP_EGRESS_NO_SNI; /* no extensions at all */
    struct cursor exts = sub(&c, get(&c, 2));
    if (c.bad || c.left != 0)
        return CP_EGRESS_NOT_TLS;
    enum cp_egress_reason name = CP_EGRESS_NO_SNI;
    bool ech = false;
    while (exts.left > 0) {
        uint32_t type = get(&exts, 2);
        struct cursor ext = sub(&exts, get(&exts, 2));
        if (exts.bad || (seen[type / 8] & (1u << (type % 8))))
            return CP_EGRESS_NOT_TLS;
        seen[type / 8] |= (uint8_t)(1u << (type % 8));
        if (type == EXT_ECH || type == EXT_ESNI)
            ech = true;
        else if (type == EXT_SERVER_NAME)
            name = read_sni(ext, host, sni, size);
        if (name == CP_EGRESS_NOT_TLS)
            return name;
    }
    /* An encrypted hello routes by its inner name, which we cannot read: the outer one could
     * say a listed host while the CDN serves the hidden one. */
    return ech ? CP_EGRESS_ECH : name;
}

enum cp_egress_reason cp_tls_client_hello_judge(const uint8_t *msg, size_t len, const char *host,
                                                char *sni, size_t sni_size)
{
    if (sni_size > 0)
        sni[0] = '\0';
    if (len < 4 || msg[0] != HS_CLIENT_HELLO ||
        len - 4 != (((size_t)msg[1] << 16) | ((size_t)msg[2] << 8) | msg[3]))
        return CP_EGRESS_NOT_TLS;
    struct cursor body = {.p = msg + 4, .left = len - 4};
    return read_hello(body, host, sni, sni_size);
}

int cp_tls_hello_check(const uint8_t *data, size_t len, const char *host,
                       enum cp_egress_reason *reason, char *sni, size_t sni_size)
{
    static uint8_t hs[CP_TLS_HELLO_MAX]; /* static for the same reason as seen */
    size_t hs_len = 0;
    if (sni_size > 0)
        sni[0] = '\0';
    int r = gather(data, len, hs, sizeof(hs), &hs_len, reason);
    if (r == 1 && len >= CP_TLS_HELLO_MAX) {
        *reason = CP_EGRESS_HELLO_TOO_BIG;
        return 0;
    }
    if (r != 0)
        return r < 0 ? 0 : 1;
    *reason = cp_tls_client_hello_judge(hs, hs_len, host, sni, sni_size);
    return 0;
}
