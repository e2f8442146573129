/* Reading a warm box's end mark out of its output (end-mark.h). Only the shell in the box and
 * this run know the nonce; a command that learns it anyway (by reading its parent's memory)
 * can only end its own output early and choose its own status, which it can do regardless: the
 * run still waits for the box's processes to be gone before its layer is read. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "places/container/engine/end-mark.h"

#define RS         0x1e
#define STATUS_LEN 3

void cp_end_mark_init(struct cp_end_mark *m, const char *nonce)
{
    memset(m, 0, sizeof(*m));
    int n = snprintf(m->want, sizeof(m->want), "%cconch-end %.*s ", RS, CP_END_NONCE_LEN, nonce);
    m->want_len = n > 0 ? (size_t)n : 0;
}

/* Whether byte c may stand at position pos of a mark. */
static bool fits(const struct cp_end_mark *m, size_t pos, uint8_t c)
{
    if (pos < m->want_len)
        return c == (uint8_t)m->want[pos];
    if (pos < m->want_len + STATUS_LEN)
        return c >= '0' && c <= '9';
    return c == RS;
}

/* A whole mark: its status read, its bytes dropped. One above 255 is output, not a mark. */
static int complete(struct cp_end_mark *m, cp_end_mark_out out, void *ctx)
{
    const uint8_t *d = m->held + m->want_len;
    int status = (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');
    size_t n = m->matched;
    m->matched = 0;
    if (status > 255)
        return out(ctx, m->held, n);
    m->seen = true;
    m->status = status;
    return 0;
}

int cp_end_mark_scan(struct cp_end_mark *m, const uint8_t *data, size_t len, cp_end_mark_out out,
                     void *ctx)
{
    size_t start = 0, i = 0;
    while (i < len) {
        if (m->matched == 0) {
            const uint8_t *rs = memchr(data + i, RS, len - i);
            if (rs == NULL)
                break;
            i = (size_t)(rs - data);
        }
        if (fits(m, m->matched, data[i])) {
            /* The bytes before the mark's start go on; the mark's own are held. */
            if (m->matched == 0 && i > start && out(ctx, data + start, i - start) < 0)
                return -1;
            m->held[m->matched++] = data[i++];
            start = i;
            if (m->matched == m->want_len + STATUS_LEN + 1 && complete(m, out, ctx) < 0)
                return -1;
            continue;
        }
        /* Not a mark after all (a mark's first byte always fits, so something was held): it is
         * output, and this byte is looked at anew. */
        size_t n = m->matched;
        m->matched = 0;
        if (out(ctx, m->held, n) < 0)
            return -1;
    }
    if (m->matched == 0 && len > start)
        return out(ctx, data + start, len - start);
    return 0;
}

int cp_end_mark_finish(struct cp_end_mark *m, cp_end_mark_out out, void *ctx)
{
    size_t n = m->matched;
    m->matched = 0;
    return n > 0 ? out(ctx, m->held, n) : 0;
}
