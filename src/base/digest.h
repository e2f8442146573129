/* Digests and codecs on libcrypto (EVP, HMAC, EVP_DecodeBlock): SHA-256 and HMAC-SHA256 for
 * the proxy credential and the relay's tickets, SHA-1 and HMAC-SHA1 for known_hosts' hashed
 * names, base64 for keys and headers, and the one name hash (FNV-1a shaped) that names a folder's
 * copy and the other things derived from a name. */
#ifndef CONCH_DIGEST_H
#define CONCH_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define CP_SHA256_LEN 32
#define CP_SHA1_LEN   20

void cp_sha256(const void *data, size_t len, uint8_t out[CP_SHA256_LEN]);
void cp_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    uint8_t out[CP_SHA256_LEN]);
void cp_sha1(const void *data, size_t len, uint8_t out[CP_SHA1_LEN]);
void cp_hmac_sha1(const void *key, size_t key_len, const void *data, size_t len,
                  uint8_t out[CP_SHA1_LEN]);

/* Lower-case hex of len bytes into out, which holds 2 * len + 1. */
void cp_hex(const uint8_t *bytes, size_t len, char *out);

/* Strict base64 (padding required where the length needs it, no white space). The decoded
 * bytes (NUL-terminated, not counted) are the caller's; -1 on anything malformed. */
int cp_base64_decode(const char *s, size_t len, unsigned char **out, size_t *out_len);
/* Base64 of len bytes, NUL-terminated, the caller's. */
char *cp_base64_encode(const void *data, size_t len);

/* The one name hash: FNV-1a shaped, 64 bits, from CP_FNV_BASIS (1469598103934665603, a
 * digit short of FNV's own 14695981039346656037), which is kept because copies, sandboxes,
 * keepers' sockets and far names already on disk and in engines are named by it. Not a secret
 * and not for integrity: only stable, and the same in every part that derives a name. Start
 * from CP_FNV_BASIS and feed the pieces in order; each call returns the new hash. */
#define CP_FNV_BASIS 1469598103934665603ULL
uint64_t cp_fnv(uint64_t h, const void *data, size_t len);
/* One field of a record: s's bytes ("-" for NULL), then the byte 0xff, so ("ab","c") and
 * ("a","bc") differ. (The ssh keeper's socket name is made of these.) */
uint64_t cp_fnv_field(uint64_t h, const char *s);
/* 16 lower-case hex digits of cp_fnv(CP_FNV_BASIS, text, strlen(text)): the key that names a
 * folder's copy, sandbox and keeper state (text is the folder's real path), and the short
 * stand-in for any name that cannot be used as it is (ssh's far names). The caller's. */
char *cp_folder_key(const char *text);

#endif
