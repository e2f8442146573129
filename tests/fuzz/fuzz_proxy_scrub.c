/* Fuzz target: the scrubber (egress/sign-ins/scrub.h), which reads every answer of a host that has
 * a sign-in. The input is an Authorization value up to its first newline, then the answer,
 * streamed in pieces whose sizes come from the answer's own bytes. Its promises: the answer
 * keeps its length, and no form of the sign-in (one without the mask's byte, which a mask could
 * make) is left in what the box gets. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/sign-ins/scrub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
    char *out;
    size_t len;
};

static int to_sink(void *ctx, const char *d, size_t n)
{
    struct sink *k = ctx;
    memcpy(k->out + k->len, d, n);
    k->len += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (nl == NULL || (size_t)(nl - data) > 512)
        return 0;
    size_t alen = (size_t)(nl - data);
    char *auth = malloc(alen + 1);
    memcpy(auth, data, alen);
    auth[alen] = '\0';
    const char *text = (const char *)nl + 1;
    size_t n = size - alen - 1;
    struct cp_scrub s;
    cp_scrub_init(&s);
    cp_scrub_add_authorization(&s, auth);
    struct sink k = {malloc(n + 1), 0};
    for (size_t at = 0; at < n;) {
        size_t piece = 1 + (unsigned char)text[at] % 37;
        if (piece > n - at)
            piece = n - at;
        cp_scrub_feed(&s, text + at, piece, to_sink, &k);
        at += piece;
    }
    cp_scrub_finish(&s, to_sink, &k);
    if (k.len != n)
        abort();
    for (size_t i = 0; i < s.n; i++)
        if (memchr(s.form[i], CP_SCRUB_MASK, s.form_len[i]) == NULL &&
            memmem(k.out, k.len, s.form[i], s.form_len[i]) != NULL)
            abort();
    cp_scrub_dispose(&s);
    free(k.out);
    free(auth);
    return 0;
}
