/* SHA-1 and HMAC-SHA1, only for matching hashed names in known_hosts (|1|salt|hash). */
#ifndef CONCH_SSH_SHA1_H
#define CONCH_SSH_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define CP_SHA1_LEN 20

void cp_sha1(const void *data, size_t len, uint8_t out[CP_SHA1_LEN]);
void cp_hmac_sha1(const void *key, size_t key_len, const void *data, size_t len,
                  uint8_t out[CP_SHA1_LEN]);

#endif
