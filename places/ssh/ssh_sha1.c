/* SHA-1 (FIPS 180-4) and HMAC (RFC 2104): known_hosts hashes names with HMAC-SHA1. Not used
 * for anything that needs collision resistance; the tests check the RFC vectors. */
#include "config.h"

#include <string.h>

#include "places/ssh/ssh_sha1.h"

struct sha1 {
    uint32_t h[5];
    uint8_t block[64];
    size_t used;
    uint64_t total;
};

static uint32_t rol(uint32_t v, int n)
{
    return (v << n) | (v >> (32 - n));
}

static uint32_t round_f(int t, uint32_t b, uint32_t c, uint32_t d)
{
    if (t < 20)
        return ((b & c) | (~b & d)) + 0x5a827999u;
    if (t < 40)
        return (b ^ c ^ d) + 0x6ed9eba1u;
    if (t < 60)
        return ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdcu;
    return (b ^ c ^ d) + 0xca62c1d6u;
}

static void compress(struct sha1 *s)
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)s->block[4 * t] << 24 | (uint32_t)s->block[4 * t + 1] << 16 |
               (uint32_t)s->block[4 * t + 2] << 8 | s->block[4 * t + 3];
    for (int t = 16; t < 80; t++)
        w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t tmp = rol(a, 5) + round_f(t, b, c, d) + e + w[t];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = tmp;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

static void sha1_init(struct sha1 *s)
{
    static const uint32_t iv[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    memcpy(s->h, iv, sizeof(iv));
    s->used = 0;
    s->total = 0;
}

static void sha1_update(struct sha1 *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->total += len;
    while (len > 0) {
        size_t n = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->block + s->used, p, n);
        s->used += n;
        p += n;
        len -= n;
        if (s->used == 64) {
            compress(s);
            s->used = 0;
        }
    }
}

static void sha1_final(struct sha1 *s, uint8_t out[CP_SHA1_LEN])
{
    uint64_t bits = s->total * 8;
    uint8_t pad = 0x80, zero = 0, len[8];
    sha1_update(s, &pad, 1);
    while (s->used != 56)
        sha1_update(s, &zero, 1);
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_update(s, len, 8);
    for (int i = 0; i < 20; i++)
        out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

void cp_sha1(const void *data, size_t len, uint8_t out[CP_SHA1_LEN])
{
    struct sha1 s;
    sha1_init(&s);
    sha1_update(&s, data, len);
    sha1_final(&s, out);
}

void cp_hmac_sha1(const void *key, size_t key_len, const void *data, size_t len,
                  uint8_t out[CP_SHA1_LEN])
{
    uint8_t k[64] = {0}, ipad[64], opad[64], inner[CP_SHA1_LEN];
    if (key_len > 64)
        cp_sha1(key, key_len, k);
    else
        memcpy(k, key, key_len);
    for (int i = 0; i < 64; i++) {
        ipad[i] = k[i] ^ 0x36;
        opad[i] = k[i] ^ 0x5c;
    }
    struct sha1 s;
    sha1_init(&s);
    sha1_update(&s, ipad, 64);
    sha1_update(&s, data, len);
    sha1_final(&s, inner);
    sha1_init(&s);
    sha1_update(&s, opad, 64);
    sha1_update(&s, inner, CP_SHA1_LEN);
    sha1_final(&s, out);
}
