/* The framed form, written by the door and read by the runner (see frames.h). The reader is
 * fed bytes from a socket, so it trusts nothing in them: every length is bounded. */
#include "config.h"

#include <string.h>

#include "relay/frames.h"
#include "src/base/util.h"

void cp_frame_head(char head[CP_FRAME_HEAD], enum cp_frame_type type, size_t len)
{
    head[0] = (char)type;
    head[1] = (char)((len >> 24) & 0xff);
    head[2] = (char)((len >> 16) & 0xff);
    head[3] = (char)((len >> 8) & 0xff);
    head[4] = (char)(len & 0xff);
}

void cp_frame_reader_init(struct cp_frame_reader *r)
{
    memset(r, 0, sizeof(*r));
    r->status = -1;
}

static int start_frame(struct cp_frame_reader *r)
{
    size_t len = (size_t)r->head[1] << 24 | (size_t)r->head[2] << 16 | (size_t)r->head[3] << 8 |
                 (size_t)r->head[4];
    r->type = (enum cp_frame_type)r->head[0];
    if (r->type != CP_FRAME_OUT && r->type != CP_FRAME_ERR && r->type != CP_FRAME_EXIT &&
        r->type != CP_FRAME_FAIL)
        return -1;
    if (len > CP_FRAME_MAX || (r->type == CP_FRAME_EXIT && (len < 1 || len > 3)))
        return -1;
    r->want = len;
    r->small_len = 0;
    r->head_have = 0;
    return 0;
}

/* An 'X' or 'F' frame gathered whole. */
static int end_small(struct cp_frame_reader *r)
{
    r->small[r->small_len] = '\0';
    if (r->type == CP_FRAME_FAIL) {
        memcpy(r->fail, r->small, r->small_len + 1);
        r->failed = 1;
        return 0;
    }
    long v = 0;
    if (cp_parse_long(r->small, 0, 255, &v) < 0)
        return -1;
    r->status = (int)v;
    return 0;
}

int cp_frame_feed(struct cp_frame_reader *r, const char *data, size_t len, cp_frame_sink sink,
                  void *ctx)
{
    while (len > 0) {
        if (r->status >= 0)
            return -1; /* nothing follows the status */
        if (r->head_have < CP_FRAME_HEAD && r->want == 0) {
            r->head[r->head_have++] = (uint8_t)*data++;
            len--;
            if (r->head_have == CP_FRAME_HEAD && start_frame(r) < 0)
                return -1;
            if (r->head_have == 0 && r->want == 0 && r->type != CP_FRAME_OUT &&
                r->type != CP_FRAME_ERR && end_small(r) < 0)
                return -1;
            continue;
        }
        size_t n = len < r->want ? len : r->want;
        if (r->type == CP_FRAME_OUT || r->type == CP_FRAME_ERR) {
            sink(r->type, data, n, ctx);
        } else {
            memcpy(r->small + r->small_len, data, n);
            r->small_len += n;
        }
        data += n;
        len -= n;
        r->want -= n;
        if (r->want == 0 && r->type != CP_FRAME_OUT && r->type != CP_FRAME_ERR && end_small(r) < 0)
            return -1;
    }
    return 0;
}
