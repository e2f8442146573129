/* An answer's body on its way to the box through the scrubber (scrub.h), for a host that has
 * sign-ins: its data searched as it streams. A body framed by its length or by the close goes
 * on byte for byte (a mask keeps the length); a chunked one goes in chunks of our own, since a
 * sign-in could straddle two of the host's, and its trailers are dropped (they could carry
 * one, and nothing a box fetches needs them). */
#include "config.h"

#include <stdio.h>

#include "egress/terminate/terminate-int.h"

struct to_box {
    struct worker *w;
    bool chunked;
};

static int out_box(void *ctx, const char *data, size_t len)
{
    struct to_box *t = ctx;
    if (!t->chunked)
        return cp_terminate_push(t->w, &t->w->box, data, len);
    char size[24];
    int n = snprintf(size, sizeof(size), "%zx\r\n", len);
    if (cp_terminate_push(t->w, &t->w->box, size, (size_t)n) < 0 ||
        cp_terminate_push(t->w, &t->w->box, data, len) < 0)
        return -1;
    return cp_terminate_push(t->w, &t->w->box, "\r\n", 2);
}

static int feed(struct worker *w, const char *data, size_t len)
{
    struct to_box t = {w, w->sf.body == CP_HTTP1_BODY_CHUNKED};
    return len > 0 ? cp_scrub_feed(&w->scrub, data, len, out_box, &t) : 0;
}

int cp_terminate_scrub_end(struct worker *w)
{
    struct to_box t = {w, w->sf.body == CP_HTTP1_BODY_CHUNKED};
    if (cp_scrub_finish(&w->scrub, out_box, &t) < 0)
        return -1;
    return t.chunked ? cp_terminate_push(w, &w->box, "0\r\n\r\n", 5) : 0;
}

/* The chunked body's data out of what host.buf holds: framing read a byte at a time, data
 * as whole as it came. The count of bytes used, or -1 when the framing is malformed. */
static ssize_t chunked_data(struct worker *w, bool *done)
{
    struct side *h = &w->host;
    size_t used = 0;
    while (used < h->len && !*done) {
        uint64_t data = cp_http1_chunked_data_left(&w->sf.chunked);
        size_t step = data > 0 ? (data < h->len - used ? (size_t)data : h->len - used) : 1;
        ssize_t n = cp_http1_chunked_feed(&w->sf.chunked, h->buf + used, step, done);
        if (n <= 0 || (data > 0 && feed(w, h->buf + used, (size_t)n) < 0))
            return -1;
        used += (size_t)n;
    }
    return (ssize_t)used;
}

int cp_terminate_relay_scrubbed(struct worker *w)
{
    bool done = false;
    ssize_t used;
    if (w->sf.body == CP_HTTP1_BODY_CHUNKED) {
        used = chunked_data(w, &done);
    } else {
        used = cp_terminate_body_part(&w->sf, w->host.buf, w->host.len, &done);
        if (used > 0 && feed(w, w->host.buf, (size_t)used) < 0)
            return -1;
    }
    if (used < 0)
        return -1;
    cp_terminate_consume(&w->host, (size_t)used);
    if (done && cp_terminate_scrub_end(w) < 0)
        return -1;
    return done ? 1 : 0;
}
