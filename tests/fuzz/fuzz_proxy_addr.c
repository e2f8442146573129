/* Fuzz target: the address classifier and CIDR matching. The first byte picks the family, the
 * next 16 are the address, the rest is a CIDR's text. Checks that classifying IPv4 hidden in
 * IPv6 agrees with classifying the IPv4 itself, so no wrapping reaches a private address, and
 * that a special IPv4 in any RFC 6052 layout under either NAT64 prefix is never public. */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/policy/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_mapped_agrees(const struct cp_ip *v4)
{
    struct cp_ip mapped = {.family = AF_INET6};
    mapped.bytes[10] = mapped.bytes[11] = 0xff;
    memcpy(mapped.bytes + 12, v4->bytes, 4);
    struct cp_ip nat64 = {.family = AF_INET6, .bytes = {0, 0x64, 0xff, 0x9b}};
    memcpy(nat64.bytes + 12, v4->bytes, 4);
    struct cp_ip six_to_four = {.family = AF_INET6, .bytes = {0x20, 0x02}};
    memcpy(six_to_four.bytes + 2, v4->bytes, 4);
    enum cp_addr_kind k = cp_addr_classify(v4);
    if (cp_addr_classify(&mapped) != k || cp_addr_classify(&nat64) != k ||
        cp_addr_classify(&six_to_four) != k)
        abort();
}

/* v4 at every RFC 6052 layout under 64:ff9b:: and, from /48 on, 64:ff9b:1::; the other
 * bits of the address come from the fuzzer's own bytes. */
static void check_nat64_layouts(const struct cp_ip *v4, const uint8_t *noise)
{
    static const unsigned lens[] = {32, 40, 48, 56, 64, 96};
    if (cp_addr_classify(v4) == CP_ADDR_PUBLIC)
        return;
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        for (int local = 0; local < 2; local++) {
            if (local && lens[l] < 48)
                continue;
            struct cp_ip a = {.family = AF_INET6};
            memcpy(a.bytes, noise, 16);
            static const uint8_t wkp[6] = {0, 0x64, 0xff, 0x9b, 0, 0};
            memcpy(a.bytes, wkp, 4);
            if (local)
                a.bytes[4] = 0, a.bytes[5] = 1;
            for (unsigned i = lens[l] / 8, k = 0; k < 4; i++)
                if (i != 8)
                    a.bytes[i] = v4->bytes[k++];
            /* Inside 64:ff9b::/96 the /96 layout governs (RFC 6052 2.1); there a shorter
             * layout only ever reads 0.x.y.z out of the zero bits. */
            static const uint8_t zero8[8] = {0};
            if (!local && lens[l] < 96 && memcmp(a.bytes + 4, zero8, 8) == 0)
                continue;
            /* Likewise inside 64:ff9b:1::/48 its own layouts govern: a /32 layout lands there
             * only with a 0.1.y.z, which no gateway can reach. */
            if (!local && lens[l] < 48 && a.bytes[4] == 0 && a.bytes[5] == 1)
                continue;
            if (cp_addr_classify(&a) == CP_ADDR_PUBLIC)
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 17)
        return 0;
    struct cp_ip ip = {.family = (data[0] & 1) ? AF_INET6 : AF_INET};
    memcpy(ip.bytes, data + 1, 16);
    if (ip.family == AF_INET)
        memset(ip.bytes + 4, 0, 12);
    enum cp_addr_kind k = cp_addr_classify(&ip);
    if (cp_addr_kind_name(k) == NULL)
        abort();
    if (ip.family == AF_INET) {
        check_mapped_agrees(&ip);
        check_nat64_layouts(&ip, data + 1);
    }
    char text[INET6_ADDRSTRLEN];
    cp_ip_format(&ip, text, sizeof(text));
    struct cp_ip back;
    if (cp_ip_parse(text, &back) < 0 || memcmp(&back, &ip, sizeof(ip)) != 0)
        abort();
    char cidr_text[128];
    size_t n = size - 17 < sizeof(cidr_text) - 1 ? size - 17 : sizeof(cidr_text) - 1;
    memcpy(cidr_text, data + 17, n);
    cidr_text[n] = '\0';
    struct cp_cidr cidr;
    cleanup_error cp_error_t err = NULL;
    if (cp_cidr_parse(cidr_text, &cidr, &err) == 0) {
        /* The network address itself is always inside its own CIDR. */
        if (!cp_cidr_contains(&cidr, &cidr.net))
            abort();
        cp_cidr_contains(&cidr, &ip);
    }
    return 0;
}
