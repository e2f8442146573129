/* Fuzz target: arbitrary bytes as a far side's answer to the lock or the probe: the copy's id
 * line, then the listing (mirror/sync.h, cp_mirror_session_parse). A hostile far side may
 * send anything; the parse must refuse or keep only a well-formed id (32 hex digits) and
 * canonical names, never crash or read past the bytes. Bytes that begin "conch-bytes " are a
 * held lock's framed listing (cp_far_lock_after), read from a far proc in small pieces: the
 * frame's length is the far side's word too, and nothing past it is read. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mirror/remote-lock.h"
#include "mirror/sync.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A far proc whose standard output is the input, 7 bytes at most per read. */
struct mem_proc {
    struct cp_far_proc base;
    const char *data;
    size_t len, off;
};

static ssize_t mem_read(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err)
{
    (void)err;
    struct mem_proc *m = (struct mem_proc *)r;
    size_t n = m->len - m->off;
    n = n < len ? n : len;
    n = n < 7 ? n : 7;
    memcpy(buf, m->data + m->off, n);
    m->off += n;
    return (ssize_t)n;
}

static const struct cp_transport_ops mem_ops = {.read_stdout = mem_read};

static int parse(struct cp_mirror_session *s, const char *data, size_t size, cp_error_t *err)
{
    const char *frame = "conch-bytes ";
    if (size < strlen(frame) || memcmp(data, frame, strlen(frame)) != 0)
        return cp_mirror_session_parse(s, data, size, 1000, err);
    struct mem_proc m = {.base = {.ops = &mem_ops}, .data = data, .len = size};
    struct cp_far_lock l = {.holder = &m.base, .held = true, .after = true};
    int rc = cp_far_lock_after(&l, s, err);
    if (m.off > m.len)
        abort();
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so a read past the end is caught by the sanitizers. */
    char *copy = xmalloc(size ? size : 1);
    memcpy(copy, data, size);
    struct cp_mirror_session s = {0};
    cp_error_t err = NULL;
    if (parse(&s, copy, size, &err) == 0) {
        if (s.far_id != NULL &&
            (strlen(s.far_id) != 32 || strspn(s.far_id, "0123456789abcdef") != 32))
            abort();
        for (size_t i = 0; i < s.before.n; i++)
            if (s.before.v[i].path[0] == '\0' || s.before.v[i].path[0] == '/')
                abort();
    }
    cp_error_free(&err);
    cp_mirror_session_dispose(&s);
    free(copy);
    return 0;
}
