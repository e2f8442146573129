/* Fuzz target: the sign-in channel's messages (sign-ins-table.h, sign-ins-feed.h). The first byte
 * picks the reader: the parser alone, whose promises are checked on what it takes (a match is
 * for the host asked, its prefix begins with '/', a signed head has exactly one Authorization
 * line and still ends the head), or the channel's framing fed the rest in pieces. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "egress/sign-ins/sign-ins-feed.h"
#include "egress/sign-ins/sign-ins-table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const targets[] = {"/", "/npm/x", "/a/b?c=/d", "/%61/b", "/x/../y", "/git/"};
static const char *const hosts[] = {"npm.corp.example", "a.example", "git.example"};

static size_t count_lines(const char *head, size_t len, const char *name)
{
    size_t n = 0, m = strlen(name);
    for (size_t i = 0; i + m < len; i++)
        if ((i == 0 || head[i - 1] == '\n') && strncasecmp(head + i, name, m) == 0)
            n++;
    return n;
}

static void check_entry(const struct cp_egress_sign_in *s, const char *host)
{
    static const char head[] = "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer box\r\n\r\n";
    if (strcmp(s->host, host) != 0 || s->prefix[0] != '/' || strpbrk(s->authorization, "\r\n"))
        abort();
    size_t n = 0;
    char *out = cp_egress_sign_ins_head(s, head, sizeof(head) - 1, &n);
    if (n < 4 || memcmp(out + n - 4, "\r\n\r\n", 4) != 0 ||
        count_lines(out, n, "authorization:") != 1 || memchr(out, '\0', n) != NULL)
        abort();
    cp_egress_sign_ins_head_free(out, n);
}

static void parse(const char *d, size_t n)
{
    struct cp_egress_sign_ins *t = NULL;
    cp_error_t err = NULL;
    if (cp_egress_sign_ins_parse(d, n, &t, &err) < 0) {
        if (t != NULL || err == NULL)
            abort();
        cp_error_free(&err);
        return;
    }
    if (cp_egress_sign_ins_count(t) > CP_EGRESS_SIGN_INS_MAX)
        abort();
    for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++)
        for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
            const struct cp_egress_sign_in *s = cp_egress_sign_ins_match(t, hosts[h], targets[i]);
            if (s != NULL)
                check_entry(s, hosts[h]);
        }
    cp_egress_sign_ins_unref(t);
}

static void feed(const char *d, size_t n)
{
    struct cp_egress_sign_ins_holder h;
    struct cp_egress_sign_ins_feed f;
    cp_error_t err = NULL;
    cp_egress_sign_ins_holder_init(&h);
    FILE *log = fopen("/dev/null", "w");
    if (cp_egress_sign_ins_feed_init(&f, -1, &h, log, &err) < 0)
        abort();
    for (size_t off = 0; off < n;) {
        size_t step = (size_t)(unsigned char)d[off] % 97 + 1;
        step = step < n - off ? step : n - off;
        cp_egress_sign_ins_feed_bytes(&f, d + off, step);
        off += step;
    }
    cp_egress_sign_ins_feed_dispose(&f);
    cp_egress_sign_ins_holder_dispose(&h);
    if (log != NULL)
        fclose(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] % 2 == 0)
        parse((const char *)data + 1, size - 1);
    else
        feed((const char *)data + 1, size - 1);
    return 0;
}
