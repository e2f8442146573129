/* The per-box credential: HMAC-SHA256 tokens (libcrypto, through src/base/digest) and the
 * Proxy-Authorization check. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "egress/policy/box-credential.h"
#include "src/base/digest.h"
#include "src/base/util.h"

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
    cp_hex(mac, sizeof(mac), out);
    explicit_bzero(mac, sizeof(mac));
    return 0;
}

/* Splits "box:token" out of the header; false when it is not Basic or not well formed. */
static bool parse_basic(const char *header, char *decoded, size_t size, char **token)
{
    if (strncasecmp(header, "Basic ", 6) != 0)
        return false;
    const char *b64 = header + 6;
    while (*b64 == ' ')
        b64++;
    cleanup_free unsigned char *raw = NULL;
    size_t n = 0;
    if (cp_base64_decode(b64, strlen(b64), &raw, &n) < 0 || n >= size ||
        memchr(raw, '\0', n) != NULL) {
        if (raw != NULL)
            explicit_bzero(raw, n);
        return false;
    }
    memcpy(decoded, raw, n + 1);
    explicit_bzero(raw, n);
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
              CRYPTO_memcmp(token, want, CP_EGRESS_TOKEN_CHARS) == 0;
    explicit_bzero(want, sizeof(want));
    explicit_bzero(decoded, sizeof(decoded));
    return ok;
}
