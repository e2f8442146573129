/* Fuzz target: a known_hosts file, checked for two names and a fixed ed25519 key. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "places/ssh/known-hosts.h"
#include "src/base/digest.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char k1[] = "AAAAC3NzaC1lZDI1NTE5AAAAIDQHpkz6gbP4yt++iXeb6x6m+wqfmqu8FX5L0RhLi7cZ";
    static const char *const names[] = {"box.example", "[box.example]:2222"};
    cleanup_free unsigned char *key = NULL;
    size_t key_len = 0;
    if (cp_base64_decode(k1, strlen(k1), &key, &key_len) < 0)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        struct cp_kh_verdict v = {0};
        cleanup_error cp_error_t err = NULL;
        if (cp_known_hosts_scan((const char *)data, size, "kh", names[i], key, key_len, &v, &err) ==
            0) {
            cleanup_error cp_error_t verr = NULL;
            cp_known_hosts_verdict_error(&v, "box", names[i], &verr);
        }
    }
    return 0;
}
