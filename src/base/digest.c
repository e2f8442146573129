/* Digests and base64 through libcrypto; only the FNV name hash, which is no digest, is here. */
#include "config.h"

#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "src/base/digest.h"
#include "src/base/util.h"

void cp_sha256(const void *data, size_t len, uint8_t out[CP_SHA256_LEN])
{
    unsigned int n = CP_SHA256_LEN;
    if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) != 1)
        abort(); /* only on allocation failure inside libcrypto */
}

void cp_sha1(const void *data, size_t len, uint8_t out[CP_SHA1_LEN])
{
    unsigned int n = CP_SHA1_LEN;
    if (EVP_Digest(data, len, out, &n, EVP_sha1(), NULL) != 1)
        abort();
}

void cp_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    uint8_t out[CP_SHA256_LEN])
{
    unsigned int n = CP_SHA256_LEN;
    if (HMAC(EVP_sha256(), key, (int)key_len, data, len, out, &n) == NULL)
        abort();
}

void cp_hmac_sha1(const void *key, size_t key_len, const void *data, size_t len,
                  uint8_t out[CP_SHA1_LEN])
{
    unsigned int n = CP_SHA1_LEN;
    if (HMAC(EVP_sha1(), key, (int)key_len, data, len, out, &n) == NULL)
        abort();
}

void cp_hex(const uint8_t *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

static int is_b64(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

/* EVP_DecodeBlock skips white space and leading and trailing blanks, so the alphabet is
 * checked here first; the padding may be there or not (openssh's files and HTTP both pad). */
int cp_base64_decode(const char *s, size_t len, unsigned char **out, size_t *out_len)
{
    while (len > 0 && s[len - 1] == '=')
        len--;
    if (len % 4 == 1 || len > (size_t)INT32_MAX / 2)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (!is_b64((unsigned char)s[i]))
            return -1;
    size_t pad = (4 - len % 4) % 4;
    cleanup_free char *padded = xmalloc(len + pad + 1);
    memcpy(padded, s, len);
    memset(padded + len, '=', pad);
    unsigned char *bytes = xmalloc((len + pad) / 4 * 3 + 1);
    int n = EVP_DecodeBlock(bytes, (unsigned char *)padded, (int)(len + pad));
    if (n < 0 || (size_t)n < pad) {
        free(bytes);
        return -1;
    }
    *out_len = (size_t)n - pad; /* EVP_DecodeBlock counts the padding as zero bytes */
    bytes[*out_len] = '\0';
    *out = bytes;
    return 0;
}

char *cp_base64_encode(const void *data, size_t len)
{
    char *text = xmalloc((len + 2) / 3 * 4 + 1);
    EVP_EncodeBlock((unsigned char *)text, data, (int)len);
    return text;
}

uint64_t cp_fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

uint64_t cp_fnv_field(uint64_t h, const char *s)
{
    const char *text = s != NULL ? s : "-";
    return cp_fnv(cp_fnv(h, text, strlen(text)), "\xff", 1);
}

char *cp_folder_key(const char *text)
{
    return xasprintf("%016llx", (unsigned long long)cp_fnv(CP_FNV_BASIS, text, strlen(text)));
}
