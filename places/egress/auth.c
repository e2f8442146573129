/* SHA-256 (FIPS 180-4) and HMAC (RFC 2104) for the per-box credential; written here so the
 * sidecar image needs no crypto library beyond what the binary already links. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "places/egress/auth.h"
#include "src/util.h"

struct sha256 {
    uint32_t h[8];
    uint8_t block[64];
    size_t fill;
    uint64_t total;
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(v, h, sizeof(v));
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
                      ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
        uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
                      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof(uint32_t));
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += v[i];
}

static void sha256_init(struct sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof(iv));
    s->fill = 0;
    s->total = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->total += len;
    while (len > 0) {
        size_t take = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill == 64) {
            sha256_block(s->h, s->block);
            s->fill = 0;
        }
    }
}

static void sha256_final(struct sha256 *s, uint8_t out[32])
{
    uint64_t bits = s->total * 8;
    uint8_t pad = 0x80, zero = 0, len[8];
    sha256_update(s, &pad, 1);
    while (s->fill != 56)
        sha256_update(s, &zero, 1);
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
    explicit_bzero(s, sizeof(*s));
}

void cp_sha256(const void *data, size_t len, uint8_t out[32])
{
    struct sha256 s;
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, out);
}

void cp_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len, uint8_t out[32])
{
    uint8_t k[64] = {0}, pad[64], inner[32];
    if (key_len > 64)
        cp_sha256(key, key_len, k);
    else
        memcpy(k, key, key_len);
    struct sha256 s;
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x36;
    sha256_init(&s);
    sha256_update(&s, pad, 64);
    sha256_update(&s, data, len);
    sha256_final(&s, inner);
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x5c;
    sha256_init(&s);
    sha256_update(&s, pad, 64);
    sha256_update(&s, inner, 32);
    sha256_final(&s, out);
    explicit_bzero(k, sizeof(k));
    explicit_bzero(pad, sizeof(pad));
}

bool cp_egress_box_id_valid(const char *box)
{
    size_t n = strlen(box);
    return n >= 1 && n <= CP_EGRESS_BOX_MAX &&
           strspn(box, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

int cp_egress_box_token(const char *secret, const char *box, char out[CP_EGRESS_TOKEN_CHARS + 1],
                        cp_error_t *err)
{
    if (secret == NULL || strlen(secret) < CP_EGRESS_SECRET_MIN)
        return cp_error_make(err, CP_ERR_USAGE, 0, "the egress secret needs at least %d bytes",
                             CP_EGRESS_SECRET_MIN);
    if (!cp_egress_box_id_valid(box))
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a box id ([A-Za-z0-9_.-]{1,64})",
                             box);
    uint8_t mac[32];
    cp_hmac_sha256(secret, strlen(secret), box, strlen(box), mac);
    for (int i = 0; i < 32; i++) {
        out[2 * i] = "0123456789abcdef"[mac[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[mac[i] & 15];
    }
    out[CP_EGRESS_TOKEN_CHARS] = '\0';
    explicit_bzero(mac, sizeof(mac));
    return 0;
}

static int b64_value(unsigned char c)
{
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

/* Strict base64 with padding; returns the decoded length or -1. */
static int b64_decode(const char *in, char *out, size_t size)
{
    size_t n = strlen(in), len = 0;
    if (n == 0 || n % 4 != 0 || n / 4 * 3 >= size)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int j = 0; j < 4; j++) {
            bool pad_ok = i + 4 == n && j >= 2 && in[i + j] == '=' && (j == 3 || in[i + 3] == '=');
            v[j] = pad_ok ? 0 : b64_value((unsigned char)in[i + j]);
            if (v[j] < 0)
                return -1;
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | v[3];
        out[len++] = (char)(w >> 16);
        if (in[i + 2] != '=')
            out[len++] = (char)(w >> 8);
        if (in[i + 3] != '=')
            out[len++] = (char)w;
    }
    out[len] = '\0';
    return (int)len;
}

static bool equal_constant_time(const char *a, const char *b, size_t n)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

/* Splits "box:token" out of the header; false when it is not Basic or not well formed. */
static bool parse_basic(const char *header, char *decoded, size_t size, char **token)
{
    if (strncasecmp(header, "Basic ", 6) != 0)
        return false;
    const char *b64 = header + 6;
    while (*b64 == ' ')
        b64++;
    int n = b64_decode(b64, decoded, size);
    if (n < 0 || memchr(decoded, '\0', (size_t)n) != NULL)
        return false;
    char *colon = strchr(decoded, ':');
    if (colon == NULL)
        return false;
    *colon = '\0';
    *token = colon + 1;
    return cp_egress_box_id_valid(decoded);
}

bool cp_egress_auth_check(const char *secret, const char *header,
                          char box_out[CP_EGRESS_BOX_MAX + 1])
{
    char decoded[512], *token = NULL;
    box_out[0] = '\0';
    if (header == NULL || header[0] == '\0')
        return secret == NULL;
    if (!parse_basic(header, decoded, sizeof(decoded), &token))
        return false;
    memcpy(box_out, decoded, strlen(decoded) + 1);
    if (secret == NULL)
        return true;
    char want[CP_EGRESS_TOKEN_CHARS + 1];
    if (cp_egress_box_token(secret, decoded, want, NULL) < 0)
        return false;
    bool ok = strlen(token) == CP_EGRESS_TOKEN_CHARS &&
              equal_constant_time(token, want, CP_EGRESS_TOKEN_CHARS);
    explicit_bzero(want, sizeof(want));
    explicit_bzero(decoded, sizeof(decoded));
    return ok;
}
